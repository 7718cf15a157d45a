// Live first on places (account-budgets.ts), model-checked: the worker with scarce budgets
// (places given a few per window, so an account's live orders and its backfill
// are both due while it has few places: holds on its backfill are live), with
// failures injected on the backfill yield path of #step (a backfill order given
// a place while a live order of its account waits: released, saved still due).
// Injected on that save: a write that fails before the store sees it, one that
// the store made durable but reported failed, and a save that finds new facts
// folded meanwhile ('refolded'). After each settling every order of an account
// with places is earned (lowdb without polling: only its timers and wakes find
// work, so a hold lifted without a wake would sleep here); at the end, with
// places for all, every order earned exactly once, each call with a place.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountRuntime, Accounts } from '../../src/core/accounts.ts';
import type { Lane, SkippedShops } from '../../src/core/lanes.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { Worker } from '../../src/core/worker/worker.ts';
import { createLogger } from '../../src/logger.ts';
import type { CallOptions, EarnInput } from '../../src/loyalty/client.ts';
import type { Place } from '../../src/loyalty/places.ts';
import type { RateBudget } from '../../src/loyalty/rate-limiter.ts';
import { foldEvent, fakeRuntime } from '../helpers/budget-worker.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';
import { storeWith } from '../helpers/store-with.ts';

const ACCOUNTS = ['A', 'B'] as const;
type AccountId = (typeof ACCOUNTS)[number];
const SHOPS: Record<string, AccountId> = { 'a1.example': 'A', 'a2.example': 'A', 'b1.example': 'B' };
const logger = createLogger({ level: 'silent' });

type FailMode = 'throw' | 'throw-after' | 'refold';

/** A budget giving `perWindow` places per window; a place given back unused counts again. */
interface Rate {
  perWindow: number;
  windowMs: number;
  places: number;
  windowEnd: number;
}

interface Real {
  store: LedgerStore;
  worker: Worker;
  rates: Record<AccountId, Rate>;
  places: Map<Place, { account: AccountId; over: boolean }>;
  earns: Array<{ account: AccountId; orderId: string }>;
  callsWithoutPlace: string[];
  /** Failures still to inject on the yield path's saves. */
  failures: FailMode[];
  counters: Counters;
  folds: { chain: Promise<unknown> };
  sequence: { next: number };
}

interface Counters {
  yieldSaves: number;
  injected: Record<FailMode, number>;
  heldBackfillLooks: number;
  /** Backfill claims passing shops over (spent, or held back). */
  heldBackfillClaims: number;
}

interface Model {
  orders: Map<string, AccountId>;
  perWindow: Record<AccountId, number>;
}

function reserve(rate: Rate, account: AccountId, real: Pick<Real, 'places'>): RateBudget {
  const now = Date.now();
  if (now >= rate.windowEnd) {
    rate.places = rate.perWindow;
    rate.windowEnd = now + rate.windowMs;
  }
  // The return a spent budget tells is an estimate, often late (a limiter's window, a shared store's count):
  // places come back before some waits end, so live orders wait while their account has places.
  if (rate.places <= 0) return { spent: true, until: rate.windowEnd + Math.floor(Math.random() * 3 * rate.windowMs) };
  rate.places--;
  const given = { account, over: false };
  const place: Place = {
    release: () => {
      if (given.over) return;
      given.over = true;
      rate.places++;
    },
  };
  real.places.set(place, given);
  return { spent: false, place };
}

function account(id: AccountId, real: Omit<Real, 'worker' | 'store'>): AccountRuntime {
  return fakeRuntime(
    id,
    async (input: EarnInput, options?: CallOptions) => {
      const place = options?.place ? real.places.get(options.place) : undefined;
      if (!place || place.account !== id || place.over) real.callsWithoutPlace.push(`${id}:${input.orderId}`);
      if (place) place.over = true;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 6)));
      real.earns.push({ account: id, orderId: input.orderId ?? '' });
    },
    () => reserve(real.rates[id], id, real),
  );
}

/** Folds serialized: the test's arrivals and the refolds injected inside a save share intake's claims. */
function serialFold(real: Pick<Real, 'folds'>, fold: () => Promise<void>): Promise<void> {
  const next = real.folds.chain.then(fold, fold);
  real.folds.chain = next.catch(() => undefined);
  return next;
}

/** The store with the yield path's saves (backfill, let go, still due now) counted and failed as told. */
function instrumented(store: LedgerStore, real: Omit<Real, 'worker' | 'store'>): LedgerStore {
  const saveProgress: LedgerStore['saveProgress'] = async (record, options) => {
    const stillDue = record.dueAt !== null && Date.parse(record.dueAt) <= Date.now();
    if (!(options.release && record.lane === 'backfill' && stillDue)) return store.saveProgress(record, options);
    real.counters.yieldSaves++;
    const mode = real.failures.shift();
    if (mode) real.counters.injected[mode]++;
    if (mode === 'throw') throw new Error('injected: the yield save failed before the store saw it');
    if (mode === 'refold')
      await serialFold(real, () =>
        foldEvent(
          store,
          `holds-model-refold-${record.orderId}-${++real.sequence.next}`,
          orderEvent({
            orderId: record.orderId,
            shop: record.shop,
            facts: ['placed', 'paid'],
            total: { amount: '130.00', currency: 'EUR' },
          }),
          'backfill',
        ),
      );
    const result = await store.saveProgress(record, options);
    if (mode === 'throw-after') throw new Error('injected: the yield save was made but reported failed');
    return result;
  };
  const nextDueAt: LedgerStore['nextDueAt'] = (skip?: SkippedShops) => {
    if (skip?.backfill?.size) real.counters.heldBackfillLooks++;
    return store.nextDueAt(skip);
  };
  const claimDue: LedgerStore['claimDue'] = (owner, limit, leaseMs, lane, skipShops) => {
    if (lane === 'backfill' && skipShops?.size) real.counters.heldBackfillClaims++;
    return store.claimDue(owner, limit, leaseMs, lane, skipShops);
  };
  return storeWith(store, { saveProgress, nextDueAt, claimDue });
}

async function fold(real: Real, shop: string, lane: Lane): Promise<string> {
  const orderId = String(9_400_000 + ++real.sequence.next);
  await serialFold(real, () =>
    foldEvent(real.store, `holds-model-${orderId}`, orderEvent({ orderId, shop, facts: ['placed', 'paid'] }), lane),
  );
  real.worker.wake();
  return orderId;
}

const earnedIds = (real: Real) => real.earns.map((each) => each.orderId);

class Arrive implements fc.AsyncCommand<Model, Real> {
  readonly shop: string;
  readonly lane: Lane;
  readonly count: number;
  constructor(shop: string, lane: Lane, count: number) {
    this.shop = shop;
    this.lane = lane;
    this.count = count;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    for (let i = 0; i < this.count; i++) model.orders.set(await fold(real, this.shop, this.lane), SHOPS[this.shop]!);
  }
  toString = () => `arrive(${this.shop}, ${this.lane}, ${this.count})`;
}

class SetRate implements fc.AsyncCommand<Model, Real> {
  readonly account: AccountId;
  readonly perWindow: number;
  constructor(account: AccountId, perWindow: number) {
    this.account = account;
    this.perWindow = perWindow;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    model.perWindow[this.account] = this.perWindow;
    real.rates[this.account].perWindow = this.perWindow;
  }
  toString = () => `rate(${this.account}, ${this.perWindow})`;
}

class Fail implements fc.AsyncCommand<Model, Real> {
  readonly modes: FailMode[];
  constructor(modes: FailMode[]) {
    this.modes = modes;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    real.failures.push(...this.modes);
  }
  toString = () => `fail(${this.modes.join(',')})`;
}

/**
 * A spent budget found by backfill, live and backfill orders arriving meanwhile (never let go, so holding
 * nothing yet), then places back: one claim takes both lanes, and a live order slow to ask holds its
 * account's backfill while it has places: the yield path.
 */
class Burst implements fc.AsyncCommand<Model, Real> {
  readonly shop: string;
  readonly live: number;
  readonly backfill: number;
  readonly perWindow: number;
  constructor(shop: string, live: number, backfill: number, perWindow: number) {
    this.shop = shop;
    this.live = live;
    this.backfill = backfill;
    this.perWindow = perWindow;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const id = SHOPS[this.shop]!;
    await new SetRate(id, 0).run(model, real);
    await new Arrive(this.shop, 'backfill', 1).run(model, real);
    await new Promise((resolve) => setTimeout(resolve, 15));
    await new Arrive(this.shop, 'live', this.live).run(model, real);
    await new Arrive(this.shop, 'backfill', this.backfill).run(model, real);
    await new SetRate(id, this.perWindow).run(model, real);
  }
  toString = () => `burst(${this.shop}, ${this.live} live, ${this.backfill} backfill, ${this.perWindow})`;
}

class Settle implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await settle(model, real, 8_000);
  }
  toString = () => 'settle';
}

async function settle(model: Model, real: Real, timeoutMs: number): Promise<void> {
  const withPlaces = [...model.orders].filter(([, id]) => model.perWindow[id] > 0).map(([orderId]) => orderId);
  await eventually(() => expect(withPlaces.filter((id) => !earnedIds(real).includes(id))).toEqual([]), timeoutMs);
  expect(real.callsWithoutPlace).toEqual([]);
  for (const { account: id, orderId } of real.earns) expect(model.orders.get(orderId)).toBe(id);
  expect(new Set(earnedIds(real)).size).toBe(real.earns.length);
}

const commands = [
  fc
    .record({
      shop: fc.constantFrom(...Object.keys(SHOPS)),
      lane: fc.constantFrom<Lane>('live', 'backfill'),
      count: fc.integer({ min: 1, max: 6 }),
    })
    .map(({ shop, lane, count }) => new Arrive(shop, lane, count)),
  fc
    .record({ account: fc.constantFrom(...ACCOUNTS), perWindow: fc.integer({ min: 0, max: 3 }) })
    .map(({ account: id, perWindow }) => new SetRate(id, perWindow)),
  fc
    .array(fc.constantFrom<FailMode>('throw', 'throw-after', 'refold'), { minLength: 1, maxLength: 3 })
    .map((modes) => new Fail(modes)),
  fc.constant(new Settle()),
  fc
    .record({
      shop: fc.constantFrom(...Object.keys(SHOPS)),
      live: fc.integer({ min: 1, max: 3 }),
      backfill: fc.integer({ min: 1, max: 4 }),
      perWindow: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ shop, live, backfill, perWindow }) => new Burst(shop, live, backfill, perWindow)),
];

const totals: Counters = {
  yieldSaves: 0,
  injected: { throw: 0, 'throw-after': 0, refold: 0 },
  heldBackfillLooks: 0,
  heldBackfillClaims: 0,
};

async function runModel(
  openStore: () => Promise<{ store: LedgerStore; close(): Promise<void>; pollMs?: number }>,
  runs: number,
) {
  await fc.assert(
    fc.asyncProperty(
      fc.commands(commands, { maxCommands: 16 }),
      fc.integer({ min: 2, max: 5 }),
      fc.integer({ min: 20, max: 80 }),
      async (cmds, concurrency, windowMs) => {
        const opened = await openStore();
        const rate = (): Rate => ({ perWindow: 1, windowMs, places: 0, windowEnd: 0 });
        const shared = {
          rates: { A: rate(), B: rate() },
          places: new Map(),
          earns: [],
          callsWithoutPlace: [],
          failures: [],
          counters: totals,
          folds: { chain: Promise.resolve() },
          sequence: { next: 0 },
        } as Omit<Real, 'worker' | 'store'>;
        const store = instrumented(opened.store, shared);
        const runtimes = Object.fromEntries(ACCOUNTS.map((id) => [id, account(id, shared)])) as Record<
          AccountId,
          AccountRuntime
        >;
        const accounts: Accounts = {
          forShop: async (_platform, shop) => SHOPS[shop],
          // A slow look-up now and then (a store read): steps reach their budget out of claim order.
          runtime: async (id) => {
            if (Math.random() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * windowMs));
            return runtimes[id as AccountId];
          },
          all: async () => Object.values(runtimes),
          stop: () => Object.values(runtimes).forEach((runtime) => runtime.authPause.stop()),
        };
        const worker = new Worker({
          store,
          accounts,
          logger,
          concurrency,
          pollMs: opened.pollMs,
          retryMinDelayMs: 20,
          backfillMinShare: 0.2,
        });
        const real: Real = { ...shared, store, worker };
        const model: Model = { orders: new Map(), perWindow: { A: 1, B: 1 } };
        worker.start();
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Places for all, and failures still pending injected too: everything earns, once, on its own account.
          for (const id of ACCOUNTS) await new SetRate(id, 3).run(model, real);
          await settle(model, real, 20_000);
          expect(real.earns).toHaveLength(model.orders.size);
          if (process.env.HOLDS_MODEL_DEBUG) console.log(cmds.toString(), real.earns.length, JSON.stringify(totals));
        } finally {
          await worker.stop();
          accounts.stop();
          await opened.close();
        }
      },
    ),
    { numRuns: runs },
  );
}

/** Batches of runs at most, for the model to reach what it is for (below). */
const MAX_BATCHES = 5;

/**
 * Runs the model until it has reached what it is for: holds seen, and the yield path taken (where failures are
 * injected). Whether a backfill order gets a place while a live order of its account waits is a race, won in about
 * one run in four or five here, so a fixed count of runs sometimes never took it (12 on PostgreSQL, once on CI). The
 * runs asked for always run; batches of as many more follow until both are reached, up to MAX_BATCHES in all
 * (missed by chance about once in three million).
 */
async function runUntilReached(label: string, openStore: Parameters<typeof runModel>[0], runs: number) {
  const before = structuredClone(totals);
  const reached = () => totals.heldBackfillLooks > before.heldBackfillLooks && totals.yieldSaves > before.yieldSaves;
  let batches = 0;
  do {
    await runModel(openStore, runs);
    batches++;
  } while (!reached() && batches < MAX_BATCHES);
  console.log(`${label}: ${batches * runs} runs`, JSON.stringify(totals));
  expect(totals.heldBackfillLooks).toBeGreaterThan(before.heldBackfillLooks);
  expect(totals.yieldSaves).toBeGreaterThan(before.yieldSaves);
}

describe('holds on backfill under scarce places, with the yield save failing', () => {
  it('lowdb (no polling)', { timeout: 600_000 }, async () => {
    await runUntilReached(
      'lowdb',
      async () => {
        const store = new LowdbStore({ dataDir: tempDataDir() });
        await store.open();
        return { store, close: () => store.close() };
      },
      Number(process.env.HOLDS_MODEL_RUNS ?? 25),
    );
  });

  it.skipIf(!postgresAvailable())('postgres', { timeout: 600_000 }, async () => {
    await runUntilReached(
      'postgres',
      async () => {
        const opened = await freshStore();
        return { store: opened.store, close: () => opened.close(), pollMs: 50 };
      },
      Number(process.env.HOLDS_MODEL_PG_RUNS ?? 12),
    );
  });
});
