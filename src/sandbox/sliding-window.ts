// The service's rate limit as DESIGN.md fixes it for the sandbox: at most
// `limit` served calls per API key in any sliding window. This is a model of
// the upstream's behaviour (exact counts, exact Retry-After), not a defence of
// our own server, which is why it is not a general-purpose limiter library.

export interface WindowDecision {
  allowed: boolean;
  /** When refused: how long until the oldest counted call leaves the window. */
  retryAfterMs: number;
  used: number;
}

export class SlidingWindowCounter {
  readonly #calls = new Map<string, number[]>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Counts a call for `key` if it fits; refused calls are not counted. */
  take(key: string, now = Date.now()): WindowDecision {
    const calls = this.#calls.get(key) ?? [];
    let expired = 0;
    while (expired < calls.length && (calls[expired] ?? 0) <= now - this.#windowMs) expired++;
    if (expired > 0) calls.splice(0, expired);
    if (calls.length >= this.#limit) {
      this.#calls.set(key, calls);
      return { allowed: false, retryAfterMs: (calls[0] ?? now) + this.#windowMs - now, used: calls.length };
    }
    calls.push(now);
    this.#calls.set(key, calls);
    return { allowed: true, retryAfterMs: 0, used: calls.length };
  }

  reset(): void {
    this.#calls.clear();
  }
}
