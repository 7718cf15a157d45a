// Group commit: lowdb rewrites a whole file on every write, so changes are gathered, each file touched is
// written once, then each directory touched is fsynced once; a flush resolves when a write including its
// change is durable. One round runs at a time and ends only when every write in it has ended, failed ones
// included, so that no round races an older write of the same file. A file whose write failed is written
// again by the next round.
import { dirname } from 'node:path';
import { nodeIo, type LedgerIo } from './ledger-io.ts';

/** What a round writes: a lowdb document (DurableLow), or a journal of changes (ChangeJournal). */
export interface CommitFile {
  /** Its directory is synced with the round, unless it syncs its own. */
  readonly path: string;
  /** Syncs its directory itself, when it must (a journal appended to needs none, only one it made new). */
  readonly syncsOwnDirectory?: boolean;
  /** Marks a change that the next write carries. */
  changed(): void;
  /** Takes what it holds now, synchronously, then writes it (fdatasync with sync). */
  write(sync: boolean): Promise<void>;
}

export class GroupCommit {
  /** Off only for a bulk load (seeding a benchmark): nothing is acknowledged on it. */
  readonly sync: boolean;
  /** The ledger's file I/O: node:fs, or a test's scheduled and failing one. */
  readonly io: LedgerIo;
  readonly #dirty = new Set<CommitFile>();
  /** New files written once elsewhere (inbox, seen) whose directory still needs its sync. */
  readonly #dirtyDirectories = new Set<string>();
  #waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  #running: Promise<void> | undefined;

  constructor({ sync = true, io = nodeIo }: { sync?: boolean; io?: LedgerIo } = {}) {
    this.sync = sync;
    this.io = io;
  }

  /** Records a change to the document: it is written by the next round, and not clean until then. */
  markDirty(file: CommitFile): void {
    file.changed();
    this.#dirty.add(file);
  }

  markDirectory(path: string): void {
    this.#dirtyDirectories.add(path);
  }

  /** Resolves when everything marked dirty before this call is durable. */
  flush(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (this.#running === undefined) this.#running = this.#drain();
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
      const directories = new Set([
        ...this.#dirtyDirectories,
        ...files.filter((file) => !file.syncsOwnDirectory).map((file) => dirname(file.path)),
      ]);
      this.#dirtyDirectories.clear();
      // Each write serialises its data synchronously when called, so later changes wait for the next round.
      const written = await Promise.allSettled(files.map((file) => file.write(this.sync)));
      let failure = written.find((result): result is PromiseRejectedResult => result.status === 'rejected')
        ?.reason as unknown;
      for (const [index, result] of written.entries()) if (result.status === 'rejected') this.#dirty.add(files[index]!);
      if (failure === undefined && this.sync) {
        const synced = await Promise.allSettled([...directories].map((directory) => this.io.syncDirectory(directory)));
        failure = synced.find((result): result is PromiseRejectedResult => result.status === 'rejected')
          ?.reason as unknown;
        // A rename not synced may not survive a crash: the files are written again with the next round.
        if (failure !== undefined) for (const file of files) this.#dirty.add(file);
      }
      if (failure === undefined) {
        for (const waiter of waiting) waiter.resolve();
      } else {
        for (const directory of directories) this.#dirtyDirectories.add(directory);
        for (const waiter of waiting) waiter.reject(failure);
      }
    }
    this.#running = undefined;
  }
}
