// Group commit: lowdb rewrites a whole file on every write, so changes are
// gathered and every file touched since the last write is written once, then
// each directory touched is fsynced once. Whoever asked for a flush is
// answered when a write that includes their change is durable. One flush
// runs at a time; changes made meanwhile go into the next one.
import { dirname } from 'node:path';
import type { DurableLow } from './durable-file.ts';
import { syncDirectory } from './durable-file.ts';

export class GroupCommit {
  /** Off only for a bulk load (seeding a benchmark): nothing is acknowledged on it. */
  readonly sync: boolean;
  readonly #dirty = new Set<DurableLow<unknown>>();
  /** New files written once elsewhere (inbox, seen) whose directory still needs its sync. */
  readonly #dirtyDirectories = new Set<string>();
  #waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  #running: Promise<void> | undefined;

  constructor({ sync = true }: { sync?: boolean } = {}) {
    this.sync = sync;
  }

  markDirty(file: DurableLow<unknown>): void {
    this.#dirty.add(file);
  }

  markDirectory(path: string): void {
    this.#dirtyDirectories.add(path);
  }

  /** Resolves when everything marked dirty before this call is durable. */
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
      const directories = new Set([...this.#dirtyDirectories, ...files.map((file) => dirname(file.adapter.path))]);
      this.#dirtyDirectories.clear();
      try {
        // Each write serialises its data synchronously when called, so later changes wait for the next round.
        await Promise.all(files.map((file) => file.adapter.write(file.data, this.sync)));
        if (this.sync) await Promise.all([...directories].map(syncDirectory));
        for (const waiter of waiting) waiter.resolve();
      } catch (error) {
        // The files stay dirty, so the next flush tries them again.
        for (const file of files) this.#dirty.add(file);
        for (const directory of directories) this.#dirtyDirectories.add(directory);
        for (const waiter of waiting) waiter.reject(error);
      }
    }
    this.#running = undefined;
  }
}
