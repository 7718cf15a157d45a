// A persistent map of strings too large to hold in memory (which settled
// chunk an order is in, which order an lp_orderid belongs to: one entry per
// order ever seen). Entries are spread over many small lowdb files by a hash
// of the key, so a lookup reads one small file and a change rewrites one
// small file, however large the map grows. A few files stay cached.
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadDurable, openDurable, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { OpenFiles } from './open-files.ts';

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
}

export class HashedMap {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #hexDigits: number;
  readonly #readOnly: boolean;
  /** Changed files stay open until they are written (OpenFiles keeps what is not clean). */
  readonly #open: OpenFiles<string, DurableLow<Bucket>>;

  constructor(
    dir: string,
    commit: GroupCommit,
    { hexDigits = 3, cachedFiles = 256, readOnly = false }: HashedMapOptions = {},
  ) {
    this.#dir = dir;
    this.#commit = commit;
    this.#hexDigits = hexDigits;
    this.#open = new OpenFiles(cachedFiles);
    this.#readOnly = readOnly;
  }

  async init(): Promise<void> {
    if (!this.#readOnly) await mkdir(this.#dir, { recursive: true, mode: 0o700 });
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

  /** Sets the entry unless there is one; returns the value now in the map. */
  async setIfAbsent(key: string, value: string): Promise<string> {
    let now = value;
    await this.#change(key, (entries) => {
      now = entries[key] ??= value;
    });
    return now;
  }

  #change(key: string, change: (entries: Record<string, string>) => void): Promise<void> {
    if (this.#readOnly) return Promise.reject(new Error('this ledger was opened read-only'));
    return this.#use(this.#bucketOf(key), (file) => {
      change(file.data.entries);
      this.#commit.markDirty(file as DurableLow<unknown>);
    });
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
    for (const name of names.filter((file) => /^[0-9a-f]+\.json$/.test(file)).sort()) {
      const entries = await this.#use(name.slice(0, -'.json'.length), (file) => Object.entries(file.data.entries));
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
