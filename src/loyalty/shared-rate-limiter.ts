// One rate limit for the loyalty API across every bridge that shares a database, since the service counts
// calls per API key, whoever makes them. rate-limiter-flexible keeps the count in PostgreSQL in fixed
// windows; each of n slices of the minute gets floor(limit / (n + 2)) calls, since a 60-second stretch
// overlaps n + 1 windows and a second of jitter one more. Takes are batched into one statement
// (src/core/store/postgres/rate-windows.ts); a wait the service asked for (holdFor) every instance honours.
// The storefront's share is a window of its own for the key, and a live order waiting on any instance marks
// the key for a moment: the share and live orders' priority hold across instances, not per process.
import type { Pool } from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { RESERVE_LEAD_MS, Reservations, SliceShare, startsSince, type Place } from './places.ts';
import {
  BudgetSpentError,
  LimiterUnavailableError,
  planRateLimit,
  type RateBudget,
  type RateLimiter,
  type RateLimiterStats,
  type ShareAnswer,
} from './rate-limiter.ts';

/** How long a live order's wait on one instance keeps every instance's storefront from taking places. */
export const LIVE_MARK_SECONDS = 2;
/** An instance marks a key at most this often while its live orders wait: one write a second, not one an order. */
const LIVE_MARK_EVERY_MS = 1_000;

/** One call's point, taken from a key's window; the window lasts durationMs from the take that opens it. */
export interface WindowTake {
  /** The row's key, as the library writes it (its key prefix, a colon, the key). */
  key: string;
  durationMs: number;
}

/** The window as the take left it: the points taken in it, this take's included, and when it ends. */
export interface WindowCount {
  consumed: number;
  expiresAt: number;
}

/** Takes a call's point from its key's window (batched with other keys' takes: rate-windows.ts). */
export type TakeFromWindow = (take: WindowTake) => Promise<WindowCount>;

export interface SharedRateLimiterOptions {
  pool: Pool;
  take: TakeFromWindow;
  limit: number;
  /** What the service counts by: the API key (never stored as such, only a digest). */
  key: string;
  windowMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export function createSharedRateLimiter({
  pool,
  take,
  limit,
  key,
  windowMs = 60_000,
  sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}: SharedRateLimiterOptions): RateLimiter {
  // Slices in whole quarters of a second: the library computes expiries as
  // seconds × 1000 into a bigint column, and PostgreSQL refuses a fraction
  // there; a quarter is exact in binary floating point (1.017 s would not be).
  // Whole seconds cost a tenth of the budget at 300 a minute (2-s slices of 9
  // calls: 270), quarters a twentieth (1.25-s slices of 6: 288). A minute's
  // window still makes slices of at least a second (60 at most), so a second
  // of jitter stays within the spare slice.
  const plan = planRateLimit(limit, windowMs, 2, 250);
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'lb_rate_limit',
    tableCreated: true,
    keyPrefix: 'loyalty',
    points: plan.callsPerSlice,
    duration: plan.sliceMs / 1000,
  });
  // The row's key as the library names it (its key prefix, a colon, the key): takes and waits count in one row.
  const rowKey = limiter.getKey(key);
  // The storefront's calls in the window (their own row, a window long), and the mark of a live order waiting.
  const shareKey = limiter.getKey(`storefront:${key}`);
  // Redemptions' reads, a row of their own: their refused takes count there, never in the views' share.
  const redeemKey = limiter.getKey(`storefront-redeem:${key}`);
  const liveKey = `live:${key}`;
  let liveMarkedAt = -Infinity;
  const starts: number[] = [];
  let queued = 0;
  let running = 0;
  let pausedUntil: number | undefined;
  /** When the database last said this key's window is full, until when (a guess for reserve(): other instances spend it too). */
  let refusedUntil = 0;
  /**
   * The key's window as the database last answered a call of this instance:
   * when it ends and the calls left in it. Other instances spend it too, so
   * this is a guess that errs towards room; the database has the last word.
   */
  let window: { endsAt: number; left: number } | undefined;
  const reservations = new Reservations(plan.sliceMs);
  // The storefront's part of each slice, counted by this instance (its part of the window is counted by all).
  const lower = new SliceShare(plan);
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
    async schedule<T>(call: () => Promise<T>, place?: Place): Promise<T> {
      // Counted from here on as queued.
      const started = lower.queue(place);
      place?.release();
      queued++;
      try {
        for (;;) {
          const taken = await take({ key: rowKey, durationMs: plan.sliceMs });
          const msBeforeNext = Math.max(taken.expiresAt - Date.now(), 0);
          if (taken.consumed <= plan.callsPerSlice) {
            window = { endsAt: Date.now() + msBeforeNext, left: plan.callsPerSlice - taken.consumed };
            break;
          }
          // The window is full (a refused take counts in it, as the library's do: the window stays full to its end).
          refusedUntil = Math.max(refusedUntil, Date.now() + msBeforeNext);
          window = { endsAt: refusedUntil, left: 0 };
          // A call given a place that now waits longer than a slice (another instance spent the window, or the
          // service asked every instance to wait): nothing was sent; its order is let go instead of holding a slot.
          if (place && msBeforeNext > plan.sliceMs) throw new BudgetSpentError(refusedUntil);
          // Spread the waiters, so that a full window does not restart in a thundering herd.
          await sleep(msBeforeNext + Math.floor(Math.random() * 50));
        }
      } catch (error) {
        // Not sent: a refusal for a spent budget, or the database's error (said to be before sending: a redeem
        // failed here is not in doubt).
        queued--;
        started();
        settle();
        throw error instanceof BudgetSpentError ? error : new LimiterUnavailableError(error);
      }
      queued--;
      running++;
      starts.push(Date.now());
      started(Date.now());
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
      // Every instance waits: the window is blocked in the database itself. At least a second: the library reads
      // a block of 0 s as one without end.
      void limiter.block(key, Math.max(1, Math.ceil(ms / 1000))).catch(() => undefined);
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
    reserve(share?: number): RateBudget {
      const now = Date.now();
      // This instance's live calls only: other instances' are not known here (their share of the window is).
      const shareFull = share === undefined ? undefined : lower.fullUntil(now, share, (t) => startsSince(starts, t));
      const until = Math.max(pausedUntil ?? 0, refusedUntil, shareFull ?? 0);
      if (until > now) return { spent: true, until };
      // The calls left in the key's window, less those this instance has promised or is sending: none, and the
      // next would wait for the window's end. A window that ends within RESERVE_LEAD_MS leaves a whole slice's calls.
      const current = window && window.endsAt > now + RESERVE_LEAD_MS ? window : undefined;
      const left = (current ? current.left : plan.callsPerSlice) - queued - reservations.count(now);
      if (left <= 0) return { spent: true, until: current ? current.endsAt - RESERVE_LEAD_MS : now + plan.sliceMs };
      const place = reservations.add(now);
      return { spent: false, place: share === undefined ? place : lower.mark(place) };
    },
    async takeShare(share: number, row?: 'redeems'): Promise<ShareAnswer> {
      // A redemptions' part is at least one call a window: a small plan still lets a customer redeem.
      const cap =
        row === 'redeems'
          ? Math.max(1, Math.floor(plan.effectiveLimit * share))
          : Math.floor(plan.effectiveLimit * share);
      if (cap < 1) return { taken: false, until: undefined };
      try {
        // One read: a live order of the key waits on some instance; a page view's share is not taken from then. A
        // redemption's is (the customer waits for their code), in its own row.
        if (row !== 'redeems') {
          const live = await limiter.get(liveKey);
          if (live && live.msBeforeNext > 0) return { taken: false, until: Date.now() + live.msBeforeNext };
        }
        // A refused take counts in the window, as the limit's do: the share stays used up to the window's end.
        const taken = await take({ key: row === 'redeems' ? redeemKey : shareKey, durationMs: windowMs });
        return taken.consumed <= cap ? { taken: true } : { taken: false, until: taken.expiresAt };
      } catch (error) {
        throw new LimiterUnavailableError(error);
      }
    },
    markLiveWaiting() {
      const now = Date.now();
      if (now - liveMarkedAt < LIVE_MARK_EVERY_MS) return;
      liveMarkedAt = now;
      // Nothing awaits it: a mark that fails leaves the storefront to this instance's own liveFirst meanwhile.
      void limiter.block(liveKey, LIVE_MARK_SECONDS).catch(() => undefined);
    },
    onIdle: () =>
      queued === 0 && running === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)),
  };
}
