// A spent budget's return wakes the worker, though the read of when work is
// due straddles it. That read asks the store for the next due work of the
// shops claims do not pass over, and adds when what is passed over changes.
// Taken at two instants, a budget returning between them was passed over in
// the store's answer and already forgotten in the worker's: the answer held
// neither the account's due orders nor its return, and the loop slept with
// no timer. lowdb does not poll, so nothing woke it (once in about 200 runs
// of the holds model under load, and lanes-engine's 30 s hang); here the
// store's answer is held until the budget has returned, as a loaded machine
// can hold it, so the straddle happens every time. On PostgreSQL the poll
// hid it. A real worker and store, on both backends (helpers/budget-worker.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import type { RateBudget } from '../../src/loyalty/rate-limiter.ts';
import { BUDGET_BACKENDS, budgetWorker, fakeAccount, foldOrder } from '../helpers/budget-worker.ts';
import { eventually } from '../helpers/engine.ts';
import { storeWith } from '../helpers/store-with.ts';

/** Resolves once the clock has passed `at` (a timer may fire a little before Date.now() reaches its time). */
async function clockPast(at: number): Promise<void> {
  while (Date.now() <= at) await new Promise((resolve) => setTimeout(resolve, Math.max(1, at + 1 - Date.now())));
}

describe.each(BUDGET_BACKENDS)('a spent budget’s return (%s)', (_backend, available, openStore) => {
  /** Undone after each test, last first: workers stopped before their stores close. */
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.skipIf(!available)(
    'wakes the worker, though the read of when work is due answers only after the budget returned',
    async () => {
      const { store, close, pollMs } = await openStore();
      cleanups.push(close);
      // Spent, returning 300 ms after each ask, until the test opens it (then a place for every ask).
      let open = false;
      let returnsAt = 0;
      const reserveCall = (): RateBudget => {
        if (open) return { spent: false, place: { release: () => undefined } };
        returnsAt = Date.now() + 300;
        return { spent: true, until: returnsAt };
      };
      let straddled = false;
      const slowRead = storeWith(store, {
        // The first read that passes the account's shop over while its order waits in the ledger (let go until the
        // budget returns) answers once the budget has returned.
        nextDueAt: async (skip) => {
          const answer = await store.nextDueAt(skip);
          if (!straddled && skip?.all?.size && (await store.nextDueAt()) !== undefined) {
            straddled = true;
            open = true;
            await clockPast(returnsAt);
          }
          return answer;
        },
      });
      const earned: string[] = [];
      const account = fakeAccount('A', earned, { reserveCall });
      const { worker, stop } = budgetWorker(slowRead as LedgerStore, [account], { 'shop-a': 'A' }, { pollMs });
      cleanups.push(stop);
      const order = await foldOrder(store, 'backfill', 'shop-a');
      worker.start();
      await eventually(() => expect(straddled).toBe(true));
      // Before: never on lowdb, the worker idle with the order due and no timer.
      await eventually(() => expect(earned).toEqual([`A:${order}`]));
    },
  );
});
