// A few ledger files kept open, least recently used first out. Exactly one object per file, let go only when
// nobody uses it and all its changes are on disk: a file let go too soon would come back from disk as an
// older copy beside the newer one, and whichever was written last would win. A file that fails to open is
// forgotten, so the next caller tries again.
import type { DurableLow } from './durable-file.ts';

interface Entry<T> {
  opening: Promise<T>;
  file: T | undefined;
  users: number;
}

export class OpenFiles<K, T extends DurableLow<unknown>> {
  readonly #open = new Map<K, Entry<T>>();
  readonly #limit: number;
  /**
   * Trims passed over after one that found too few files it could let go of. Files changed and not yet written
   * stay open (a journaled registry keeps thousands so until its journal is emptied): scanning all of them on
   * every use was 3% of a drain (--cpu-prof), so the next scans wait for an eighth as many uses as files open.
   */
  #trimsSkipped = 0;
  #trimsToSkip = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#open.size;
  }

  /** Runs fn with the file under key, opened with open() when it is not open yet; the file stays open meanwhile. */
  async use<R>(key: K, open: () => Promise<T>, fn: (file: T) => R | Promise<R>): Promise<R> {
    const release = await this.#acquire(key, open);
    try {
      return await fn(release.file);
    } finally {
      release.done();
    }
  }

  /** The file under key, held open until done() is called (in a finally). */
  acquire(key: K, open: () => Promise<T>): Promise<{ file: T; done: () => void }> {
    return this.#acquire(key, open);
  }

  async #acquire(key: K, open: () => Promise<T>): Promise<{ file: T; done: () => void }> {
    let entry = this.#open.get(key);
    if (entry) {
      this.#open.delete(key);
      this.#open.set(key, entry);
    } else {
      const created: Entry<T> = { opening: open(), file: undefined, users: 0 };
      created.opening.then(
        (file) => (created.file = file),
        () => {
          if (this.#open.get(key) === created) this.#open.delete(key);
        },
      );
      this.#open.set(key, created);
      entry = created;
    }
    entry.users++;
    let file: T;
    try {
      file = await entry.opening;
    } catch (error) {
      entry.users--;
      throw error;
    }
    let released = false;
    return {
      file,
      done: () => {
        if (released) return;
        released = true;
        entry.users--;
        this.trim();
      },
    };
  }

  /**
   * Lets go of the least recently used files until at most the limit are open, keeping any in use or not clean.
   * After a scan that could not get down to the limit, a few trims pass (see #trimsToSkip): letting go later is
   * always safe, only keeping memory a little longer.
   */
  trim(): void {
    if (this.#open.size <= this.#limit) return;
    if (this.#trimsSkipped < this.#trimsToSkip) {
      this.#trimsSkipped++;
      return;
    }
    for (const [key, entry] of this.#open) {
      if (this.#open.size <= this.#limit) break;
      if (entry.users === 0 && entry.file?.clean) this.#open.delete(key);
    }
    this.#trimsSkipped = 0;
    this.#trimsToSkip = this.#open.size > this.#limit ? Math.floor(this.#open.size / 8) : 0;
  }
}
