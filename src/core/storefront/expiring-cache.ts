// A small cache of values read from elsewhere, per key: fresh for a short while, kept a little longer for an
// answer that says its age, and one read at a time per key. A value dropped while a read of it is under way is
// not put back by that read: the read began before what made it stale. Each read carries its own token, which a
// drop cancels; nothing is kept for a key beyond its value and its read under way.
export interface Kept<V> {
  value: V;
  /** When it was read (ms). */
  at: number;
}

export interface ExpiringCacheOptions {
  /** How long a value is fresh. */
  freshMs: number;
  /** How long it is kept at all, for an answer that says its age. */
  keepMs: number;
  /** At most this many values; the oldest go first. */
  maxEntries: number;
  now: () => number;
}

export class ExpiringCache<V> {
  readonly #o: ExpiringCacheOptions;
  readonly #kept = new Map<string, Kept<V>>();
  readonly #reads = new Map<string, Read<V>>();

  constructor(options: ExpiringCacheOptions) {
    this.#o = options;
  }

  /** The value, while it is fresh. */
  fresh(key: string): Kept<V> | undefined {
    const kept = this.kept(key);
    return kept && this.#o.now() - kept.at < this.#o.freshMs ? kept : undefined;
  }

  /** The value, fresh or not, while it is kept. */
  kept(key: string): Kept<V> | undefined {
    const kept = this.#kept.get(key);
    if (kept && this.#o.now() - kept.at >= this.#o.keepMs) {
      this.#kept.delete(key);
      return undefined;
    }
    return kept;
  }

  /** The fresh value, or one read now: callers asking at once share one read. */
  read(key: string, load: () => Promise<V>): Promise<Kept<V>> {
    const fresh = this.fresh(key);
    if (fresh) return Promise.resolve(fresh);
    const under = this.#reads.get(key);
    if (under) return under.promise;
    const token: Token<V> = { cancelled: false, settled: false, erasures: [] };
    const promise = this.#load(key, token, load);
    // A load that failed at once has already settled: nothing is under way to share.
    if (!token.settled) this.#reads.set(key, { token, promise });
    return promise;
  }

  /**
   * A read begun now, whatever is fresh or under way (those began before what the caller must see); the value kept
   * stays until it succeeds, so a read that fails forgets nothing. `dropped`: the key was dropped (or an erasure
   * matched the value) while it was read, so what it read may be older than what made it stale.
   */
  async readAnew(key: string, load: () => Promise<V>): Promise<{ kept: Kept<V>; dropped: boolean }> {
    this.#cancel(key);
    const token: Token<V> = { cancelled: false, settled: false, erasures: [] };
    const promise = this.#load(key, token, load);
    if (!token.settled) this.#reads.set(key, { token, promise });
    const kept = await promise;
    return { kept, dropped: token.cancelled || token.erasures.some((test) => test(key, kept.value)) };
  }

  /** Forgets the key's value; a read under way puts nothing back. */
  drop(key: string): void {
    this.#kept.delete(key);
    this.#cancel(key);
  }

  /** Forgets every key the test matches: with its value, or undefined for a read under way. A read under way the
   * key alone does not match keeps the test, and puts nothing its value matches (an erasure during a read). */
  dropWhere(test: (key: string, value: V | undefined) => boolean): void {
    for (const [key, kept] of [...this.#kept]) if (test(key, kept.value)) this.drop(key);
    for (const [key, read] of [...this.#reads])
      if (test(key, undefined)) this.drop(key);
      else read.token.erasures.push(test);
  }

  /** Every value kept, with its key (a customer's export). */
  entries(): Array<[string, Kept<V>]> {
    return [...this.#kept].filter(([key]) => this.kept(key) !== undefined);
  }

  #put(key: string, kept: Kept<V>): void {
    this.#kept.delete(key);
    this.#kept.set(key, kept);
    while (this.#kept.size > this.#o.maxEntries) {
      const oldest = this.#kept.keys().next().value;
      if (oldest === undefined) break;
      this.#kept.delete(oldest);
    }
  }

  async #load(key: string, token: Token<V>, load: () => Promise<V>): Promise<Kept<V>> {
    try {
      const kept = { value: await load(), at: this.#o.now() };
      if (!token.cancelled && !token.erasures.some((test) => test(key, kept.value))) this.#put(key, kept);
      return kept;
    } finally {
      token.settled = true;
      // A drop may have let a later read take this key's place: that one stays.
      if (this.#reads.get(key)?.token === token) this.#reads.delete(key);
    }
  }

  #cancel(key: string): void {
    const read = this.#reads.get(key);
    if (!read) return;
    read.token.cancelled = true;
    this.#reads.delete(key);
  }
}

/** One read's own mark: a drop since it began keeps its value out, and so does an erasure its value matches. */
interface Token<V> {
  cancelled: boolean;
  settled: boolean;
  erasures: Array<(key: string, value: V) => boolean>;
}

interface Read<V> {
  token: Token<V>;
  promise: Promise<Kept<V>>;
}
