// An account as an earlier release saved it: a discount-code pattern with lookahead, which the settings API no
// longer takes and RE2 cannot run, written straight into the ledger. Its rule is then paused on its own.

import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { ACCOUNT_KIND } from '../../src/accounts/account-records.ts';

/** Every LOYALTY- code but the test ones. */
export const SAVED_PATTERN = '^LOYALTY-(?!TEST)';

export const saveEarlierPattern = (store: LedgerStore, account: string) =>
  store.changeRecord(ACCOUNT_KIND, account, (now) =>
    now
      ? {
          put: {
            ...now,
            settings: { ...now.settings, REDEEM_CODE_PATTERN: SAVED_PATTERN },
            updatedAt: new Date(Date.parse(now.updatedAt) + 1).toISOString(),
          },
        }
      : undefined,
  );
