// What stops orders earning, for the operator: the top of the dashboard and `status`'s `!!` lines. Each
// problem names its cause and the fix for that cause (an address the bridge refused is changed here; a key
// the service refused is put right at the service), in words; a configuration name only as the fix's detail.
import { lastedWords, lettersOrdersNamed } from '../core/letter-names.ts';
import type { AccountLoad } from '../accounts/account-load.ts';
import type { AccountRecord } from '../accounts/account-records.ts';
import { causeOfCheck } from '../accounts/check-cause.ts';
import { DEFAULT_ACCOUNT, type AccountRuntime } from '../core/accounts.ts';
import type { ShopLaneCounts } from '../core/lanes.ts';
import type { OrderWorkRole, OperatorQueries, DeadLetterRole } from '../core/store/ledger-store.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { counted, isAre } from '../counted.ts';

export type ProblemKind =
  'dead_letters' | 'key_refused' | 'address_refused' | 'unreachable' | 'rule_paused' | 'orders_held' | 'budget_spent';

export interface Problem {
  kind: ProblemKind;
  /** A few words, for a table's row ("dead letters"). */
  label: string;
  /** What is wrong, and what it does to orders. */
  cause: string;
  /** What to do about that cause. */
  fix: string;
  count?: number;
  /** The account it is of, where it is one's. */
  account?: string;
}

export interface ProblemParts {
  store: Pick<OrderWorkRole & OperatorQueries & DeadLetterRole, 'listDeadLetters' | 'getOrder' | 'laneCountsByShop'>;
  /** Every account's runtime (the default among them): its pause and paused rules. */
  runtimes: () => Promise<AccountRuntime[]>;
  /** The stored accounts: their last check. */
  records: () => Promise<AccountRecord[]>;
  accountOf: (shop: { platform: string; shop: string }) => Promise<string | undefined>;
  loads: AccountLoad[];
  /** How long a budget is spent before it is a problem (the worker's budgetSpentLongMs). */
  spentLongMs: number;
  now: Date;
}

export async function operatorProblems(parts: ProblemParts): Promise<Problem[]> {
  const [runtimes, records, shops] = await Promise.all([
    parts.runtimes(),
    parts.records(),
    parts.store.laneCountsByShop(),
  ]);
  const problems: Problem[] = [];
  const byId = new Map(records.map((record) => [record.id, record]));
  const loadOf = (id: string) => parts.loads.find((load) => load.id === id);
  for (const runtime of runtimes) {
    const record = byId.get(runtime.id);
    const account = accountWords(runtime);
    const load = loadOf(runtime.id);
    const waiting = load ? load.lanes.live.waiting + load.lanes.backfill.waiting : 0;
    const orders = waiting > 0 ? ` ${counted(waiting, 'order')} ${waiting === 1 ? 'waits' : 'wait'}.` : '';
    const cause = runtime.authPause.paused ? 'key_refused' : causeOfCheck(record?.check);
    if (cause === 'key_refused')
      problems.push({
        kind: 'key_refused',
        label: `${runtime.name}: key refused`,
        cause: `${account}: the loyalty service refuses its API key or brand id, so its calls are paused.${orders}`,
        fix:
          runtime.id === DEFAULT_ACCOUNT
            ? 'Put LOYALTY_API_KEY and LOYALTY_BRAND_ID right (or the key right at the service), then try again.'
            : `Put its API key or brand id right (Loyalty accounts, or loyalty-bridge accounts set ${runtime.id} apiKey=… brandId=…).`,
        account: runtime.id,
      });
    else if (cause === 'address_refused')
      problems.push({
        kind: 'address_refused',
        label: `${runtime.name}: address refused`,
        cause: `${account}: the bridge will not send its calls to ${record?.baseUrl ?? 'its address'}${refusalWords(record?.check?.detail)}. Its key was never tried; each order's call becomes a dead letter.`,
        fix: `Give it the loyalty service's public https address (https://www.ref-r.com) in Loyalty accounts, or loyalty-bridge accounts set ${runtime.id} baseUrl=…. To try the bridge's own sandbox, make an account on it instead (Loyalty accounts, On this bridge's sandbox).`,
        account: runtime.id,
      });
    else if (cause === 'unreachable')
      problems.push({
        kind: 'unreachable',
        label: `${runtime.name}: unreachable`,
        cause: `${account}: the loyalty service at ${record?.baseUrl ?? 'its address'} could not be reached when it was last checked${record?.check?.detail ? ` (${record.check.detail})` : ''}.${orders}`,
        fix: `Check that the address is the service's and that the service is up, then check the account again (loyalty-bridge accounts set ${runtime.id} baseUrl=…, or POST /admin/api/accounts/${runtime.id}/check).`,
        account: runtime.id,
      });
    for (const paused of runtime.pausedRules ?? [])
      problems.push({
        kind: 'rule_paused',
        label: `${runtime.name}: rule off`,
        cause: `${account}: the rule for ${paused.rule} is off: its pattern ${paused.why}.`,
        fix: `Write ${paused.key} again in the account's settings, as a pattern without lookaround or backreferences.`,
        account: runtime.id,
      });
    const spentSince = load?.budgetSpentSince ? Date.parse(load.budgetSpentSince) : undefined;
    if (spentSince !== undefined && parts.now.getTime() - spentSince >= parts.spentLongMs) {
      problems.push({
        kind: 'budget_spent',
        label: `${runtime.name}: calls used up`,
        cause: `${account} has used every call it may make a minute for ${lastedWords(parts.now.getTime() - spentSince)}: its orders wait their turn.${orders}`,
        fix: `Nothing is lost: they go as calls free up. If the service allows this account more, raise its calls a minute (Loyalty accounts, or loyalty-bridge accounts set ${runtime.id} rateLimitPerMinute=…).`,
        account: runtime.id,
      });
    }
  }
  problems.push(...(await heldOrders(parts, shops)));
  const letters = await deadLetterProblem(parts.store, problems);
  if (letters) problems.unshift(letters);
  return problems;
}

/** The refusal alone, without the call's name or the fix the error adds (the problem has its own). */
const refusalWords = (detail: string | undefined) =>
  detail ? `: ${detail.replace(/^[a-zA-Z]+: /, '').split('. ')[0]}` : '';

const accountWords = (runtime: AccountRuntime) =>
  runtime.id === DEFAULT_ACCOUNT ? 'The default account' : `Account ${runtime.name} (${runtime.id})`;

/** Orders of shops on no account: kept, and held until the shop earns on one. */
async function heldOrders(parts: ProblemParts, shops: ShopLaneCounts[]): Promise<Problem[]> {
  const held: Problem[] = [];
  for (const shop of shops) {
    const waiting = shop.lanes.live.waiting + shop.lanes.backfill.waiting;
    if (waiting === 0 || (await parts.accountOf(shop)) !== undefined) continue;
    held.push({
      kind: 'orders_held',
      label: `${shop.shop}: orders held`,
      cause: `${counted(waiting, 'order')} of ${shop.platform} ${shop.shop} ${isAre(waiting)} held: the shop earns on no loyalty account, so no points are sent.`,
      fix: `Choose the account it earns on (Loyalty accounts, Which account each shop earns on, or loyalty-bridge shops link ${shop.platform} ${shop.shop} <account>): its orders then go.`,
      count: waiting,
    });
  }
  return held;
}

/** The dead letters as one problem, their orders named; the fix points at an account's problem first, if any. */
export async function deadLetterProblem(
  store: Pick<OrderWorkRole & OperatorQueries & DeadLetterRole, 'listDeadLetters' | 'getOrder'>,
  accountProblems: readonly Problem[],
): Promise<Problem | undefined> {
  const letters = (await store.listDeadLetters()).reverse();
  if (letters.length === 0) return undefined;
  const named = await lettersOrdersNamed(store, letters);
  // Retried before their account is put right, they only fail again.
  const blocking = accountProblems.some((problem) => problem.kind !== 'budget_spent' && problem.kind !== 'rule_paused');
  return {
    kind: 'dead_letters',
    label: 'dead letters',
    cause: `${counted(letters.length, 'dead letter')}: calls or deliveries that could not go on and wait for a person${named}. The newest says: ${trimTrailing(letters[0]!.reason, '.')}.`,
    fix: blocking
      ? `Put right the problem below first, then retry them (Dead letters, Retry; or loyalty-bridge dead-letters retry --all): until then they only fail again.`
      : 'Fix what each says, then retry them (Dead letters, Retry; or loyalty-bridge dead-letters retry --all).',
    count: letters.length,
  };
}
