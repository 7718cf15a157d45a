// What each loyalty account has to do and how fast it goes (issue 33), for
// status, the dashboard's accounts panel and /metrics: its calls in the last
// minute against its limit (this instance's, from the account's limiter),
// whether its budget is spent now (the worker passes its shops over until
// the time given), and its due work per lane with the oldest waiting, summed
// over the shops that earn on it. An order fixed to an account its shop has
// since left is counted with its shop's account: the ledger keeps due work
// by shop, and such orders are few.
import { addLaneCounts, emptyLaneCounts, type Lane, type LaneCounts } from '../core/lanes.ts';
import type { Accounts } from '../core/accounts.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { limiterOf } from '../loyalty/client.ts';

export interface AccountLoad {
  id: string;
  name: string;
  /** Calls this instance started for the account in the last minute; null for a client without a limiter. */
  callsLastMinute: number | null;
  /** The calls a minute its limiter allows (a little under the account's limit: see rate-limiter.ts). */
  limitPerMinute: number | null;
  /** While its budget is spent: when it returns (its shops are passed over until then). */
  budgetSpentUntil: string | null;
  lanes: Record<Lane, LaneCounts>;
}

export interface AccountLoadParts {
  accounts: Pick<Accounts, 'all' | 'forShop'>;
  store: Pick<LedgerStore, 'laneCountsByShop'>;
  /** The worker's budgets that are spent (by an account's budgetId, or its id), with when each returns. */
  spentBudgets: () => ReadonlyMap<string, number>;
}

export async function accountLoads({ accounts, store, spentBudgets }: AccountLoadParts): Promise<AccountLoad[]> {
  const [runtimes, shops] = await Promise.all([accounts.all(), store.laneCountsByShop()]);
  const lanes = new Map(runtimes.map((runtime) => [runtime.id, emptyLaneCounts()]));
  for (const shop of shops) {
    const account = await accounts.forShop(shop.platform, shop.shop);
    const sum = account === undefined ? undefined : lanes.get(account);
    if (sum) addLaneCounts(sum, shop.lanes);
  }
  const spent = spentBudgets();
  return runtimes.map((runtime) => {
    // Stored accounts' clients and the environment's are LoyaltyClients, each with its limiter.
    const stats = limiterOf(runtime.client)?.stats();
    // Accounts on one limiter share its budget: spent for one is spent for all of them.
    const until = spent.get(runtime.budgetId ?? runtime.id);
    return {
      id: runtime.id,
      name: runtime.name,
      callsLastMinute: stats?.startedInWindow ?? null,
      limitPerMinute: stats?.effectiveLimit ?? null,
      budgetSpentUntil: until === undefined ? null : new Date(until).toISOString(),
      lanes: lanes.get(runtime.id) ?? emptyLaneCounts(),
    };
  });
}
