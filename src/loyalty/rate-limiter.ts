// The one outbound limiter every call to the loyalty service goes through.
//
// The service counts calls per API key in a sliding window (500 a minute). A
// limiter that allowed the full 500 and then the next 500 exactly one window
// later would still be refused now and then: calls leave here and arrive there
// with different delays, so two bursts a window apart can land inside one
// window. So the window is cut into n slices and each slice gets
// floor(limit / (n + 1)) calls, enforced by p-queue's strict sliding window.
// Any stretch one window long, plus up to one slice of network jitter, then
// overlaps at most n + 1 slices' worth of calls, which never exceeds the
// limit; and the calls are spread evenly instead of arriving as one burst.
import PQueue from 'p-queue';

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

export interface RateLimiter {
  schedule<T>(call: () => Promise<T>): Promise<T>;
  /** Hold every call until `ms` from now: the service asked us to wait (Retry-After). */
  holdFor(ms: number): void;
  stats(): RateLimiterStats;
  /** Resolves when nothing is queued or running. */
  onIdle(): Promise<void>;
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
  let pausedUntil: number | undefined;
  let resumeTimer: NodeJS.Timeout | undefined;

  const forgetOldStarts = (now: number) => {
    while (starts.length > 0 && (starts[0] ?? 0) <= now - windowMs) starts.shift();
  };

  return {
    schedule<T>(call: () => Promise<T>): Promise<T> {
      return queue.add(() => {
        const now = Date.now();
        starts.push(now);
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
    onIdle: () => queue.onIdle(),
  };
}
