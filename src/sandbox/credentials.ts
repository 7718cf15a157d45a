// The sandbox's credentials, and which of them anyone may know. The defaults
// (sandbox-key / sandbox-brand) are printed in config/default.json and the
// README, so they keep out nobody: a sandbox that takes them serves whoever
// reaches it. The bridge's own sandbox therefore never takes them, and the
// state and control routes never open to them.
import { randomBytes } from 'node:crypto';

export interface SandboxCredentials {
  apiKey: string;
  brandId: string;
}

/** The documented defaults: for a developer's sandbox on this machine only. */
export const PUBLIC_SANDBOX_CREDENTIALS: Readonly<SandboxCredentials> = { apiKey: 'sandbox-key', brandId: 'sandbox-brand' };

/**
 * The API key is the secret half (a brand id names an account, it hides
 * nothing): credentials are public when their key is the documented one.
 * Compared against a published value, so timing gives nothing away.
 */
export const arePublic = (credentials: SandboxCredentials): boolean => credentials.apiKey === PUBLIC_SANDBOX_CREDENTIALS.apiKey;

/** Credentials nobody can guess, for a sandbox that others may reach. */
export const randomSandboxCredentials = (): SandboxCredentials => ({
  apiKey: randomBytes(24).toString('base64url'),
  brandId: `sandbox-${randomBytes(6).toString('hex')}`,
});
