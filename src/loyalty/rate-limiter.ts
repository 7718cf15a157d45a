// The one outbound limiter every call to the loyalty service goes through. The service counts calls per API
// key in a sliding window, and calls arrive there with other delays than they leave here, so two bursts a
// window apart can land inside one window. So the window is cut into n slices of floor(limit / (n + 1))
// calls each (p-queue's strict sliding window): any stretch one window long, plus up to a slice of jitter,
// overlaps at most n + 1 slices' worth of calls, which never exceeds the limit.
import PQueue from 'p-queue';
import { Reservations, RESERVE_LEAD_MS, SliceShare, startsSince, type Place } from './places.ts';

export interface RateLimitPlan {
  sliceMs: number;
  callsPerSlice: number;
  /** Calls per window the plan actually allows (at most the limit). */
  effectiveLimit: number;
}

const MAX_SLICES = 60;

/**
 * `spare` slices' worth of calls are given up so that a window at the
 * service, shifted by jitter, never holds more than the limit: one for a
 * sliding window (this process), two for fixed windows (shared by instances).
 * Slices are whole multiples of `granularityMs` (whole milliseconds here;
 * whole seconds where a store keeps expiries as integers computed from
 * seconds), rounded up, so a slice is never shorter than its share.
 */
export function planRateLimit(limit: number, windowMs: number, spare = 1, granularityMs = 1): RateLimitPlan {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`rate limit must be a whole number of at least 1, got ${limit}`);
  let best: RateLimitPlan = {
    sliceMs: Math.ceil(windowMs / granularityMs) * granularityMs,
    callsPerSlice: 1,
    effectiveLimit: 1,
  };
  for (let slices = 1; slices <= MAX_SLICES; slices++) {
    const sliceMs = Math.ceil(windowMs / slices / granularityMs) * granularityMs;
    // How many slices one window can touch, besides the spare ones.
    const touched = Math.ceil(windowMs / sliceMs);
    const callsPerSlice = Math.floor(limit / (touched + spare));
    if (callsPerSlice < 1) break;
    const effectiveLimit = Math.floor((callsPerSlice * windowMs) / sliceMs);
    // Prefer more slices at equal throughput: smoother, more jitter tolerance per call.
    if (effectiveLimit >= best.effectiveLimit) best = { sliceMs, callsPerSlice, effectiveLimit };
  }
  return best;
}

export interface RateLimiterStats {
  limit: number;
  windowMs: number;
  effectiveLimit: number;
  /** Calls waiting for their turn. */
  queued: number;
  /** Calls started and not yet finished. */
  running: number;
  /** Calls started in the last window. */
  startedInWindow: number;
  pausedUntil: number | undefined;
}

/**
 * Whether a call would wait for its turn, asked without waiting: the worker
 * lets go of an order whose account's budget is spent rather than hold a
 * slot while it waits. A place is counted against the budget
 * from the moment it is given until its call is scheduled with it, it is
 * released, or a slice passes, so that callers asking at once are not all
 * told there is room. `until` is when to ask again, as far as this instance
 * knows.
 */
export type RateBudget = { spent: false; place: Place } | { spent: true; until: number };

/**
 * The call's turn could not be taken (the shared limit's database failed, or
 * did not answer in time): nothing was sent, so the call is certainly not
 * applied, a redeem included.
 */
export class LimiterUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the shared rate limit could not be read (${(cause as Error)?.message ?? String(cause)}); nothing was sent`, {
      cause,
    });
    this.name = 'LimiterUnavailableError';
  }
}

/**
 * A call given a place found, once in its turn, that it would wait more than
 * a slice (another instance spent the shared window): nothing was sent, and
 * the caller may let its order go until `until` rather than wait.
 */
export class BudgetSpentError extends Error {
  readonly until: number;
  constructor(until: number) {
    super('the rate budget was spent by another caller; nothing was sent');
    this.name = 'BudgetSpentError';
    this.until = until;
  }
}

export interface RateLimiter {
  /** Runs the call in its turn; `place`, if reserve() gave one, is the call's. */
  schedule<T>(call: () => Promise<T>, place?: Place): Promise<T>;
  /**
   * Non-blocking: a place for one call about to be scheduled, or when to ask again. `share`: the caller comes
   * after live orders (the storefront), and its calls take at most that part of any slice (SliceShare).
   */
  reserve(share?: number): RateBudget;
  /** Hold every call until `ms` from now: the service asked us to wait (Retry-After). */
  holdFor(ms: number): void;
  stats(): RateLimiterStats;
  /** Resolves when nothing is queued or running. */
  onIdle(): Promise<void>;
  /**
   * A limiter every instance shares: a place of a lower caller's share of the
   * budget (the storefront's), counted across instances, and refused while
   * any instance's live order waits (markLiveWaiting). Absent: the caller
   * counts its share itself, in this process. `row` 'redeems': a customer's
   * redemption asks for a place of `share` in a window row of its own,
   * beside live orders.
   */
  takeShare?(share: number, row?: 'redeems'): Promise<ShareAnswer>;
  /** A limiter every instance shares: a live order of its budget waits for a place; takeShare refuses for a while. */
  markLiveWaiting?(): void;
}

/** A share's place taken, or refused, with when to ask again if known. */
export type ShareAnswer = { taken: true } | { taken: false; until: number | undefined };

/** A limiter every instance on one database shares (the PostgreSQL store offers one). */
export type SharedLimiterFactory = (limit: number, apiKey: string, windowMs: number) => RateLimiter;

/**
 * The limiter for one API key: the service counts calls by key, so instances
 * sharing a database share it through the database; alone, this process's.
 */
export function limiterForKey(
  shared: SharedLimiterFactory | undefined,
  limit: number,
  apiKey: string,
  windowMs: number,
): RateLimiter {
  return shared ? shared(limit, apiKey, windowMs) : createRateLimiter({ limit, windowMs });
}

export interface RateLimiterOptions {
  limit: number;
  /** The service's window; a minute. Tests scale it down to run in seconds. */
  windowMs?: number;
}

export function createRateLimiter({ limit, windowMs = 60_000 }: RateLimiterOptions): RateLimiter {
  const plan = planRateLimit(limit, windowMs);
  const queue = new PQueue({ interval: plan.sliceMs, intervalCap: plan.callsPerSlice, strict: true });
  const starts: number[] = [];
  const reservations = new Reservations(plan.sliceMs);
  const lower = new SliceShare(plan);
  let pausedUntil: number | undefined;
  let resumeTimer: NodeJS.Timeout | undefined;

  const forgetOldStarts = (now: number) => {
    while (starts.length > 0 && (starts[0] ?? 0) <= now - windowMs) starts.shift();
  };

  return {
    schedule<T>(call: () => Promise<T>, place?: Place): Promise<T> {
      // Counted from here on as queued.
      const started = lower.queue(place);
      place?.release();
      return queue.add(() => {
        const now = Date.now();
        starts.push(now);
        started(now);
        forgetOldStarts(now);
        return call();
      }) as Promise<T>;
    },
    holdFor(ms) {
      const until = Date.now() + ms;
      if (pausedUntil !== undefined && pausedUntil >= until) return;
      pausedUntil = until;
      queue.pause();
      clearTimeout(resumeTimer);
      resumeTimer = setTimeout(() => {
        pausedUntil = undefined;
        queue.start();
      }, ms);
      resumeTimer.unref();
    },
    stats() {
      forgetOldStarts(Date.now());
      return {
        limit,
        windowMs,
        effectiveLimit: plan.effectiveLimit,
        queued: queue.size,
        running: queue.pending,
        startedInWindow: starts.length,
        pausedUntil,
      };
    },
    reserve(share?: number): RateBudget {
      const now = Date.now();
      if (pausedUntil !== undefined && pausedUntil > now) return { spent: true, until: pausedUntil };
      // p-queue's strict window: at most callsPerSlice starts in any sliceMs; calls queued or promised go first.
      // Asked as of RESERVE_LEAD_MS from now: a start that leaves the window by then frees its place.
      const at = now + RESERVE_LEAD_MS;
      const inSlice = starts.filter((start) => start > at - plan.sliceMs);
      const ahead = inSlice.length + queue.size + reservations.count(now);
      if (ahead < plan.callsPerSlice) {
        if (share === undefined) return { spent: false, place: reservations.add(now) };
        const until = lower.fullUntil(now, share, (t) => startsSince(starts, t));
        return until === undefined
          ? { spent: false, place: lower.mark(reservations.add(now)) }
          : { spent: true, until };
      }
      // The place the next call would take frees one slice after the start it replaces.
      const frees = inSlice[ahead - plan.callsPerSlice];
      const until = (frees !== undefined ? frees + plan.sliceMs : now + plan.sliceMs) - RESERVE_LEAD_MS;
      return { spent: true, until: Math.max(until, now + 1) };
    },
    onIdle: () => queue.onIdle(),
  };
}

/**
 * The calls of the last window against the limit, in words: where the plan sends fewer than the service allows,
 * why (the spare slices above).
 */
export function limitWords(
  calls: number,
  { limit, effectiveLimit, windowMs }: Pick<RateLimiterStats, 'limit' | 'effectiveLimit' | 'windowMs'>,
): string {
  const minute = windowMs === 60_000;
  const last = minute ? 'the last minute' : `the last ${windowMs / 1000} seconds`;
  const per = minute ? 'a minute' : `every ${windowMs / 1000} seconds`;
  const made = `${calls} call${calls === 1 ? '' : 's'} in ${last}`;
  if (effectiveLimit >= limit) return `${made}, of the ${limit} ${per} the service allows.`;
  return `${made}, of ${effectiveLimit}: ${effectiveLimit} of the ${limit} calls ${per} the service allows; the rest is kept spare so that late calls never exceed it.`;
}
