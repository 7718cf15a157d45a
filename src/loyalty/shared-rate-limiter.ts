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
  type RateLimitPlan,
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
  const limiter = windowsIn(pool, plan);
  const rows = rowsOf(limiter, key);
  const state: KeyState = {
    starts: [],
    queued: 0,
    running: 0,
    pausedUntil: undefined,
    refusedUntil: 0,
    window: undefined,
    idleWaiters: [],
  };
  const reservations = new Reservations(plan.sliceMs);
  // The storefront's part of each slice, counted by this instance (its part of the window is counted by all).
  const lower = new SliceShare(plan);

  return {
    async schedule<T>(call: () => Promise<T>, place?: Place): Promise<T> {
      // Counted from here on as queued.
      const started = lower.queue(place);
      place?.release();
      state.queued++;
      try {
        for (;;) {
          const taken = await take({ key: rows.row, durationMs: plan.sliceMs });
          const msBeforeNext = noteTake(state, plan, taken, place);
          if (msBeforeNext === undefined) break;
          // Spread the waiters, so that a full window does not restart in a thundering herd.
          await sleep(msBeforeNext + Math.floor(Math.random() * 50));
        }
      } catch (error) {
        // Not sent: a refusal for a spent budget, or the database's error (said to be before sending: a redeem
        // failed here is not in doubt).
        state.queued--;
        started();
        settle(state);
        throw error instanceof BudgetSpentError ? error : new LimiterUnavailableError(error);
      }
      state.queued--;
      state.running++;
      state.starts.push(Date.now());
      started(Date.now());
      forgetOldStarts(state, windowMs, Date.now());
      try {
        return await call();
      } finally {
        state.running--;
        settle(state);
      }
    },
    holdFor(ms) {
      state.pausedUntil = Date.now() + ms;
      // Every instance waits: the window is blocked in the database itself. At least a second: the library reads
      // a block of 0 s as one without end.
      void limiter.block(key, Math.max(1, Math.ceil(ms / 1000))).catch(() => undefined);
    },
    stats: () => statsOf(state, limit, windowMs, plan),
    reserve: (share?: number) => reserveIn(state, plan, reservations, lower, share),
    takeShare: shareTaker(limiter, take, plan, windowMs, rows),
    markLiveWaiting: liveMarker(limiter, rows.live),
    onIdle: () =>
      state.queued === 0 && state.running === 0
        ? Promise.resolve()
        : new Promise((resolve) => state.idleWaiters.push(resolve)),
  };
}

/** What one instance knows of its key: its calls queued and under way, its waits, the window as last answered. */
interface KeyState {
  starts: number[];
  queued: number;
  running: number;
  pausedUntil: number | undefined;
  /** When the database last said this key's window is full, until when (a guess for reserve(): other instances spend it too). */
  refusedUntil: number;
  /**
   * The key's window as the database last answered a call of this instance:
   * when it ends and the calls left in it. Other instances spend it too, so
   * this is a guess that errs towards room; the database has the last word.
   */
  window: { endsAt: number; left: number } | undefined;
  idleWaiters: Array<() => void>;
}

/** The key's rows, as the library names them, and the mark of a live order waiting. */
interface KeyRows {
  row: string;
  share: string;
  redeem: string;
  live: string;
}

/** The fixed windows in PostgreSQL (lb_rate_limit), one slice long. */
function windowsIn(pool: Pool, plan: RateLimitPlan): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'lb_rate_limit',
    tableCreated: true,
    keyPrefix: 'loyalty',
    points: plan.callsPerSlice,
    duration: plan.sliceMs / 1000,
  });
}

function rowsOf(limiter: RateLimiterPostgres, key: string): KeyRows {
  return {
    // The row's key as the library names it (its key prefix, a colon, the key): takes and waits count in one row.
    row: limiter.getKey(key),
    // The storefront's calls in the window (their own row, a window long), and the mark of a live order waiting.
    share: limiter.getKey(`storefront:${key}`),
    // Redemptions' reads, a row of their own: their refused takes count there, never in the views' share.
    redeem: limiter.getKey(`storefront-redeem:${key}`),
    live: `live:${key}`,
  };
}

function forgetOldStarts(state: KeyState, windowMs: number, now: number): void {
  const { starts } = state;
  while (starts.length > 0 && (starts[0] ?? 0) <= now - windowMs) starts.shift();
}

function settle(state: KeyState): void {
  if (state.queued > 0 || state.running > 0) return;
  const waiters = state.idleWaiters;
  state.idleWaiters = [];
  for (const resolve of waiters) resolve();
}

/** Notes what a take of the key's row answered: undefined when the call may go, else how long until the window ends. */
function noteTake(
  state: KeyState,
  plan: RateLimitPlan,
  taken: WindowCount,
  place: Place | undefined,
): number | undefined {
  const msBeforeNext = Math.max(taken.expiresAt - Date.now(), 0);
  if (taken.consumed <= plan.callsPerSlice) {
    state.window = { endsAt: Date.now() + msBeforeNext, left: plan.callsPerSlice - taken.consumed };
    return undefined;
  }
  // The window is full (a refused take counts in it, as the library's do: the window stays full to its end).
  state.refusedUntil = Math.max(state.refusedUntil, Date.now() + msBeforeNext);
  state.window = { endsAt: state.refusedUntil, left: 0 };
  // A call given a place that now waits longer than a slice (another instance spent the window, or the
  // service asked every instance to wait): nothing was sent; its order is let go instead of holding a slot.
  if (place && msBeforeNext > plan.sliceMs) throw new BudgetSpentError(state.refusedUntil);
  return msBeforeNext;
}

function statsOf(state: KeyState, limit: number, windowMs: number, plan: RateLimitPlan): RateLimiterStats {
  const now = Date.now();
  forgetOldStarts(state, windowMs, now);
  const { queued, running, starts, pausedUntil } = state;
  return {
    limit,
    windowMs,
    effectiveLimit: plan.effectiveLimit,
    queued,
    running,
    startedInWindow: starts.length,
    pausedUntil: pausedUntil && pausedUntil > now ? pausedUntil : undefined,
  };
}

function reserveIn(
  state: KeyState,
  plan: RateLimitPlan,
  reservations: Reservations,
  lower: SliceShare,
  share: number | undefined,
): RateBudget {
  const now = Date.now();
  const { starts, pausedUntil, refusedUntil, window, queued } = state;
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
}

/** The storefront's share of the key's window, taken from a row of its own (redemptions' from theirs). */
function shareTaker(
  limiter: RateLimiterPostgres,
  take: TakeFromWindow,
  plan: RateLimitPlan,
  windowMs: number,
  rows: KeyRows,
): (share: number, row?: 'redeems') => Promise<ShareAnswer> {
  return async (share, row) => {
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
        const live = await limiter.get(rows.live);
        if (live && live.msBeforeNext > 0) return { taken: false, until: Date.now() + live.msBeforeNext };
      }
      // A refused take counts in the window, as the limit's do: the share stays used up to the window's end.
      const taken = await take({ key: row === 'redeems' ? rows.redeem : rows.share, durationMs: windowMs });
      return taken.consumed <= cap ? { taken: true } : { taken: false, until: taken.expiresAt };
    } catch (error) {
      throw new LimiterUnavailableError(error);
    }
  };
}

/** Marks the key while this instance's live orders wait, at most once a LIVE_MARK_EVERY_MS. */
function liveMarker(limiter: RateLimiterPostgres, liveKey: string): () => void {
  let liveMarkedAt = -Infinity;
  return () => {
    const now = Date.now();
    if (now - liveMarkedAt < LIVE_MARK_EVERY_MS) return;
    liveMarkedAt = now;
    // Nothing awaits it: a mark that fails leaves the storefront to this instance's own liveFirst meanwhile.
    void limiter.block(liveKey, LIVE_MARK_SECONDS).catch(() => undefined);
  };
}
