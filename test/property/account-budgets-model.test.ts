// The worker with several accounts, each with its own rate budget (issue 33),
// model-checked with fast-check's commands on both backends. Orders arrive in
// the shops of three accounts, in either lane; budgets are spent and come
// back at random; the worker runs throughout with few slots. After each
// settling the real system must show:
// - no call without a place in its account's budget (reserveCall said so);
// - every order of an account with budget earned, however large the backlog
//   of an account without: a spent budget holds no slot and blocks no one;
// - no slot held once only spent accounts have work;
// and at the end, with every budget back, each order earned exactly once, on
// its own account. ACCOUNT_MODEL_RUNS (lowdb) and ACCOUNT_MODEL_PG_RUNS run more.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountRuntime, Accounts } from '../../src/core/accounts.ts';
import type { Lane } from '../../src/core/lanes.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { Worker } from '../../src/core/worker/worker.ts';
import { createLogger } from '../../src/logger.ts';
import type { CallOptions, EarnInput } from '../../src/loyalty/client.ts';
import type { Place } from '../../src/loyalty/places.ts';
import { foldEvent, fakeRuntime } from '../helpers/budget-worker.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

const ACCOUNTS = ['A', 'B', 'C'] as const;
type AccountId = (typeof ACCOUNTS)[number];
const SHOPS: Record<string, AccountId> = {
  'a1.example': 'A',
  'a2.example': 'A',
  'b1.example': 'B',
  'c1.example': 'C',
};
const logger = createLogger({ level: 'silent' });

/** The system under test: a worker over a real store, with fake accounts whose budgets the commands set. */
interface Real {
  store: LedgerStore;
  worker: Worker;
  open: Record<AccountId, boolean>;
  /** Places each account's budget gave, and whether each was used by a call or given back. */
  places: Map<Place, { account: AccountId; over: boolean }>;
  /** How long a spent budget takes to return (each run its own: a short one hides no wake-up). */
  returnMs: number;
  /** Earn calls: which account got them, for which order. */
  earns: Array<{ account: AccountId; orderId: string }>;
  callsWithoutPlace: string[];
  sequence: { next: number };
}

interface Model {
  /** Every order accepted, with its account. */
  orders: Map<string, AccountId>;
  open: Record<AccountId, boolean>;
}

function fakeAccount(id: AccountId, real: Omit<Real, 'worker' | 'store'>): AccountRuntime {
  return fakeRuntime(
    id,
    async (input: EarnInput, options?: CallOptions) => {
      // Each call comes with a place its own account gave, not used or given back before.
      const place = options?.place ? real.places.get(options.place) : undefined;
      if (!place || place.account !== id || place.over) real.callsWithoutPlace.push(`${id}:${input.orderId}`);
      if (place) place.over = true;
      await new Promise((resolve) => setImmediate(resolve));
      real.earns.push({ account: id, orderId: input.orderId ?? '' });
    },
    () => {
      if (!real.open[id]) return { spent: true, until: Date.now() + real.returnMs };
      const given = { account: id, over: false };
      const place: Place = { release: () => void (given.over = true) };
      real.places.set(place, given);
      return { spent: false, place };
    },
  );
}

async function fold(real: Real, shop: string, lane: Lane): Promise<string> {
  const orderId = String(8_800_000 + ++real.sequence.next);
  await foldEvent(
    real.store,
    `budget-model-${orderId}`,
    orderEvent({ orderId, shop, facts: ['placed', 'paid'] }),
    lane,
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

class SetBudget implements fc.AsyncCommand<Model, Real> {
  readonly account: AccountId;
  readonly open: boolean;
  constructor(account: AccountId, open: boolean) {
    this.account = account;
    this.open = open;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    model.open[this.account] = this.open;
    real.open[this.account] = this.open;
  }
  toString = () => `budget(${this.account}, ${this.open ? 'back' : 'spent'})`;
}

/** Waits for the worker to do what it can, and checks what it did. */
class Settle implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await settle(model, real);
  }
  toString = () => 'settle';
}

async function settle(model: Model, real: Real): Promise<void> {
  const withBudget = [...model.orders].filter(([, account]) => model.open[account]).map(([orderId]) => orderId);
  // Every order of an account with budget is earned, whatever waits on the accounts without.
  await eventually(() => expect(withBudget.filter((id) => !earnedIds(real).includes(id))).toEqual([]), 4_000);
  // Nothing holds a slot for an account whose budget is spent.
  await eventually(() => expect(real.worker.stats.inFlight).toBe(0), 2_000);
  expect(real.callsWithoutPlace).toEqual([]);
  // Each order earned once, on its own account.
  for (const { account, orderId } of real.earns) expect(model.orders.get(orderId)).toBe(account);
  expect(new Set(earnedIds(real)).size).toBe(real.earns.length);
}

const commands = [
  fc
    .record({
      shop: fc.constantFrom(...Object.keys(SHOPS)),
      lane: fc.constantFrom<Lane>('live', 'backfill'),
      count: fc.integer({ min: 1, max: 8 }),
    })
    .map(({ shop, lane, count }) => new Arrive(shop, lane, count)),
  fc
    .record({ account: fc.constantFrom(...ACCOUNTS), open: fc.boolean() })
    .map(({ account, open }) => new SetBudget(account, open)),
  fc.constant(new Settle()),
];

async function runModel(
  openStore: () => Promise<{ store: LedgerStore; close(): Promise<void>; pollMs?: number }>,
  runs: number,
) {
  await fc.assert(
    fc.asyncProperty(
      fc.commands(commands, { maxCommands: 14 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 30, max: 400 }),
      async (cmds, concurrency, returnMs) => {
        const { store, close, pollMs } = await openStore();
        const shared = {
          open: { A: true, B: true, C: true },
          places: new Map(),
          returnMs,
          earns: [],
          callsWithoutPlace: [],
          sequence: { next: 0 },
        } as Omit<Real, 'worker' | 'store'>;
        const runtimes = Object.fromEntries(ACCOUNTS.map((id) => [id, fakeAccount(id, shared)])) as Record<
          AccountId,
          AccountRuntime
        >;
        const accounts: Accounts = {
          forShop: async (_platform, shop) => SHOPS[shop],
          runtime: async (id) => runtimes[id as AccountId],
          all: async () => Object.values(runtimes),
          stop: () => Object.values(runtimes).forEach((runtime) => runtime.authPause.stop()),
        };
        // lowdb without polling, as the bridge runs it: only its own timers and wakes find work.
        const worker = new Worker({ store, accounts, logger, concurrency, pollMs, retryMinDelayMs: 20 });
        const real: Real = { ...shared, store, worker };
        const model: Model = { orders: new Map(), open: { A: true, B: true, C: true } };
        worker.start();
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Every budget back: everything earns, once, on its own account.
          for (const account of ACCOUNTS) await new SetBudget(account, true).run(model, real);
          await settle(model, real);
          expect(real.earns).toHaveLength(model.orders.size);
        } finally {
          await worker.stop();
          accounts.stop();
          await close();
        }
      },
    ),
    { numRuns: runs },
  );
}

describe('several accounts, each with its own budget, under one worker', () => {
  it('lowdb', { timeout: 300_000 }, async () => {
    await runModel(
      async () => {
        const store = new LowdbStore({ dataDir: tempDataDir() });
        await store.open();
        return { store, close: () => store.close() };
      },
      Number(process.env.ACCOUNT_MODEL_RUNS ?? 15),
    );
  });

  it.skipIf(!postgresAvailable())('postgres', { timeout: 300_000 }, async () => {
    await runModel(
      async () => {
        const opened = await freshStore();
        return { store: opened.store, close: () => opened.close(), pollMs: 50 };
      },
      Number(process.env.ACCOUNT_MODEL_PG_RUNS ?? 8),
    );
  });
});
