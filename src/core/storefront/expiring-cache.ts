// A small cache of values read from elsewhere, per key: fresh for a short while, kept a little longer for an
// answer that says its age, and one read at a time per key. A value dropped while a read of it is under way is
// not put back by that read: the read began before what made it stale (a drop is a generation).
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
  readonly #reads = new Map<string, Promise<Kept<V>>>();
  readonly #generations = new Map<string, number>();

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
    if (under) return under;
    const generation = this.#generations.get(key) ?? 0;
    const read = (async () => {
      try {
        const kept = { value: await load(), at: this.#o.now() };
        if ((this.#generations.get(key) ?? 0) === generation) this.#put(key, kept);
        return kept;
      } finally {
        this.#reads.delete(key);
      }
    })();
    this.#reads.set(key, read);
    return read;
  }

  /** Forgets the key's value; a read under way keeps it out too. */
  drop(key: string): void {
    this.#kept.delete(key);
    this.#reads.delete(key);
    this.#generations.set(key, (this.#generations.get(key) ?? 0) + 1);
  }

  /** Forgets every key the test matches: with its value, or undefined for a read under way. */
  dropWhere(test: (key: string, value: V | undefined) => boolean): void {
    for (const [key, kept] of this.#kept) if (test(key, kept.value)) this.drop(key);
    // Reads under way: their generation moves on, so they put nothing back.
    for (const key of [...this.#reads.keys()]) if (test(key, undefined)) this.drop(key);
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
    // Generations of keys no longer kept nor read are not needed once no read could still compare them.
    if (this.#generations.size > this.#o.maxEntries * 2)
      for (const key of this.#generations.keys()) if (!this.#reads.has(key)) this.#generations.delete(key);
  }
}
