// What each loyalty account has to do and how fast it goes, for status, the dashboard and /metrics: calls in
// the last minute against its limit, whether its budget is spent, and its due work per lane. The operator's
// views show the budget, shared by every account on one limiter. /metrics is scraped without credentials, so
// it shows each account only what it did itself: an account made with someone else's key learns nothing
// there of that key's use.
import { addLaneCounts, emptyLaneCounts, type Lane, type LaneCounts } from '../core/lanes.ts';
import type { AccountRuntime, Accounts, PausedRule } from '../core/accounts.ts';
import type { OperatorQueries } from '../core/store/roles/queries.ts';
import { limiterOf } from '../loyalty/client.ts';
import { limitWords } from '../loyalty/rate-limiter.ts';
import type { AccountCalls } from './account-calls.ts';

export interface AccountLoad {
  id: string;
  name: string;
  /** Calls this instance started in the last minute (the budget's, or the account's own: AccountView); null when not known. */
  callsLastMinute: number | null;
  /** The calls a minute its limiter allows (a little under the account's limit: see rate-limiter.ts). */
  limitPerMinute: number | null;
  /** The calls against the limit in words, and why it is below the service's where it is; absent when not known. */
  limitWords?: string;
  /** While its budget is spent: when it returns (its shops are passed over until then). */
  budgetSpentUntil: string | null;
  /** Since when its budget has been spent with no real break (the operator's view only; null for anyone's). */
  budgetSpentSince: string | null;
  lanes: Record<Lane, LaneCounts>;
  /** Rules of its saved settings that cannot run, each off until fixed (the operator's view only). */
  pausedRules: readonly PausedRule[];
}

/** What an account's load shows of its calls and budget, read once per listing (see the file's comment). */
export type AccountView = () => (runtime: AccountRuntime) => {
  callsLastMinute: number | null;
  budgetSpentUntil: number | undefined;
  budgetSpentSince?: number | undefined;
};

/** The operator's: the budget's calls (its limiter's), and spent for every account on a spent budget. */
export const operatorView =
  (spentBudgets: () => ReadonlyMap<string, number>, spentSince?: () => ReadonlyMap<string, number>): AccountView =>
  () => {
    const spent = spentBudgets();
    const since = spentSince?.();
    return (runtime) => ({
      callsLastMinute: limiterOf(runtime.client)?.stats().startedInWindow ?? null,
      budgetSpentUntil: spent.get(runtime.budgetId ?? runtime.id),
      budgetSpentSince: since?.get(runtime.budgetId ?? runtime.id),
    });
  };

/** Anyone's (/metrics): the account's own calls, and spent only where its own orders found it so. */
export const publicView =
  (spentAccounts: () => ReadonlyMap<string, number>, calls: Pick<AccountCalls, 'lastMinute'>): AccountView =>
  () => {
    const spent = spentAccounts();
    return (runtime) => ({ callsLastMinute: calls.lastMinute(runtime.id), budgetSpentUntil: spent.get(runtime.id) });
  };

export interface AccountLoadParts {
  accounts: Pick<Accounts, 'all' | 'forShop'>;
  store: Pick<OperatorQueries, 'laneCountsByShop'>;
  view: AccountView;
}

export async function accountLoads({ accounts, store, view }: AccountLoadParts): Promise<AccountLoad[]> {
  const [runtimes, shops] = await Promise.all([accounts.all(), store.laneCountsByShop()]);
  const lanes = new Map(runtimes.map((runtime) => [runtime.id, emptyLaneCounts()]));
  for (const shop of shops) {
    const account = await accounts.forShop(shop.platform, shop.shop);
    const sum = account === undefined ? undefined : lanes.get(account);
    if (sum) addLaneCounts(sum, shop.lanes);
  }
  const seen = view();
  return runtimes.map((runtime) => {
    const { callsLastMinute, budgetSpentUntil, budgetSpentSince } = seen(runtime);
    const limiter = limiterOf(runtime.client)?.stats();
    return {
      id: runtime.id,
      name: runtime.name,
      callsLastMinute,
      // The limit is the account's own setting (its limiter's plan for it), whoever shares the limiter.
      limitPerMinute: limiter?.effectiveLimit ?? null,
      ...(limiter && callsLastMinute !== null ? { limitWords: limitWords(callsLastMinute, limiter) } : {}),
      budgetSpentUntil: budgetSpentUntil === undefined ? null : new Date(budgetSpentUntil).toISOString(),
      budgetSpentSince:
        budgetSpentUntil === undefined || budgetSpentSince === undefined
          ? null
          : new Date(budgetSpentSince).toISOString(),
      lanes: lanes.get(runtime.id) ?? emptyLaneCounts(),
      pausedRules: runtime.pausedRules ?? [],
    };
  });
}
