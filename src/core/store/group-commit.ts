// Group commit: lowdb rewrites a whole file on every write, so changes are
// gathered and every file touched since the last write is written once.
// Whoever asked for a flush is answered when a write that includes their
// change has finished. One flush runs at a time; changes made meanwhile go
// into the next one.
import type { Low } from 'lowdb';

export class GroupCommit {
  readonly #dirty = new Set<Low<unknown>>();
  #waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  #running: Promise<void> | undefined;

  markDirty(file: Low<unknown>): void {
    this.#dirty.add(file);
  }

  /** Resolves when everything marked dirty before this call is on disk. */
  flush(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#running ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Let the other changes of this turn of the event loop join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      const waiting = this.#waiting;
      this.#waiting = [];
      const files = [...this.#dirty];
      this.#dirty.clear();
      try {
        // Each write serialises its data synchronously when called, so later changes wait for the next round.
        await Promise.all(files.map((file) => file.write()));
        for (const waiter of waiting) waiter.resolve();
      } catch (error) {
        // The files stay dirty, so the next flush tries them again.
        for (const file of files) this.#dirty.add(file);
        for (const waiter of waiting) waiter.reject(error);
      }
    }
    this.#running = undefined;
  }
}
