// Live orders first, against the sandbox over HTTP, on both backends: a new
// order's earn goes ahead of a resync's backlog, and the backlog still moves
// at its share while live orders keep every slot busy. Orders are compared
// by the order the service recorded their earns in, not by timings.
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../src/core/lanes.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { clientFor, eventually, openTestEngine, sandboxWithEngines } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

const harness = sandboxWithEngines();
let sequence = 5_000_000;

const backends: Array<[string, boolean, () => Promise<{ store?: LedgerStore; close(): Promise<void> }>]> = [
  ['lowdb', true, async () => ({ close: async () => undefined })],
  [
    'postgres',
    postgresAvailable(),
    async () => {
      const opened = await freshStore();
      return { store: opened.store, close: () => opened.close() };
    },
  ],
];

describe.each(backends)('on %s', (_name, available, backend) => {
  const earnedOrder = () => harness.sandbox.store.snapshot().earnings.map((earning) => earning.orderId ?? '');
  const open = async (perMinute: number, concurrency: number, backfillMinShare: number) => {
    const opened = await backend();
    // Stopped by the test itself, before its store closes.
    const engine = await openTestEngine(harness.sandbox, {
      client: clientFor(harness.sandbox, { rateLimitPerMinute: perMinute }),
      ...(opened.store ? { store: opened.store } : {}),
      worker: { concurrency, backfillMinShare },
    });
    return { engine, close: opened.close };
  };
  const accept = async (
    engine: Awaited<ReturnType<typeof open>>['engine'],
    lane: Lane,
    count: number,
    shop = 'shop-1',
  ) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const orderId = String(++sequence);
      ids.push(orderId);
      await engine.ingest.events(
        `lanes-${orderId}`,
        [orderEvent({ orderId, shop, facts: ['placed', 'paid'] })],
        [],
        lane,
      );
    }
    return ids;
  };

  it.skipIf(!available)('earns a new order ahead of a resync’s backlog', async () => {
    const { engine, close } = await open(1_200, 4, 0.25);
    try {
      const backlog = await accept(engine, 'backfill', 60);
      await engine.foldInbox();
      await engine.startWorker();
      await eventually(() =>
        expect(earnedOrder().filter((id) => backlog.includes(id)).length).toBeGreaterThanOrEqual(5),
      );
      const [live] = await accept(engine, 'live', 1);
      // Counted from when the live order is in the ledger, due: how long its folding takes is the machine's (on a
      // slow one, more of the backlog goes meanwhile), not the lanes'.
      let due = 0;
      await eventually(async () => {
        expect(await engine.store.getOrder(`testshop:shop-1:${live}`)).toBeDefined();
        due = earnedOrder().length;
      });
      await eventually(() => expect(earnedOrder()).toContain(live));
      // Only about what was under way when it became due went before it; the rest of the backlog after.
      expect(earnedOrder().indexOf(live!)).toBeLessThanOrEqual(due + 2 * 4);
      expect(earnedOrder().filter((id) => backlog.includes(id)).length).toBeLessThan(backlog.length - 30);
      await engine.drain();
      expect(earnedOrder().filter((id) => backlog.includes(id))).toHaveLength(60);
    } finally {
      await engine.stop();
      await close();
    }
  });

  it.skipIf(!available)('keeps the backlog moving at its share while live orders keep every slot busy', async () => {
    const { engine, close } = await open(1_200, 5, 0.2);
    try {
      const backlog = await accept(engine, 'backfill', 40);
      const live = await accept(engine, 'live', 40);
      await engine.foldInbox();
      await engine.startWorker();
      await eventually(() => expect(earnedOrder().filter((id) => live.includes(id))).toHaveLength(40), 15_000);
      // One slot in five is backfill's: about ten backfill earns beside forty live ones, none had live gone strictly first.
      const order = earnedOrder();
      const lastLive = Math.max(...live.map((id) => order.indexOf(id)));
      const backfillAlongside = order.slice(0, lastLive).filter((id) => backlog.includes(id)).length;
      // On failure, what went when (L live, b backfill), and the last live order's calls. Once on CI (Node 22,
      // PostgreSQL) 20 backfill earns went before the last live one, against 7 to 12 in other runs. The likeliest
      // cause found: a live order waiting for a place lost it to backfill tried as it freed (budget-places.test.ts),
      // which places now given live first prevent.
      const lastLiveOrder = await engine.store.getOrder(`testshop:shop-1:${order[lastLive]}`);
      const seen = `${order
        .filter((id) => live.includes(id) || backlog.includes(id))
        .map((id) => (live.includes(id) ? 'L' : 'b'))
        .join('')}; last live: ${JSON.stringify(lastLiveOrder?.calls)}`;
      expect(backfillAlongside, seen).toBeGreaterThanOrEqual(5);
      // Live still went first: most of them before most of the backlog.
      expect(backfillAlongside, seen).toBeLessThan(20);
      await engine.drain();
    } finally {
      await engine.stop();
      await close();
    }
  });

  it.skipIf(!available)('lets a small shop’s resync through while a large shop’s resync is under way', async () => {
    const { engine, close } = await open(1_200, 4, 0.2);
    try {
      const large = await accept(engine, 'backfill', 60, 'large-shop');
      await engine.foldInbox();
      await engine.startWorker();
      await eventually(() => expect(earnedOrder().filter((id) => large.includes(id)).length).toBeGreaterThanOrEqual(4));
      const small = await accept(engine, 'backfill', 5, 'small-shop');
      await eventually(() => expect(earnedOrder().filter((id) => small.includes(id))).toHaveLength(5), 15_000);
      // The small shop took turns with the large one instead of waiting for its 60.
      expect(earnedOrder().filter((id) => large.includes(id)).length).toBeLessThan(40);
      await engine.drain();
    } finally {
      await engine.stop();
      await close();
    }
  });
});
