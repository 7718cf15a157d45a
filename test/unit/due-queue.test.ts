// lowdb's due queue: an order is handed to one claim at most once while it is
// held, whatever stale entries its heaps still keep (an order re-queued at a
// time it was queued at before leaves two entries with the same time).
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { DueQueue } from '../../src/core/store/lowdb/due-queue.ts';

const at = (ms: number) => new Date(ms).toISOString();

it('hands out an order re-queued at the same time once, not twice', () => {
  const queue = new DueQueue();
  const key = 'testshop:shop-a:77';
  const retryAt = 10_000;
  queue.set(key, at(retryAt), 'live'); // a retry at R
  queue.set(key, at(1_000), 'live'); // a webhook: due now
  expect(queue.claim(1, 1_000)).toEqual([key]);
  queue.release(key);
  queue.set(key, at(retryAt), 'live'); // the worker saves it due at R again
  expect(queue.claim(5, retryAt)).toEqual([key]);
  expect(queue.claim(5, retryAt)).toEqual([]);
});

it('never hands out a held order, one order twice, or a skipped shop’s order, whatever the sets, lanes and claims', () => {
  const keys = ['p:a:1', 'p:a:2', 'p:b:3', 'p:c:4'];
  const step = fc.oneof(
    fc.record({
      kind: fc.constant('set' as const),
      key: fc.constantFrom(...keys),
      time: fc.integer({ min: 0, max: 5 }),
      lane: fc.constantFrom('live' as const, 'backfill' as const),
    }),
    fc.record({
      kind: fc.constant('claim' as const),
      limit: fc.integer({ min: 1, max: 5 }),
      now: fc.integer({ min: 0, max: 5 }),
      skip: fc.subarray(['p:a', 'p:b', 'p:c']),
    }),
    fc.record({
      kind: fc.constant('release' as const),
      key: fc.constantFrom(...keys),
      time: fc.integer({ min: 0, max: 5 }),
    }),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const queue = new DueQueue();
      const held = new Set<string>();
      for (const each of steps) {
        if (each.kind === 'set') queue.set(each.key, at(each.time), each.lane);
        else if (each.kind === 'release') {
          if (!held.delete(each.key)) continue;
          queue.release(each.key);
          queue.set(each.key, at(each.time), 'live');
        } else {
          const claimed = queue.claim(each.limit, each.now, undefined, new Set(each.skip));
          expect(new Set(claimed).size).toBe(claimed.length);
          for (const key of claimed) {
            // A shop passed over (its account's budget is spent) gives nothing.
            expect(each.skip).not.toContain(key.slice(0, key.lastIndexOf(':')));
            expect(held.has(key)).toBe(false);
            held.add(key);
          }
        }
      }
    }),
  );
});

it('passes over a skipped shop and keeps it in the turns: it is served once it is not skipped', () => {
  const queue = new DueQueue();
  for (const key of ['p:a:1', 'p:a:2', 'p:b:3', 'p:c:4']) queue.set(key, at(0), 'live');
  expect(queue.claim(5, 0, undefined, new Set(['p:a']))).toEqual(['p:b:3', 'p:c:4']);
  expect(queue.claim(5, 0, undefined, new Set(['p:a']))).toEqual([]);
  expect(queue.claim(5, 0)).toEqual(['p:a:1', 'p:a:2']);
});
