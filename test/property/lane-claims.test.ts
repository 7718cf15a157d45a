// The claim order of due work, model-checked on both backends: fast-check
// generates rounds of new live and backfill orders across shops, and a worker
// with a few slots claiming (claimInLanes, as the worker does) and finishing
// orders after random times. A small model knows what is due in each lane and
// shop; after every claim the store's answer must show:
// - live first: backfill never takes more than its reserve while live work
//   is left unclaimed;
// - no starvation: backfill below its share gets a slot whenever it has work
//   (with fewer slots than one share, one order in every five);
// - backfill takes every free slot when live has nothing due;
// - shops take turns: within a lane, no shop gets two more than another shop
//   that still has due work.
// LANE_MODEL_RUNS (lowdb) and LANE_MODEL_PG_RUNS run more.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backfillReserve, type Lane } from '../../src/core/lanes.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { LaneClaims } from '../../src/core/worker/lane-claims.ts';
import { foldEvent } from '../helpers/budget-worker.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

const SHOPS = ['shop-a', 'shop-b', 'shop-c'];
const MIN_SHARE = 0.2;

interface Round {
  arrivals: Array<{ lane: Lane; shop: number }>;
  /** How many rounds each order claimed now stays under way. */
  busyFor: number[];
}

const roundArb: fc.Arbitrary<Round> = fc.record({
  arrivals: fc.array(
    fc.record({ lane: fc.constantFrom<Lane>('live', 'backfill'), shop: fc.nat({ max: SHOPS.length - 1 }) }),
    { maxLength: 6 },
  ),
  busyFor: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 5, maxLength: 5 }),
});
/** Five slots (one is backfill's share), or two (fewer than one share: one order in five is backfill's). */
const concurrencyArb = fc.constantFrom(5, 2);

let sequence = 0;

async function fold(store: LedgerStore, lane: Lane, shop: string): Promise<string> {
  const event = orderEvent({ orderId: String(900_000 + ++sequence), shop, facts: ['paid'] });
  await foldEvent(store, `lane-model-${sequence}`, event, lane);
  return `${event.platform}:${shop}:${event.orderId}`;
}

/** Runs the rounds against a store and checks every claim against the model; returns the lanes' claim totals. */
async function check(store: LedgerStore, rounds: Round[], CONCURRENCY: number): Promise<void> {
  const claims = new LaneClaims(store, { concurrency: CONCURRENCY, minShare: MIN_SHARE, leaseMs: 60_000 });
  let liveSinceBackfill = 0;
  // The model: due orders by key, with lane and shop; and what is under way, with the rounds left.
  const due = new Map<string, { lane: Lane; shop: string }>();
  const underWay = new Map<string, { record: OrderRecord; left: number; lane: Lane }>();
  for (const round of rounds) {
    for (const arrival of round.arrivals) {
      const shop = SHOPS[arrival.shop]!;
      due.set(await fold(store, arrival.lane, shop), { lane: arrival.lane, shop });
    }
    const free = CONCURRENCY - underWay.size;
    if (free > 0) {
      const backfillInFlight = [...underWay.values()].filter((each) => each.lane === 'backfill').length;
      const before = {
        live: [...due.values()].filter((each) => each.lane === 'live').length,
        backfill: [...due.values()].filter((each) => each.lane === 'backfill').length,
      };
      const claimed = await claims.claim({ owner: 'worker', limit: free, backfillInFlight });
      const byLane = { live: 0, backfill: 0 };
      const byShop = new Map<string, number>();
      for (const record of claimed) {
        const known = due.get(record.key);
        expect(known, `claimed ${record.key}, which the model has not due`).toBeDefined();
        byLane[known!.lane]++;
        byShop.set(`${known!.lane}:${known!.shop}`, (byShop.get(`${known!.lane}:${known!.shop}`) ?? 0) + 1);
        due.delete(record.key);
        underWay.set(record.key, { record, left: round.busyFor[underWay.size % 5] ?? 1, lane: known!.lane });
      }
      const reserve = backfillReserve({
        free,
        concurrency: CONCURRENCY,
        backfillInFlight,
        minShare: MIN_SHARE,
        liveSinceBackfill,
      });
      liveSinceBackfill = byLane.backfill > 0 ? 0 : liveSinceBackfill + byLane.live;
      // Every slot filled while anything was due.
      expect(claimed.length).toBe(Math.min(free, before.live + before.backfill));
      // Live first: backfill beyond its reserve only once live is exhausted.
      if (byLane.backfill > Math.min(reserve, before.backfill)) expect(byLane.live).toBe(before.live);
      // No starvation: backfill below its share gets what it lacks when it has work.
      expect(byLane.backfill).toBeGreaterThanOrEqual(Math.min(reserve, before.backfill));
      // Shops take turns: within a lane, a shop still holding due work got no fewer than one less than any other.
      for (const lane of ['live', 'backfill'] as const) {
        const counts = SHOPS.map((shop) => byShop.get(`${lane}:${shop}`) ?? 0);
        const stillDue = SHOPS.map((shop) =>
          [...due.values()].some((each) => each.lane === lane && each.shop === shop),
        );
        for (let a = 0; a < SHOPS.length; a++) {
          if (!stillDue[a]) continue;
          for (let b = 0; b < SHOPS.length; b++)
            expect(
              counts[b]! - counts[a]!,
              `${lane}: ${SHOPS[b]} got ${counts[b]}, ${SHOPS[a]} ${counts[a]} with work left`,
            ).toBeLessThanOrEqual(1);
        }
      }
    }
    // Orders finish: done, idle until something new comes.
    for (const [key, each] of [...underWay]) {
      if (--each.left > 0) continue;
      underWay.delete(key);
      await store.saveProgress({ ...each.record, dueAt: null }, { owner: 'worker', release: true, leaseMs: 60_000 });
    }
  }
  // Drain: everything still due is claimed eventually, live and backfill alike.
  for (const each of underWay.values())
    await store.saveProgress({ ...each.record, dueAt: null }, { owner: 'worker', release: true, leaseMs: 60_000 });
  for (let i = 0; i < 100 && due.size > 0; i++) {
    const claimed = await claims.claim({ owner: 'worker', limit: CONCURRENCY, backfillInFlight: 0 });
    for (const record of claimed) {
      due.delete(record.key);
      await store.saveProgress({ ...record, dueAt: null }, { owner: 'worker', release: true, leaseMs: 60_000 });
    }
  }
  expect(due.size).toBe(0);
  // And the store agrees: nothing left due.
  const left = await store.laneCounts();
  expect([left.live.waiting, left.backfill.waiting]).toEqual([0, 0]);
}

describe('the claim order of due work', () => {
  it(
    'keeps live first, backfill moving and shops taking turns, on lowdb',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(roundArb, { minLength: 1, maxLength: 25 }),
          concurrencyArb,
          async (rounds, concurrency) => {
            const store = new LowdbStore({ dataDir: tempDataDir() });
            await store.open();
            try {
              await check(store, rounds, concurrency);
            } finally {
              await store.close();
            }
          },
        ),
        { numRuns: Number(process.env.LANE_MODEL_RUNS ?? 60) },
      );
    },
    30_000 + Number(process.env.LANE_MODEL_RUNS ?? 60) * 500,
  );

  it.skipIf(!postgresAvailable())(
    'keeps live first, backfill moving and shops taking turns, on PostgreSQL',
    async () => {
      const opened = await freshStore();
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(roundArb, { minLength: 1, maxLength: 15 }),
            concurrencyArb,
            async (rounds, concurrency) => {
              // One database for every run: whatever a failed run left due is put to rest first.
              for (
                let claimed = await opened.store.claimDue('cleanup', 100, 60_000);
                claimed.length > 0;
                claimed = await opened.store.claimDue('cleanup', 100, 60_000)
              ) {
                for (const record of claimed)
                  await opened.store.saveProgress(
                    { ...record, dueAt: null },
                    { owner: 'cleanup', release: true, leaseMs: 60_000 },
                  );
              }
              await check(opened.store, rounds, concurrency);
            },
          ),
          { numRuns: Number(process.env.LANE_MODEL_PG_RUNS ?? 15) },
        );
      } finally {
        await opened.close();
      }
    },
    60_000 + Number(process.env.LANE_MODEL_PG_RUNS ?? 15) * 2_000,
  );
});
