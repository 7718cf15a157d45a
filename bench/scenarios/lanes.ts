// Live during backfill (issue 22): a resync backlog is drained at the
// loyalty service's rate limit while live orders arrive at a steady rate.
// The bridge's limiter and the sandbox are both set to the limit. Measured:
// each live order's time from acceptance to its earn being recorded, the
// backfill's calls a minute, the total against the limit, and 429s. Then the
// same with two shops: a second shop's small resync of its own, queued behind
// the first shop's backlog, and how long its orders wait.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { createLogger } from '../../src/logger.ts';
import { freshDatabase, probePostgres } from '../lib/databases.ts';
import { benchOrder, type Series } from '../lib/orders.ts';
import { earnTimes } from '../lib/earn-times.ts';
import { percentile } from '../lib/stats.ts';
import { startSandbox } from './ack.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';

export interface LanesProfile {
  backlog: number;
  limitPerMinute: number;
  livePerSecond: number;
  /** The second shop's own small resync, queued a few seconds into the drain. */
  quietShopOrders: number;
}

export interface LanesRun {
  backend: 'lowdb' | 'postgres';
  backlog: number;
  limitPerMinute: number;
  livePerSecond: number;
  seconds: number;
  live: { orders: number; p50Ms: number; p99Ms: number; maxMs: number };
  backfillCallsPerMinute: number;
  backfillShare: number;
  totalShare: number;
  rateLimited: number;
  quietShop: { orders: number; p50Ms: number; p99Ms: number };
}

const BACKLOG: Series = {
  name: 'Backfill',
  firstId: 8_100_000_000_000,
  facts: ['placed', 'paid'],
  total: '10.00',
  from: Date.UTC(2026, 9, 1),
  stepMs: 1,
};
const LIVE: Series = {
  name: 'Live',
  firstId: 8_200_000_000_000,
  facts: ['placed', 'paid'],
  total: '10.00',
  from: Date.UTC(2026, 10, 22),
  stepMs: 1,
};
const QUIET: Series = {
  name: 'Quiet',
  firstId: 8_300_000_000_000,
  facts: ['placed', 'paid'],
  total: '10.00',
  from: Date.UTC(2026, 9, 2),
  stepMs: 1,
};

const summary = (times: number[]) => ({
  orders: times.length,
  p50Ms: Math.round(percentile(times, 50)),
  p99Ms: Math.round(percentile(times, 99)),
  maxMs: Math.round(Math.max(0, ...times)),
});

async function oneRun(backend: 'lowdb' | 'postgres', profile: LanesProfile): Promise<LanesRun> {
  const sandbox = await startSandbox(profile.limitPerMinute);
  let rateLimited = 0;
  let store: LedgerStore | undefined;
  let release: (() => Promise<void>) | undefined;
  let drop: (() => Promise<void>) | undefined;
  try {
    if (backend === 'postgres') {
      const database = await freshDatabase();
      drop = () => database.drop();
      const opened = await openPostgresStore({
        url: database.url,
        dedupeWindowMs: 7 * 86_400_000,
        logger: createLogger({ level: 'silent' }),
        poolSize: 8,
      });
      store = opened.store;
      release = opened.release;
    }
    const client = new LoyaltyClient({
      baseUrl: sandbox.url,
      apiKey: 'sandbox-key',
      brandId: 'sandbox-brand',
      rateLimitPerMinute: profile.limitPerMinute,
      maxRetries: 0,
      onAttempt: (report) => {
        if (report.outcome === 'rate_limited') rateLimited++;
      },
    });
    const engine = await openEngine({
      store: store ?? new LowdbStore({ dataDir: mkdtempSync(join(tmpdir(), 'bench-lanes-')) }),
      client,
      policy: DEFAULT_POLICY,
      earnActivityId: '1',
      logger: createLogger({ level: 'silent' }),
    });
    // The resync's backlog, folded before the clock starts.
    for (let n = 0; n < profile.backlog; n += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, profile.backlog - n) }, (_, i) =>
          engine.ingest.events(`backlog-${n + i}`, [benchOrder(BACKLOG, n + i)], [], 'backfill'),
        ),
      );
    }
    await engine.foldInbox();
    await engine.startWorker();
    const started = performance.now();
    const live = earnTimes(engine);
    const quiet = earnTimes(engine);
    const backlogDone = (async () => {
      for (;;) {
        const counts = await engine.store.laneCounts();
        if (counts.backfill.waiting === 0 && engine.worker.lanes.backfill.inFlight === 0) return performance.now();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let liveSent = 0;
    let stop = false;
    const liveArrivals = (async () => {
      // Live orders at a steady rate until the backlog is done.
      while (!stop) {
        const event = { ...benchOrder(LIVE, liveSent), shop: 'bench-store.myshopify.com' };
        await engine.ingest.events(`live-${liveSent}`, [event], [], 'live');
        live.watch(`shopify:${event.shop}:${event.orderId}`);
        liveSent++;
        await new Promise((resolve) => setTimeout(resolve, 1000 / profile.livePerSecond));
      }
    })();
    // A second shop's own small resync, a few seconds in, behind the first shop's backlog in the same lane.
    await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, profile.backlog)));
    for (let n = 0; n < profile.quietShopOrders; n++) {
      const event = { ...benchOrder(QUIET, n), shop: 'quiet-store.myshopify.com' };
      await engine.ingest.events(`quiet-${n}`, [event], [], 'backfill');
      quiet.watch(`shopify:${event.shop}:${event.orderId}`);
    }
    const finished = await backlogDone;
    stop = true;
    await liveArrivals;
    const liveTimes = await live.done();
    const quietTimes = await quiet.done();
    await engine.drain();
    await engine.stop();
    const seconds = (finished - started) / 1000;
    const backfillCalls = profile.backlog + profile.quietShopOrders;
    const backfillCallsPerMinute = (backfillCalls / seconds) * 60;
    const totalPerMinute = ((backfillCalls + liveTimes.length) / seconds) * 60;
    return {
      backend,
      backlog: profile.backlog,
      limitPerMinute: profile.limitPerMinute,
      livePerSecond: profile.livePerSecond,
      seconds: Number(seconds.toFixed(1)),
      live: summary(liveTimes),
      backfillCallsPerMinute: Math.round(backfillCallsPerMinute),
      backfillShare: Number((backfillCallsPerMinute / profile.limitPerMinute).toFixed(3)),
      totalShare: Number((totalPerMinute / profile.limitPerMinute).toFixed(3)),
      rateLimited,
      quietShop: summary(quietTimes),
    };
  } finally {
    await release?.();
    await drop?.();
    await sandbox.stop();
  }
}

export async function lanesScenario(
  profile: LanesProfile,
  log: (line: string) => void = () => undefined,
): Promise<LanesRun[]> {
  const runs: LanesRun[] = [];
  for (const backend of ['lowdb', 'postgres'] as const) {
    if (backend === 'postgres' && !(await probePostgres())) continue;
    log(
      `  live during backfill, ${backend}: ${profile.backlog} backlog at ${profile.limitPerMinute}/min, live ${profile.livePerSecond}/s ...`,
    );
    runs.push(await oneRun(backend, profile));
  }
  return runs;
}
