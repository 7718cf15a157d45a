// A few ledger files kept open, most recently used last. Entries are the
// promises of opening, so two callers asking at once share one file object
// (two objects for one file would be two writers). A file that fails to open
// is forgotten, so the next caller tries again. Files the owner still needs
// (changed and not yet written, or being written to) are never dropped.
export class OpenFiles<K, T> {
  readonly #open = new Map<K, Promise<T>>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#open.size;
  }

  /** The file under key, opened with open() when it is not open yet. */
  get(key: K, open: () => Promise<T>): Promise<T> {
    const cached = this.#open.get(key);
    if (cached) {
      this.#open.delete(key);
      this.#open.set(key, cached);
      return cached;
    }
    const opening = open();
    this.#open.set(key, opening);
    opening.catch(() => this.#open.delete(key));
    return opening;
  }

  /** Drops the least recently used files until at most the limit are open, keeping those keep() names. */
  trim(keep: (key: K) => boolean): void {
    for (const key of this.#open.keys()) {
      if (this.#open.size <= this.#limit) return;
      if (!keep(key)) this.#open.delete(key);
    }
  }
}
