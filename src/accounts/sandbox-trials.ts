// "Try it with the sandbox first": a merchant's account on the bridge's own sandbox, in sandbox mode, kept
// as an account of the shop's own that calls the sandbox wherever the bridge serves it. The sandbox holds its
// accounts in memory, so at each start the bridge gives it back the trial accounts the ledger keeps (retired
// ones among them), so that a restart does not turn a trial's key into a refused one.
import type { RecordRole } from '../core/store/roles/records.ts';
import type { Logger } from '../logger.ts';
import type { SandboxCredentials } from '../sandbox/credentials.ts';
import type { AccountRecord } from './account-records.ts';
import { ACCOUNT_KIND } from './account-records.ts';

export interface BridgeSandbox {
  /** Where the bridge serves its sandbox now. */
  url(): string;
  /** A new account on it; random credentials unless given. Throws when the sandbox holds as many as it may. */
  addAccount(input?: Partial<SandboxCredentials>): {
    credentials: Readonly<SandboxCredentials>;
    /** The points each of its activities gives: a trial's declared points start as these. */
    activities?: ReadonlyMap<string, number>;
  };
  /** Takes back one it made, by its brand id: a trial refused after the sandbox made it leaves nothing there. */
  removeAccount(brandId: string): boolean;
}

/** The bridge's sandbox as trials see it: `app` the sandbox this bridge serves, `url` where it serves it now. */
export const bridgeSandboxOf = (
  app: Pick<BridgeSandbox, 'addAccount' | 'removeAccount'>,
  url: () => string,
): BridgeSandbox => ({
  url,
  addAccount: (input) => app.addAccount(input),
  removeAccount: (brandId) => app.removeAccount(brandId),
});

/** The sandbox's first activity: what a trial account's orders earn with unless the merchant chooses another. */
export const TRIAL_EARN_ACTIVITY_ID = '1';

/**
 * A trial account's fields, for a merchant's or the operator's "on the bridge's sandbox": the sandbox makes its
 * address and credentials; a name and settings may be given (activity 1 earns unless another is chosen).
 */
export function trialAccountInput(
  bridgeSandbox: BridgeSandbox | undefined,
  given: Record<string, unknown>,
): { ok: true; input: Record<string, unknown> } | { ok: false; status: number; errors: string[] } {
  const { sandbox, name, settings, ...rest } = given;
  const errors = [
    ...(sandbox === true ? [] : ["sandbox: must be true, to try the bridge's sandbox first"]),
    ...Object.keys(rest).map(
      (key) => `${key}: is not given with sandbox (the sandbox makes the address and credentials)`,
    ),
  ];
  if (settings !== undefined && (typeof settings !== 'object' || settings === null || Array.isArray(settings)))
    errors.push('settings: must be an object of the configuration’s names');
  if (errors.length > 0) return { ok: false, status: 400, errors };
  if (!bridgeSandbox)
    return {
      ok: false,
      status: 409,
      errors: ["sandbox: this bridge runs no sandbox; enter your loyalty account's address and credentials"],
    };
  let credentials, activities;
  try {
    ({ credentials, activities } = bridgeSandbox.addAccount());
  } catch {
    return {
      ok: false,
      status: 503,
      errors: ['sandbox: the sandbox holds as many accounts as it may; try again later'],
    };
  }
  return {
    ok: true,
    input: {
      name: name ?? 'Sandbox trial',
      baseUrl: bridgeSandbox.url(),
      apiKey: credentials.apiKey,
      brandId: credentials.brandId,
      settings: {
        LOYALTY_EARN_ACTIVITY_ID: TRIAL_EARN_ACTIVITY_ID,
        // Prefilled from the sandbox's own activities: the points its orders earn are known from the start.
        ...(activities ? { LOYALTY_ACTIVITY_POINTS: Object.fromEntries(activities) } : {}),
        ...(settings as Record<string, unknown> | undefined),
      },
    },
  };
}

/** This instance's sandbox, as far as a trial's coming back to it goes. */
export interface TrialSandbox {
  readonly accounts: ReadonlyArray<{ credentials: Readonly<SandboxCredentials> }>;
  addAccount(input?: Partial<SandboxCredentials>): unknown;
}

/**
 * Gives a trial account back to this instance's sandbox, if it is not there:
 * the sandbox keeps accounts in memory, so one made through another
 * instance (on one PostgreSQL), or before a restart, is unknown to it until
 * then. True when it was given back.
 */
export function admitTrial(
  sandbox: TrialSandbox,
  record: Pick<AccountRecord, 'id' | 'apiKey' | 'brandId'>,
  logger: Logger,
): boolean {
  const known = sandbox.accounts.some(
    ({ credentials }) => credentials.apiKey === record.apiKey && credentials.brandId === record.brandId,
  );
  if (known) return false;
  try {
    sandbox.addAccount({ apiKey: record.apiKey, brandId: record.brandId });
    return true;
  } catch (error) {
    // Full, or its brand taken by another key: the account's check will say so.
    logger.warn(
      { account: record.id, reason: (error as Error).message },
      'a trial account could not be given back to the sandbox',
    );
    return false;
  }
}

export async function readmitTrialAccounts(
  store: Pick<RecordRole, 'listRecords'>,
  sandbox: TrialSandbox,
  logger: Logger,
): Promise<number> {
  let readmitted = 0;
  for (const { value } of await store.listRecords(ACCOUNT_KIND))
    if (value.onBridgeSandbox && admitTrial(sandbox, value, logger)) readmitted++;
  return readmitted;
}
