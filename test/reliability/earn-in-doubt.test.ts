// An earn whose answer was lost stays in doubt until the service answers it:
// a later try refused before it was served (a 429) says nothing of the first
// one, which may have taken effect. So when the order is cancelled meanwhile,
// the earn is sent again (an upsert) and then cancelled, and the customer
// keeps no points for it. Until this was fixed, the 429 undid the intent: the
// order read "nothing earned", its cancel was skipped, and the points the
// first try gave stayed with the customer. Whether the lost answer was the
// worker's try or one of the client's own retries of the same call. And an
// intent saved as new facts were folded in is planned again from before it,
// nothing having gone out under it: a refusal of the next try undoes it.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { clientFor, eventually, sandboxWithEngines, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { storeWith } from '../helpers/store-with.ts';

const harness = sandboxWithEngines();
const earningsOf = (orderId: string) =>
  harness.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === orderId);
const orderOf = (engine: Engine, orderId: string) => engine.store.getOrder(`testshop:shop-1:${orderId}`);

/** The first earn takes effect and its answer never comes; the try after it is refused, unserved, and told to wait. */
async function earnInDoubtThenRefused(engine: Engine, orderId: string) {
  harness.sandbox.faults.configure({ hangRate: 1, hangMs: 2_000, failurePhase: 'after', onlyPath: 'earn' });
  await engine.accept(`paid-${orderId}`, [orderEvent({ orderId, facts: ['placed', 'paid'] })]);
  await eventually(() => expect(earningsOf(orderId)).toHaveLength(1));
  harness.sandbox.faults.configure({ forced: { status: 429, count: 1, retryAfterSeconds: 5 } });
  await eventually(() => expect(harness.sandbox.faults.injected).toBeGreaterThanOrEqual(2));
  await eventually(async () => expect((await orderOf(engine, orderId))?.calls.at(-1)?.httpStatus).toBe(429));
}

describe('an earn in doubt', () => {
  it.each([
    ['the worker’s next try', 0],
    ['the client’s own retry of the same call', 1],
  ])(
    'is not forgotten when %s is refused before it was served: the order’s cancel still takes its points back',
    async (_case, maxRetries) => {
      const orderId = `71${maxRetries}`;
      const engine = await harness.start({
        client: clientFor(harness.sandbox, { timeoutMs: 300, maxRetries, minRetryDelayMs: 50, maxRetryDelayMs: 100 }),
      });
      await earnInDoubtThenRefused(engine, orderId);
      expect((await orderOf(engine, orderId))?.upstream.points).toBe('earning');

      // The order is cancelled while the earn waits.
      await engine.accept(`cancelled-${orderId}`, [orderEvent({ orderId, facts: ['placed', 'paid', 'cancelled'] })]);
      await eventually(
        () => expect(earningsOf(orderId)).toEqual([expect.objectContaining({ status: 'cancelled' })]),
        15_000,
      );
      // The ledger records the cancel once the service's answer is in: a moment after the service shows it.
      await eventually(async () => expect((await orderOf(engine, orderId))?.upstream.points).toBe('cancelled'));
    },
    30_000,
  );

  it('is not made by an intent saved as new facts came: its refusal undoes it, and fixes no activity for the next intent', async () => {
    const orderId = '720';
    let engine: Engine | undefined;
    let refolded = false;
    const store = new LowdbStore({ dataDir: tempDataDir() });
    // The order's update is folded in while the worker saves the earn's intent: the save says 'refolded'.
    const folding = foldingIntoSave(
      store,
      () => engine!,
      (record) => !refolded && (refolded = record.upstream.points === 'earning'),
      `updated-${orderId}`,
      () => orderEvent({ orderId, facts: ['placed', 'paid'], orderName: '#720 (edited)' }),
    );
    // An activity the service does not have: every earn is refused outright.
    engine = await harness.start({ store: folding, earnActivityId: '999' });
    await engine.accept(`paid-${orderId}`, [orderEvent({ orderId, facts: ['placed', 'paid'] })]);
    await engine.drain();
    expect(refolded).toBe(true);
    const [letter] = await engine.store.listDeadLetters();
    expect(letter?.reason).toContain('unknown activity 999');
    const order = await orderOf(engine, orderId);
    expect(order?.snapshot.orderName).toBe('#720 (edited)');
    // One earn went out and was refused: nothing is in doubt, and no activity is fixed for the next intent.
    expect(order?.calls.filter((call) => call.operation === 'earn').map((call) => call.httpStatus)).toEqual([402]);
    expect(harness.sandbox.store.snapshot().earnings.filter((each) => each.orderId === orderId)).toEqual([]);
    expect(order?.upstream.points).toBe('none');
    expect(order?.upstream.earnActivityId).toBeUndefined();
  });
});

describe('an earn’s activity kept after a try that may have been served', () => {
  it('stays through an intent saved as new facts came, though the new total falls in another band', async () => {
    const orderId = '730';
    let engine: Engine | undefined;
    let intentSaves = 0;
    const store = new LowdbStore({ dataDir: tempDataDir() });
    // The second intent's save meets an edit of the order that moves its total into the band of activity 9.
    const folding = foldingIntoSave(
      store,
      () => engine!,
      (record) => record.upstream.points === 'earning' && ++intentSaves === 2,
      `edited-${orderId}`,
      () => orderEvent({ orderId, facts: ['placed', 'paid'], total: { amount: '250.00', currency: 'EUR' } }),
    );
    engine = await harness.start({
      store: folding,
      policy: {
        earnBands: [
          { from: '0', activityId: '1' },
          { from: '200', activityId: '9' },
        ],
      },
    });
    // The first earn, under activity 1, is answered with a redirect: it may have been served.
    harness.sandbox.faults.configure({ forced: { status: 302, count: 1 } });
    await engine.accept(`paid-${orderId}`, [orderEvent({ orderId, facts: ['placed', 'paid'] })]);
    await engine.drain();
    const [letter] = await engine.store.listDeadLetters();
    if (letter) await engine.retryDeadLetter(letter);
    await engine.drain();
    expect(intentSaves).toBeGreaterThanOrEqual(2);
    // Sent again under activity 1 (an upsert of what the redirected try may have made), never under 9 beside it.
    expect(earningsOf(orderId)).toEqual([expect.objectContaining({ activityId: '1' })]);
    expect((await orderOf(engine, orderId))?.upstream.earnActivityId).toBe('1');
  });
});

/**
 * The store, where a save `when` picks waits for an event of its order, made then (its time after the events before
 * it), to be accepted and folded in: the save says 'refolded'.
 */
function foldingIntoSave(
  store: LowdbStore,
  engine: () => Engine,
  when: (record: OrderRecord) => boolean,
  key: string,
  event: () => OrderEvent,
): LowdbStore {
  return storeWith(store, {
    saveProgress: async (record, options) => {
      if (when(record)) {
        const foldVersion = record.foldVersion;
        await engine().accept(key, [event()]);
        await eventually(async () =>
          expect((await store.getOrder(record.key))?.foldVersion).toBeGreaterThan(foldVersion),
        );
      }
      return store.saveProgress(record, options);
    },
  });
}
