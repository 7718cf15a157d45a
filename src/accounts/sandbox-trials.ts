// "Try it with the sandbox first" (issue 34): a merchant's account on the
// bridge's own sandbox, in sandbox mode. The sandbox makes the account (a
// random key and brand, activity 1 earning 100 points, 500 calls a minute)
// and the bridge keeps it as an account of the shop's own that calls the
// sandbox wherever the bridge serves it (account-records.ts,
// onBridgeSandbox). The sandbox holds its accounts in memory: at each start
// the bridge gives it back the trial accounts the ledger keeps, retired ones
// among them (their orders may still be approved or cancelled there), so a
// restart does not turn a trial's key into a refused one.
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { SandboxCredentials } from '../sandbox/credentials.ts';
import type { AccountRecord } from './account-records.ts';

export interface BridgeSandbox {
  /** Where the bridge serves its sandbox now. */
  url(): string;
  /** A new account on it; random credentials unless given. Throws when the sandbox holds as many as it may. */
  addAccount(input?: Partial<SandboxCredentials>): { credentials: Readonly<SandboxCredentials> };
  /** Takes back one it made, by its brand id: a trial refused after the sandbox made it leaves nothing there. */
  removeAccount(brandId: string): boolean;
}

/** The sandbox's first activity: what a trial account's orders earn with unless the merchant chooses another. */
export const TRIAL_EARN_ACTIVITY_ID = '1';

export async function readmitTrialAccounts(
  store: Pick<LedgerStore, 'listRecords'>,
  sandbox: Pick<BridgeSandbox, 'addAccount'>,
  logger: Logger,
): Promise<number> {
  let readmitted = 0;
  for (const { value } of await store.listRecords<AccountRecord>('account')) {
    if (!value.onBridgeSandbox) continue;
    try {
      sandbox.addAccount({ apiKey: value.apiKey, brandId: value.brandId });
      readmitted++;
    } catch (error) {
      // Already there (another start in this process) or the sandbox is full: the account's check will say so.
      logger.warn(
        { account: value.id, reason: (error as Error).message },
        'a trial account could not be given back to the sandbox',
      );
    }
  }
  return readmitted;
}
