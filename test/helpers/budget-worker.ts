// A real worker over a real store, with fake loyalty accounts whose rate
// budgets a test opens place by place (issue 33): for tests of who gets the
// places of a spent budget. A place given back unused counts again, as the
// limiter's do; a call uses the place it was given.
import { alone, type AccountRuntime, type Accounts } from '../../src/core/accounts.ts';
import type { Lane } from '../../src/core/lanes.ts';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { AuthPause } from '../../src/core/worker/auth-pause.ts';
import { Worker, type LoyaltyOperations } from '../../src/core/worker/worker.ts';
import { createLogger } from '../../src/logger.ts';
import type { CallOptions, EarnInput } from '../../src/loyalty/client.ts';
import type { Place } from '../../src/loyalty/places.ts';
import type { RateBudget } from '../../src/loyalty/rate-limiter.ts';
import { tempDataDir } from './engine.ts';
import { storeWith } from './store-with.ts';
import { orderEvent } from './order-events.ts';
import { postgresAvailable } from './postgres.ts';
import { freshStore } from './postgres-store.ts';

const logger = createLogger({ level: 'silent' });
let sequence = 0;

/**
 * Spent until `openAt`; then `places` calls may be made, and once they are used it is spent again, each ask told it
 * returns `returnsInMs` later (40 unless told). A test that frees a place itself, once what it means to test is in
 * place, gives none at first.
 */
export interface Budget {
  places: number;
  openAt: number;
  returnsInMs?: number;
}

/** An account's reserveCall() on a budget. */
export function reserveFrom(budget: Budget): () => RateBudget {
  return () => {
    const now = Date.now();
    if (now < budget.openAt || budget.places === 0)
      return { spent: true, until: Math.max(budget.openAt, now + (budget.returnsInMs ?? 40)) };
    budget.places--;
    const place: Place & { used: boolean } = {
      used: false,
      release: () => {
        if (place.used) return;
        place.used = true;
        budget.places++;
      },
    };
    return { spent: false, place };
  };
}

/**
 * A fake account whose earns are listed in `earned` as `id:orderId`, in the order they were made; `gate` holds a
 * call; without `reserveCall` the worker asks no budget (a call waits in its limiter); `budgetId` names a budget
 * it shares with others (as accounts on one limiter do).
 */
export function fakeAccount(
  id: string,
  earned: string[],
  {
    reserveCall,
    gate,
    budgetId,
  }: { reserveCall?: () => RateBudget; gate?: () => Promise<void>; budgetId?: string } = {},
): AccountRuntime {
  const runtime = fakeRuntime(
    id,
    async (input, options) => {
      const place = options?.place as { used?: boolean } | undefined;
      if (place) place.used = true;
      if (gate) await gate();
      earned.push(`${id}:${input.orderId ?? ''}`);
    },
    reserveCall,
  );
  return budgetId ? { ...runtime, budgetId } : runtime;
}

/** An account whose only call is an earn, made by `onEarn`; the others are refused (these orders make none). */
export function fakeRuntime(
  id: string,
  onEarn: (input: EarnInput, options?: CallOptions) => Promise<void>,
  reserveCall?: () => RateBudget,
): AccountRuntime {
  const earn = async (input: EarnInput, options?: CallOptions) => {
    await onEarn(input, options);
    return { message: 'Points credited', data: {}, attempts: 1 };
  };
  const unused = () => Promise.reject(new Error('not called by these orders'));
  const client: LoyaltyOperations = {
    earn,
    updatePoints: unused,
    redeem: unused,
    addConversion: unused,
    confirmConversion: unused,
  };
  return {
    id,
    name: id,
    pool: alone(id),
    client,
    policy: DEFAULT_POLICY,
    earnActivityId: '1',
    redeemReturnActivities: {},
    authPause: new AuthPause({ probe: async () => undefined, logger, onResume: () => undefined }),
    ...(reserveCall ? { reserveCall } : {}),
  };
}

/** An order of `shop` (placed and paid, unless told), folded into the ledger in `lane`; its order id. */
export async function foldOrder(
  store: LedgerStore,
  lane: Lane,
  shop: string,
  facts: Fact[] = ['placed', 'paid'],
): Promise<string> {
  const orderId = String(6_600_000 + ++sequence);
  await foldEvent(store, `budget-worker-${orderId}`, orderEvent({ orderId, shop, facts }), lane);
  return orderId;
}

/** One delivery of one event, accepted and folded into the ledger in `lane`, as intake does. */
export async function foldEvent(store: LedgerStore, key: string, event: OrderEvent, lane: Lane): Promise<void> {
  await store.accept({
    key,
    aliases: [],
    receivedAt: new Date().toISOString(),
    retry: null,
    events: [event],
    ...(lane === 'backfill' ? { lane } : {}),
  });
  const claimed = await store.claimInbox('intake', 100, 60_000);
  await store.commitIntake(
    claimed.map((entry) => ({
      entryKey: entry.key,
      lane: entry.lane,
      ...(entry.events ? { events: entry.events } : {}),
    })),
  );
}

/** The store, with the saves that let one order go held until `release()`. */
export function holdingSavesOf(store: LedgerStore, orderId: () => string | undefined) {
  let held: Array<() => void> = [];
  let holding = true;
  const saveProgress: LedgerStore['saveProgress'] = async (record, options) => {
    if (holding && options.release && record.orderId === orderId())
      await new Promise<void>((resolve) => held.push(resolve));
    return store.saveProgress(record, options);
  };
  return {
    store: storeWith(store, { saveProgress }),
    heldSaves: () => held.length,
    release: () => {
      holding = false;
      for (const resolve of held.splice(0)) resolve();
      held = [];
    },
  };
}

/** Both backends: lowdb without polling (as the bridge runs it), PostgreSQL when a server answers. */
export const BUDGET_BACKENDS = [
  [
    'lowdb',
    true,
    async () => {
      const store = new LowdbStore({ dataDir: tempDataDir() });
      await store.open();
      return { store: store as LedgerStore, close: () => store.close(), pollMs: undefined as number | undefined };
    },
  ],
  [
    'postgres',
    postgresAvailable(),
    async () => {
      const opened = await freshStore();
      return { store: opened.store, close: () => opened.close(), pollMs: 50 as number | undefined };
    },
  ],
] as const;

/** A worker over `store` for these accounts (shop → account id), five slots unless told, backfill's share 0.2. */
export function budgetWorker(
  store: LedgerStore,
  runtimes: AccountRuntime[],
  shopAccount: Record<string, string>,
  { concurrency = 5, pollMs }: { concurrency?: number; pollMs?: number | undefined } = {},
) {
  const byId = new Map(runtimes.map((runtime) => [runtime.id, runtime]));
  const accounts: Accounts = {
    forShop: async (_platform, shop) => shopAccount[shop],
    runtime: async (id) => byId.get(id),
    all: async () => runtimes,
    stop: () => runtimes.forEach((runtime) => runtime.authPause.stop()),
  };
  const worker = new Worker({
    store,
    accounts,
    logger,
    concurrency,
    backfillMinShare: 0.2,
    retryMinDelayMs: 20,
    ...(pollMs ? { pollMs } : {}),
  });
  return { worker, stop: () => worker.stop().finally(() => accounts.stop()) };
}

/** The lanes of an account's earns up to its last live one (L live, b backfill). */
export function lanesOf(earned: string[], account: string, live: string[]): string {
  const mine = earned.filter((id) => id.startsWith(`${account}:`)).map((id) => id.slice(account.length + 1));
  const last = Math.max(...live.map((id) => mine.indexOf(id)));
  return mine
    .slice(0, last + 1)
    .map((id) => (live.includes(id) ? 'L' : 'b'))
    .join('');
}
