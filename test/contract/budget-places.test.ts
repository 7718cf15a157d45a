// Issue 33, live first within an account: under a spent budget the scarce
// thing is the account's places, not the worker's slots. A live order waiting
// for a place must get the place that frees, ahead of the account's backfill,
// whatever is slow meanwhile (the save letting it go, other accounts' calls
// holding every slot), and backfill must still get its share of places.
// Before, a claim made as a place freed could find the live order still
// leased and fill the slot with backfill, which took the place (likely the
// lanes test that once saw 20 backfill earns before the last live one); and
// under a budget giving places one at a time backfill got none at all.
//
// A real worker and store, on both backends; fake accounts whose budgets the
// test opens place by place (helpers/budget-worker.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { WAIT_GRACE_MS } from '../../src/core/worker/account-budgets.ts';
import {
  BUDGET_BACKENDS,
  budgetWorker,
  fakeAccount,
  foldOrder,
  holdingSavesOf,
  lanesOf,
  reserveFrom,
  type Budget,
} from '../helpers/budget-worker.ts';
import { eventually } from '../helpers/engine.ts';
import { storeWith } from '../helpers/store-with.ts';

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
const backfillIn = (lanes: string) => lanes.split('').filter((lane) => lane === 'b').length;

describe.each(BUDGET_BACKENDS)('the places of a spent budget (%s)', (_backend, available, openStore) => {
  /** Undone after each test, last first: workers stopped before their stores close. */
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A worker over a fresh store (seen through `wrap`, if given) for these accounts: A on shop-a, A2 on shop-a2, B on shop-b. */
  async function start(
    accounts: AccountRuntime[],
    { concurrency = 5, wrap }: { concurrency?: number; wrap?: (store: LedgerStore) => LedgerStore } = {},
  ) {
    const { store, close, pollMs } = await openStore();
    cleanups.push(close);
    const seen = wrap ? wrap(store) : store;
    const { worker, stop } = budgetWorker(
      seen,
      accounts,
      { 'shop-a': 'A', 'shop-a2': 'A2', 'shop-b': 'B' },
      { concurrency, pollMs },
    );
    cleanups.push(stop);
    return { store, worker };
  }
  /** The first earn was the live order's. */
  const firstEarnIs = async (earned: string[], live: string) => {
    await eventually(() => expect(earned).toHaveLength(1));
    expect(earned).toEqual([`A:${live}`]);
  };

  /**
   * A worker for these accounts (two slots) whose save letting the live order go is held until `placeFreed`; the
   * live order is set by `liveIs`. Their budget is spent (no places) until `placeFreed` frees one: while the live
   * order waits for it, whatever the machine's pace (before, it freed 400 ms after the test began, and a store slow
   * to open, or a first test slow to start, let the backlog have it before the live order came).
   */
  async function startHoldingLiveSave(accounts: AccountRuntime[]) {
    let live: string | undefined;
    let holding: ReturnType<typeof holdingSavesOf> | undefined;
    const started = await start(accounts, {
      concurrency: 2,
      wrap: (store) => (holding = holdingSavesOf(store, () => live)).store,
    });
    cleanups.push(() => holding?.release());
    return {
      ...started,
      liveIs: (orderId: string) => (live = orderId),
      /**
       * The live order, tried, finds the budget spent and is let go; the save that lets it go is held while the
       * place frees, past the time after which a wait is checked, and the backlog is due. Then the place must go to
       * the live order, not to the backlog; then, with places for all, every order earns, once.
       */
      placeFreed: async (budget: Budget, earned: string[], live: string, backlog: string[]) => {
        await eventually(() => expect(holding?.heldSaves()).toBe(1));
        budget.places = 1;
        await sleepUntil(Date.now() + WAIT_GRACE_MS + 300);
        holding?.release();
        await firstEarnIs(earned, live);
        budget.places = 100;
        await eventually(() => expect(earned).toHaveLength(backlog.length + 1));
        expect([...earned].sort()).toEqual([`A:${live}`, ...backlog].sort());
      },
    };
  }

  it.skipIf(!available)(
    'go to a live order waiting for one, though its save is slower than a wait is kept, and backfill is due',
    async () => {
      // Spent now; one place frees once the live order waits for it.
      const budget: Budget = { places: 0, openAt: 0 };
      const earned: string[] = [];
      const { store, worker, liveIs, placeFreed } = await startHoldingLiveSave([
        fakeAccount('A', earned, { reserveCall: reserveFrom(budget) }),
      ]);
      const backlog: string[] = [];
      for (let i = 0; i < 6; i++) backlog.push(`A:${await foldOrder(store, 'backfill', 'shop-a')}`);
      const live = liveIs(await foldOrder(store, 'live', 'shop-a'));
      worker.start();
      await placeFreed(budget, earned, live, backlog);
    },
  );

  it.skipIf(!available)(
    'shared by two accounts (one service, key and limit) go to one’s waiting live order ahead of the other’s backfill',
    async () => {
      // One budget: spent now, one place frees once A's live order waits for it. A2, on the same budget, has a backlog.
      const budget: Budget = { places: 0, openAt: 0 };
      const earned: string[] = [];
      const shared = { reserveCall: reserveFrom(budget), budgetId: 'one-key' };
      const { store, worker, liveIs, placeFreed } = await startHoldingLiveSave([
        fakeAccount('A', earned, shared),
        fakeAccount('A2', earned, shared),
      ]);
      const backlog: string[] = [];
      for (let i = 0; i < 6; i++) backlog.push(`A2:${await foldOrder(store, 'backfill', 'shop-a2')}`);
      worker.start();
      // The backlog finds the budget spent; then A's live order comes.
      await eventually(() => expect([...worker.spentBudgets.keys()]).toEqual(['one-key']));
      const live = liveIs(await foldOrder(store, 'live', 'shop-a'));
      worker.wake();
      await placeFreed(budget, earned, live, backlog);
    },
  );

  it.skipIf(!available)(
    'go to a live order that came while the budget was spent, ahead of the backfill claimed with it',
    async () => {
      // Spent, each ask told it returns 800 ms later, until a place frees once the live order has come.
      const budget: Budget = { places: 0, openAt: 0, returnsInMs: 800 };
      const earned: string[] = [];
      const { store, worker } = await start([fakeAccount('A', earned, { reserveCall: reserveFrom(budget) })]);
      for (let i = 0; i < 3; i++) await foldOrder(store, 'backfill', 'shop-a');
      worker.start();
      // The backlog finds the budget spent and is let go until it returns; claims pass the account's shop over.
      await eventually(() => expect(worker.spentBudgets.has('A')).toBe(true));
      await eventually(() => expect(worker.stats.inFlight).toBe(0));
      // A live order comes meanwhile. One claim takes it with backfill's reserved slot when the budget returns.
      const live = await foldOrder(store, 'live', 'shop-a');
      budget.places = 1;
      await firstEarnIs(earned, live);
    },
  );

  it.skipIf(!available)(
    'go to a live order of a shop the worker has not seen yet (after a restart), ahead of its backlog',
    async () => {
      const earned: string[] = [];
      const budget: Budget = { places: 1, openAt: Date.now() };
      const { store, worker } = await start([fakeAccount('A', earned, { reserveCall: reserveFrom(budget) })]);
      for (let i = 0; i < 3; i++) await foldOrder(store, 'backfill', 'shop-a');
      const live = await foldOrder(store, 'live', 'shop-a');
      worker.start();
      await firstEarnIs(earned, live);
    },
  );

  it.skipIf(!available)(
    'go to a waiting live order though every slot was busy with another account’s slow calls for longer than a wait is kept',
    async () => {
      // Spent until a place frees once every slot is busy.
      const budget: Budget = { places: 0, openAt: 0 };
      const earned: string[] = [];
      const gates: Array<() => void> = [];
      let gated = true;
      const B = fakeAccount('B', earned, {
        gate: () => new Promise<void>((resolve) => (gated ? gates.push(resolve) : resolve())),
      });
      const { store, worker } = await start([fakeAccount('A', earned, { reserveCall: reserveFrom(budget) }), B]);
      cleanups.push(() => {
        gated = false;
        gates.splice(0).forEach((go) => go());
      });
      for (let i = 0; i < 3; i++) await foldOrder(store, 'backfill', 'shop-a');
      const live = await foldOrder(store, 'live', 'shop-a');
      worker.start();
      await eventually(() => expect(worker.spentBudgets.has('A')).toBe(true));
      await eventually(() => expect(worker.stats.inFlight).toBe(0));
      // Another account's five live orders take every slot; their calls are slow.
      for (let i = 0; i < 5; i++) await foldOrder(store, 'live', 'shop-b');
      worker.wake();
      await eventually(() => expect(gates).toHaveLength(5));
      // A's budget returns; its live order is due, but no slot frees until well after.
      budget.places = 1;
      await sleepUntil(Date.now() + WAIT_GRACE_MS + 500);
      gates.shift()?.();
      await eventually(() => expect(earned.filter((id) => id.startsWith('A:'))).toHaveLength(1));
      expect(earned.filter((id) => id.startsWith('A:'))).toEqual([`A:${live}`]);
    },
  );

  it.skipIf(!available)('go to backfill at its share while live orders keep waiting for them', async () => {
    // Places one at a time, every 30 ms; a backlog, and more live orders than places for a while.
    const budget: Budget = { places: 0, openAt: Date.now() };
    const earned: string[] = [];
    const { store, worker } = await start([fakeAccount('A', earned, { reserveCall: reserveFrom(budget) })]);
    const timer = setInterval(() => budget.places++, 30);
    cleanups.push(() => clearInterval(timer));
    for (let i = 0; i < 20; i++) await foldOrder(store, 'backfill', 'shop-a');
    const live: string[] = [];
    for (let i = 0; i < 20; i++) live.push(await foldOrder(store, 'live', 'shop-a'));
    worker.start();
    await eventually(() => expect(live.filter((id) => !earned.includes(`A:${id}`))).toEqual([]));
    // One place in five is backfill's while live orders wait: about four backfill earns beside the first fifteen
    // live ones. Counted no further: the last live orders are all under way at once (five at a time), none waits,
    // and backfill may take the places they leave, the more so the slower the machine (failed CI at 7 of 27 earns,
    // three of them among the last five).
    const lanes = lanesOf(earned, 'A', live);
    let seen = 0;
    const whileWaiting = lanes.slice(0, [...lanes].findIndex((lane) => lane === 'L' && ++seen === 15) + 1);
    expect(backfillIn(whileWaiting), lanes).toBeGreaterThanOrEqual(2);
    expect(backfillIn(whileWaiting), lanes).toBeLessThanOrEqual(5);
  });

  it.skipIf(!available)(
    'are not held from backfill by live orders with nothing to send, while the budget has places to spare',
    async () => {
      const earned: string[] = [];
      const A = fakeAccount('A', earned, { reserveCall: reserveFrom({ places: 1_000_000, openAt: 0 }) });
      // Each live order's save takes 50 ms (a slow commit): such turns overlap while live orders keep coming.
      const slowLiveSaves = (store: LedgerStore) =>
        storeWith(store, {
          saveProgress: async (record, options) => {
            if ((record.lane ?? 'live') === 'live') await new Promise((resolve) => setTimeout(resolve, 50));
            return store.saveProgress(record, options);
          },
        });
      const { store, worker } = await start([A], { wrap: slowLiveSaves });
      // A live order with nothing to send yet (placed, not paid) every 20 ms.
      let streaming = true;
      const stream = (async () => {
        while (streaming) {
          await foldOrder(store, 'live', 'shop-a', ['placed']);
          worker.wake();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      cleanups.push(async () => {
        streaming = false;
        await stream;
      });
      worker.start();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const backlog: string[] = [];
      for (let i = 0; i < 40; i++) backlog.push(await foldOrder(store, 'backfill', 'shop-a'));
      worker.wake();
      // The backlog drains beside them (before, each such turn held it back, and it got nothing).
      await eventually(() => expect(backlog.filter((id) => !earned.includes(`A:${id}`))).toEqual([]));
    },
  );

  it.skipIf(!available)(
    'are not asked for by an account without a budget to ask, whose backfill keeps its share of slots',
    async () => {
      const earned: string[] = [];
      // Its calls wait in their limiter (here: take 5 to 35 ms); the worker asks no budget.
      const A = fakeAccount('A', earned, {
        gate: () => new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 30))),
      });
      const { store, worker } = await start([A]);
      for (let i = 0; i < 20; i++) await foldOrder(store, 'backfill', 'shop-a');
      const live: string[] = [];
      for (let i = 0; i < 40; i++) live.push(await foldOrder(store, 'live', 'shop-a'));
      worker.start();
      await eventually(() => expect(live.filter((id) => !earned.includes(`A:${id}`))).toEqual([]));
      // Five slots, one backfill's: about one earn in five beside the forty live ones.
      const lanes = lanesOf(earned, 'A', live);
      expect(backfillIn(lanes), lanes).toBeGreaterThanOrEqual(5);
    },
  );
});
