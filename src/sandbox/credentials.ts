// The sandbox's credentials, and which of them anyone may know. The defaults
// (sandbox-key / sandbox-brand) are printed in config/default.json and
// docs/configuration.md, so they keep out nobody: a sandbox that takes them serves whoever
// reaches it. The bridge's own sandbox therefore never takes them, and the
// state and control routes never open to them.
import { randomBytes } from 'node:crypto';
import { isLoopbackHost } from '../net/addresses.ts';
import { sameSecret } from '../same-secret.ts';

export interface SandboxCredentials {
  apiKey: string;
  brandId: string;
}

/** The documented defaults: for a developer's sandbox on this machine only. */
export const PUBLIC_SANDBOX_CREDENTIALS: Readonly<SandboxCredentials> = {
  apiKey: 'sandbox-key',
  brandId: 'sandbox-brand',
};

/**
 * The API key is the secret half (a brand id names an account, it hides
 * nothing): credentials are public when their key is the documented one.
 * In constant time like every comparison of a key, though the other side is
 * published: what it is compared with is not.
 */
export const arePublic = (credentials: SandboxCredentials): boolean =>
  sameSecret(credentials.apiKey, PUBLIC_SANDBOX_CREDENTIALS.apiKey);

/** Credentials nobody can guess, for a sandbox that others may reach. */
export const randomSandboxCredentials = (): SandboxCredentials => ({
  apiKey: randomBytes(24).toString('base64url'),
  brandId: `sandbox-${randomBytes(6).toString('hex')}`,
});

/**
 * Why a sandbox serving alone (`loyalty-bridge sandbox`) must not start:
 * public credentials are a developer's convenience on this machine, and
 * beyond it they let anyone in. Undefined when it may.
 */
export function publicBeyondLoopback(credentials: SandboxCredentials, host: string): string | undefined {
  if (!arePublic(credentials) || isLoopbackHost(host)) return undefined;
  return (
    `the sandbox would listen on ${host} (HOST) with the public credentials ` +
    `${PUBLIC_SANDBOX_CREDENTIALS.apiKey} / ${PUBLIC_SANDBOX_CREDENTIALS.brandId}, which let in anyone who reaches it: ` +
    'set SANDBOX_API_KEY and SANDBOX_BRAND_ID to credentials of your own, or HOST=127.0.0.1 to keep it on this machine'
  );
}
