// A persistent map of strings too large for memory (which chunk a settled order is in, which order an
// lp_orderid belongs to: one entry per order ever seen), spread over many small lowdb files by a hash of the
// key, so a lookup reads one small file and a change rewrites one, however large the map grows. With a
// journal (the lp_orderid registry), a change is a line, and the files are written later (change-journal.ts).
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangeJournal, JOURNAL_FILE, type JournalEntry } from './change-journal.ts';
import { loadDurable, openDurable, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { OpenFiles } from './open-files.ts';

const BUCKET_FILE = /^[0-9a-f]+\.json$/;

/** Files read at once by getMany. */
const READ_CONCURRENCY = 16;

interface Bucket {
  entries: Record<string, string>;
}

export interface HashedMapOptions {
  /** Hex digits of the hash that name a file: 3 gives 4,096 files. */
  hexDigits?: number;
  cachedFiles?: number;
  readOnly?: boolean;
  /** Changes go to a journal, and files are written once it holds this many characters. */
  journalLimit?: number;
}

export class HashedMap {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #hexDigits: number;
  readonly #readOnly: boolean;
  /** Changed files stay open until they are written (OpenFiles keeps what is not clean). */
  readonly #open: OpenFiles<string, DurableLow<Bucket>>;
  readonly journal: ChangeJournal<string> | undefined;
  /** With a journal: the files changed since they were last written, by name. */
  readonly #touched = new Map<string, DurableLow<Bucket>>();
  /**
   * The files that may be on disk, by name, from a listing at init and every file changed since (noted before its
   * write, so never fewer than there are): a file not among them is opened empty, without a read. A new
   * lp_orderid's file usually is not there yet on a young ledger, and each read that found nothing cost a
   * thread-pool round trip or four and an error (3.5% of a drain, --cpu-prof). Undefined when read-only: another
   * process writes the files then.
   */
  #onDisk: Set<string> | undefined;

  constructor(
    dir: string,
    commit: GroupCommit,
    { hexDigits = 3, cachedFiles = 256, readOnly = false, journalLimit }: HashedMapOptions = {},
  ) {
    this.#dir = dir;
    this.#commit = commit;
    this.#hexDigits = hexDigits;
    this.#open = new OpenFiles(cachedFiles);
    this.#readOnly = readOnly;
    this.journal =
      journalLimit === undefined
        ? undefined
        : new ChangeJournal<string>(commit, {
            path: join(dir, JOURNAL_FILE),
            limit: journalLimit,
            // A key noted is in a file changed since the files were written, and such a file stays open.
            current: (key) => this.#touched.get(this.#bucketOf(key))?.data.entries[key],
            writeBase: (sync) => this.#writeTouched(sync),
          });
  }

  async init(): Promise<void> {
    if (!this.#readOnly) {
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      const names = await this.#commit.io.readdir(this.#dir);
      this.#onDisk = new Set(names.filter((name) => BUCKET_FILE.test(name)).map((name) => name.slice(0, -5)));
    }
    await this.journal?.replay(
      (entry: JournalEntry<string>) =>
        this.#apply(entry.key, (entries) => {
          if ('gone' in entry) delete entries[entry.key];
          else entries[entry.key] = entry.value;
        }),
      this.#readOnly,
    );
  }

  #bucketOf(key: string): string {
    return createHash('sha1').update(key).digest('hex').slice(0, this.#hexDigits);
  }

  #use<R>(bucket: string, fn: (file: DurableLow<Bucket>) => R): Promise<R> {
    return this.#open.use(
      bucket,
      async () => {
        const file = openDurable<Bucket>(this.#commit.io, join(this.#dir, `${bucket}.json`), { entries: {} }, [
          'entries',
        ]);
        if (this.#onDisk?.has(bucket) === false) return file;
        await loadDurable(file, (data) => typeof data?.entries === 'object' && data.entries !== null);
        return file;
      },
      fn,
    );
  }

  get(key: string): Promise<string | undefined> {
    return this.#use(this.#bucketOf(key), (file) => file.data.entries[key]);
  }

  /**
   * Many lookups at once (settling thousands of orders): each file read once,
   * a few at a time, instead of one read per key in turn.
   */
  async getMany(keys: readonly string[]): Promise<Map<string, string | undefined>> {
    const byBucket = new Map<string, string[]>();
    for (const key of keys) {
      const bucket = this.#bucketOf(key);
      const list = byBucket.get(bucket);
      if (list) list.push(key);
      else byBucket.set(bucket, [key]);
    }
    const found = new Map<string, string | undefined>();
    const buckets = [...byBucket.entries()];
    const readNext = async (): Promise<void> => {
      for (let next = buckets.pop(); next; next = buckets.pop()) {
        const [bucket, wanted] = next;
        await this.#use(bucket, (file) => {
          for (const key of wanted) found.set(key, file.data.entries[key]);
        });
      }
    };
    await Promise.all(Array.from({ length: READ_CONCURRENCY }, readNext));
    return found;
  }

  /** Sets the entry; durable with the next flush of the group commit. */
  async set(key: string, value: string): Promise<void> {
    await this.#change(key, (entries) => {
      entries[key] = value;
    });
  }

  async delete(key: string): Promise<void> {
    await this.#change(key, (entries) => {
      delete entries[key];
    });
  }

  /** Sets the entry unless there is one (an entry there already is not written again); returns the value now in the map. */
  async setIfAbsent(key: string, value: string): Promise<string> {
    let now = value;
    await this.#change(key, (entries) => {
      if (entries[key] !== undefined) {
        now = entries[key];
        return false;
      }
      entries[key] = value;
      return true;
    });
    return now;
  }

  /** Whether a change to the entry may not be on disk yet (without a journal, taken as so: a flush tells). */
  isPending(key: string): boolean {
    return this.journal ? this.journal.isPending(key) : true;
  }

  #change(key: string, change: (entries: Record<string, string>) => boolean | void): Promise<void> {
    if (this.#readOnly) return Promise.reject(new Error('this ledger was opened read-only'));
    return this.#apply(key, change, true);
  }

  /**
   * The change made in memory: with a journal, the file waits for the journal
   * to grow; else the next round writes it. `change` returning false changed
   * nothing. The journal notes the key in the same turn as the change (never
   * during a replay): a round that wrote the files in between would find the
   * file no longer changed and journal the key as gone.
   */
  #apply(key: string, change: (entries: Record<string, string>) => boolean | void, note = false): Promise<void> {
    const bucket = this.#bucketOf(key);
    return this.#use(bucket, (file) => {
      if (change(file.data.entries) === false) return;
      // Written from now on (by the next round, or when the journal is emptied): read back from disk once let go.
      this.#onDisk?.add(bucket);
      if (!this.journal) return this.#commit.markDirty(file as DurableLow<unknown>);
      // Not clean until written, so the cache keeps it open.
      file.changed();
      this.#touched.set(bucket, file);
      if (note) this.journal.note(key);
    });
  }

  /** The files changed since they were last written, each as it is now (the journal is emptied after). */
  async #writeTouched(sync: boolean): Promise<() => void> {
    const touched = [...this.#touched];
    this.#touched.clear();
    const again = () => {
      for (const [bucket, file] of touched) if (!this.#touched.has(bucket)) this.#touched.set(bucket, file);
    };
    const written = await Promise.allSettled(touched.map(([, file]) => file.write(sync)));
    const failed = written.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) {
      again();
      throw failed.reason;
    }
    return again;
  }

  /** Every entry, file by file: for moving a ledger and for erasure, never on a hot path. */
  async *entries(): AsyncGenerator<[string, string]> {
    let names: string[];
    try {
      names = await this.#commit.io.readdir(this.#dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const buckets = new Set(names.filter((file) => BUCKET_FILE.test(file)).map((file) => file.slice(0, -5)));
    // With a journal, files changed since the files were written may not be on disk yet.
    for (const bucket of this.#touched.keys()) buckets.add(bucket);
    for (const bucket of [...buckets].sort()) {
      const entries = await this.#use(bucket, (file) => Object.entries(file.data.entries));
      yield* entries;
    }
  }

  /** Deletes every entry whose value passes the test: a full scan, for erasing a shop. */
  async deleteWhere(test: (key: string, value: string) => boolean): Promise<number> {
    let deleted = 0;
    for await (const [key, value] of this.entries()) {
      if (!test(key, value)) continue;
      await this.delete(key);
      deleted++;
    }
    return deleted;
  }
}
