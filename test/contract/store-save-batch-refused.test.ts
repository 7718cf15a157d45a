// Found in a review of 3ca6860 (the worker's saves batched into one UPDATE): a save that
// PostgreSQL cannot take (here a progress whose lastError holds a NUL, as a
// loyalty service's error text can: jsonb refuses \u0000) must fail alone.
// Batched, its error is handed to every other save of its batch: orders
// whose own saves are fine are told their save failed, and the worker
// abandons them (a result never saved after a call that was made). The
// worker's lp_orderid registrations are batched the same way, and must fail
// alone too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { foldEvents, freshStore } from '../helpers/postgres-store.ts';

describe.skipIf(!postgresAvailable())('PostgreSQL: a batched save PostgreSQL refuses', () => {
  let opened: Awaited<ReturnType<typeof freshStore>>;
  beforeAll(async () => {
    opened = await freshStore({ poolSize: 6 });
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('fails only the save that cannot be written, not the others of its batch', async () => {
    const { store } = opened;
    const events = Array.from({ length: 6 }, (_, i) =>
      orderEvent({ shop: 'poison', orderId: String(700_000 + i), facts: ['placed', 'paid'] }),
    );
    const folded = await foldEvents(store, events);
    const claimed = new Map((await store.claimDue('worker', 20, 60_000)).map((record) => [record.key, record]));
    const records = folded.map((record) => claimed.get(record.key)!);
    expect(records.every(Boolean)).toBe(true);

    // Two saves take both batches in flight; the four made meanwhile go together in the next batch.
    const poisoned = 3;
    const saves = records.map((record, i) => {
      const mine: OrderRecord = structuredClone(record);
      mine.work.attempts = 7;
      // What a loyalty service said, kept as the order's last error (failures.ts: lastError = message).
      if (i === poisoned) mine.work.lastError = 'earn: the loyalty service answered 500 (bad\u0000byte)';
      return store.saveProgress(mine, { owner: 'worker', release: true, leaseMs: 60_000 }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error: (error as Error).message }),
      );
    });
    const answers = await Promise.all(saves);

    // The poisoned save fails: PostgreSQL cannot store it (as it failed alone before 3ca6860).
    expect('error' in answers[poisoned]!).toBe(true);
    // Every other save, each fine alone, must be saved.
    const others = answers.map((answer, i) => ({ i, answer })).filter(({ i }) => i !== poisoned);
    expect(others.filter(({ answer }) => !('result' in answer))).toEqual([]);
    for (const { answer } of others) expect(answer).toEqual({ result: 'saved' });
  });

  it('fails only the lp_orderid registration that cannot be written, not the others of its batch', async () => {
    const { store } = opened;
    // Two registrations take both batches in flight; the four made meanwhile go together in the next batch.
    const poisoned = 3;
    const claims = Array.from({ length: 6 }, (_, i) => {
      const lpOrderId = i === poisoned ? 'shopify-order:bad\u0000byte' : `shopify-order:${710_000 + i}`;
      return store.claimLpOrderId(lpOrderId, `shopify:poison:${710_000 + i}`).then(
        (owner) => ({ owner }),
        (error: unknown) => ({ error: (error as Error).message }),
      );
    });
    const answers = await Promise.all(claims);

    expect('error' in answers[poisoned]!).toBe(true);
    answers.forEach((answer, i) => {
      if (i !== poisoned) expect(answer, `registration ${i}`).toEqual({ owner: `shopify:poison:${710_000 + i}` });
    });
    // Each registered for good: another order asking for the same lp_orderid is told whose it is.
    expect(await store.claimLpOrderId('shopify-order:710004', 'shopify:poison:999')).toBe('shopify:poison:710004');
  });
});
