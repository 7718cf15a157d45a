// The group commit of the acknowledgement path: what arrives in one turn of the event loop is one batch, one
// new inbox file, fdatasynced with its directory before any of its deliveries is acknowledged. A few batches
// are written at once; beyond that, batches wait and grow.
import { join } from 'node:path';
import type { InboxEntry } from '../../delivery.ts';
import type { GroupCommit } from './group-commit.ts';

const MAX_INBOX_WRITES = 4;

interface BatchWrite {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class InboxBatches {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  /** The name of the next batch file. */
  readonly #name: () => string;
  /** A batch is on disk: its entries wait in the inbox from now on. */
  readonly #written: (segment: string, entries: InboxEntry[]) => void;
  #batch: InboxEntry[] = [];
  #batchWrite: BatchWrite | undefined;
  #scheduled = false;
  readonly #writes = new Set<Promise<void>>();

  constructor(
    dataDir: string,
    commit: GroupCommit,
    name: () => string,
    written: (segment: string, entries: InboxEntry[]) => void,
  ) {
    this.#dir = join(dataDir, 'inbox');
    this.#commit = commit;
    this.#name = name;
    this.#written = written;
  }

  /** Adds the entry to the batch forming now; resolves when its batch is on disk. */
  join(entry: InboxEntry): Promise<void> {
    this.#batch.push(entry);
    if (!this.#batchWrite) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.#batchWrite = { promise, resolve, reject };
    }
    this.#schedule();
    return this.#batchWrite.promise;
  }

  #schedule(): void {
    if (this.#scheduled || this.#writes.size >= MAX_INBOX_WRITES) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const batch = this.#batchWrite;
      if (this.#batch.length === 0 || !batch) return;
      const entries = this.#batch;
      this.#batch = [];
      this.#batchWrite = undefined;
      const segment = this.#name();
      const path = join(this.#dir, segment);
      // The batch's own file and directory sync, not the group commit: an
      // acknowledgement must not wait for order files being written meanwhile.
      const write = (async () => {
        await this.#commit.io.writeNewFile(path, JSON.stringify({ entries }), this.#commit.sync);
        if (this.#commit.sync) await this.#commit.io.syncDirectory(this.#dir);
      })().then(
        () => {
          this.#written(segment, entries);
          batch.resolve();
        },
        (error: unknown) => {
          void this.#commit.io.remove(path).catch(() => undefined);
          batch.reject(error);
        },
      );
      this.#writes.add(write);
      void write.finally(() => {
        this.#writes.delete(write);
        if (this.#batch.length > 0) this.#schedule();
      });
    });
  }

  /** Waits for every batch write under way. */
  async settled(): Promise<void> {
    while (this.#writes.size > 0 || this.#batch.length > 0) {
      await Promise.all(this.#writes);
      if (this.#batch.length > 0 && this.#writes.size === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
