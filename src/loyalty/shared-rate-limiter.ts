// One rate limit for the loyalty API across every bridge that shares a
// database: the service counts calls per API key, whoever makes them.
// rate-limiter-flexible keeps the count in PostgreSQL, in fixed windows (one
// row per key, reset when its window expires). As for the local limiter, the
// minute is cut into n slices; here each slice gets floor(limit / (n + 2))
// calls: any 60-second stretch overlaps at most n + 1 windows, and a second
// of network jitter one more, so no minute at the service ever holds more
// than the limit, however many instances call.
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { planRateLimit, type RateLimiter, type RateLimiterStats } from './rate-limiter.ts';

export interface SharedRateLimiterOptions {
  pool: Pool;
  limit: number;
  /** What the service counts by: the API key (never stored as such, only a digest). */
  key: string;
  windowMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export function createSharedRateLimiter({
  pool,
  limit,
  key,
  windowMs = 60_000,
  sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}: SharedRateLimiterOptions): RateLimiter {
  // Whole-second slices: the library keeps expiries as bigint milliseconds
  // computed from seconds, and a fraction there is refused by PostgreSQL.
  const plan = planRateLimit(limit, windowMs, 2, 1000);
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'lb_rate_limit',
    tableCreated: true,
    keyPrefix: 'loyalty',
    points: plan.callsPerSlice,
    duration: plan.sliceMs / 1000,
  });
  const starts: number[] = [];
  let queued = 0;
  let running = 0;
  let pausedUntil: number | undefined;
  let idleWaiters: Array<() => void> = [];
  const forgetOldStarts = (now: number) => {
    while (starts.length > 0 && (starts[0] ?? 0) <= now - windowMs) starts.shift();
  };
  const settle = () => {
    if (queued > 0 || running > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  return {
    async schedule<T>(call: () => Promise<T>): Promise<T> {
      queued++;
      try {
        for (;;) {
          try {
            await limiter.consume(key);
            break;
          } catch (refusal) {
            if (!(refusal instanceof RateLimiterRes)) throw refusal;
            // Spread the waiters, so that a full window does not restart in a thundering herd.
            await sleep(refusal.msBeforeNext + Math.floor(Math.random() * 50));
          }
        }
      } finally {
        queued--;
      }
      running++;
      starts.push(Date.now());
      forgetOldStarts(Date.now());
      try {
        return await call();
      } finally {
        running--;
        settle();
      }
    },
    holdFor(ms) {
      pausedUntil = Date.now() + ms;
      // Every instance waits: the window is blocked in the database itself.
      void limiter.block(key, Math.ceil(ms / 1000)).catch(() => undefined);
    },
    stats(): RateLimiterStats {
      const now = Date.now();
      forgetOldStarts(now);
      return {
        limit,
        windowMs,
        effectiveLimit: plan.effectiveLimit,
        queued,
        running,
        startedInWindow: starts.length,
        pausedUntil: pausedUntil && pausedUntil > now ? pausedUntil : undefined,
      };
    },
    onIdle: () =>
      queued === 0 && running === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)),
  };
}
