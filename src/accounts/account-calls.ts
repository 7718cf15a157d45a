// Each loyalty account's calls in the last minute, counted by the account's id on this instance, for the
// merchant's page ("calls against the account's limit"). Counted by account, not by key: the limiter counts
// every account with the same key, so its figures would tell a merchant who typed a key whether, and how
// much, it is used elsewhere. Per-second buckets: the memory is the same at 5 calls a minute or 5,000 a second.
const SECONDS = 60;

interface Buckets {
  counts: Uint32Array;
  /** The second each bucket was last written in, so a stale one reads as empty. */
  seconds: Float64Array;
}

export class AccountCalls {
  readonly #accounts = new Map<string, Buckets>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  record(account: string): void {
    let buckets = this.#accounts.get(account);
    if (!buckets) {
      buckets = { counts: new Uint32Array(SECONDS), seconds: new Float64Array(SECONDS).fill(-1) };
      this.#accounts.set(account, buckets);
    }
    const second = Math.floor(this.#now() / 1000);
    const slot = second % SECONDS;
    if (buckets.seconds[slot] !== second) {
      buckets.seconds[slot] = second;
      buckets.counts[slot] = 0;
    }
    buckets.counts[slot]!++;
  }

  /** The calls of the last 60 seconds, this one included. */
  lastMinute(account: string): number {
    const buckets = this.#accounts.get(account);
    if (!buckets) return 0;
    const since = Math.floor(this.#now() / 1000) - SECONDS;
    let total = 0;
    for (let slot = 0; slot < SECONDS; slot++) if (buckets.seconds[slot]! > since) total += buckets.counts[slot]!;
    // An account quiet for a minute holds nothing.
    if (total === 0) this.#accounts.delete(account);
    return total;
  }
}
