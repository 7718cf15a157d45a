// The acknowledgement path of the lowdb backend, and what it remembers for
// dedupe.
//   inbox/<seq>.json        one new file per group-committed batch of accepted
//                           deliveries, written once and fdatasynced (with its
//                           directory) before any of them is acknowledged;
//                           deleted once every entry in it is consumed
//   inbox/retries.json      entries whose platform did not answer yet
//   seen/<hour>.<seq>.json  keys of consumed deliveries, one new file per
//                           consumption, merged per hour once the hour is
//                           over, dropped after the dedupe window
// No write grows with the backlog or the history: a batch is one small new
// file. A file cut short was being written when the process died, so none of
// its deliveries was acknowledged: it is dropped (never by a read-only open).
import { readdir, readFile as readText, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import { LedgerDamagedError } from '../ledger-store.ts';
import { openDurable, replaceFile, syncDirectory, writeNewFile, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';

interface SegmentFile {
  entries: InboxEntry[];
}
interface SeenFile {
  keys: Record<string, string>;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const hourOf = (iso: string) => iso.slice(0, 13);
const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);

/** Up to this many batches are written at once; beyond that, batches wait and grow. */
const MAX_INBOX_WRITES = 4;

/** Reads a file written once; undefined when it is torn (a crash while it was being written). */
async function readOnce<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readText(path, 'utf8')) as T;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

export interface InboxOptions {
  readOnly?: boolean;
  now?: () => Date;
}

export class Inbox {
  readonly #dataDir: string;
  readonly #commit: GroupCommit;
  readonly #readOnly: boolean;
  readonly #now: () => Date;
  /** Entries on disk not yet consumed, by key, with the segment holding them. */
  readonly #entries = new Map<string, { entry: InboxEntry; segment: string }>();
  readonly #segments = new Map<string, Set<string>>();
  /** Keys (and aliases) accepted, with when: for dedupe. */
  readonly #seen = new Map<string, number>();
  /** Keys in a batch not yet on disk, with that batch's write: a duplicate waits for it. */
  readonly #pending = new Map<string, Promise<void>>();
  readonly #leased = new Set<string>();
  #retries!: DurableLow<{ retries: Record<string, EntryRetry> }>;
  #nextSegment = 1;
  #nextSeen = 1;
  #batch: InboxEntry[] = [];
  #batchWaiters: Waiter[] = [];
  #batchWrite: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  #batchScheduled = false;
  readonly #writes = new Set<Promise<void>>();
  onAccepted: () => void = () => undefined;

  constructor(dataDir: string, commit: GroupCommit, { readOnly = false, now = () => new Date() }: InboxOptions = {}) {
    this.#dataDir = dataDir;
    this.#commit = commit;
    this.#readOnly = readOnly;
    this.#now = now;
  }

  #path(...parts: string[]) {
    return join(this.#dataDir, ...parts);
  }

  /** Loads what is on disk; returns how many torn batch files were found. */
  async open(dedupeWindowMs: number): Promise<number> {
    let torn = 0;
    for (const name of (await readdir(this.#path('inbox'))).filter((file) => /^\d+\.json$/.test(file)).sort()) {
      this.#nextSegment = Math.max(this.#nextSegment, seqOf(name) + 1);
      const data = await readOnce<SegmentFile>(this.#path('inbox', name));
      if (!data || !Array.isArray(data.entries)) {
        torn++;
        if (!this.#readOnly) await rm(this.#path('inbox', name), { force: true });
        continue;
      }
      this.#segments.set(name, new Set());
      for (const entry of data.entries) this.#hold(entry, name);
    }
    const oldest = this.#now().getTime() - dedupeWindowMs;
    for (const name of (await readdir(this.#path('seen'))).filter((file) => file.endsWith('.json'))) {
      this.#nextSeen = Math.max(this.#nextSeen, seqOf(name) + 1);
      const data = await readOnce<SeenFile>(this.#path('seen', name));
      // Dedupe only saves work (folding a delivery twice changes nothing): a torn file is skipped.
      if (!data || typeof data.keys !== 'object' || data.keys === null) continue;
      for (const [key, receivedAt] of Object.entries(data.keys)) {
        const at = Date.parse(receivedAt);
        if (at >= oldest) this.#seen.set(key, at);
      }
    }
    this.#retries = openDurable(this.#path('inbox', 'retries.json'), { retries: {} });
    try {
      const data = await this.#retries.adapter.read();
      if (data && typeof data.retries === 'object' && data.retries !== null) this.#retries.data = data;
    } catch (error) {
      // Retry times only pace the attempts: a damaged file costs an early retry, nothing more.
      if (!(error instanceof SyntaxError)) throw new LedgerDamagedError(this.#retries.adapter.path, (error as Error).message);
    }
    for (const [key, retry] of Object.entries(this.#retries.data.retries)) {
      const held = this.#entries.get(key);
      if (held) held.entry.retry = retry;
      else delete this.#retries.data.retries[key];
    }
    return torn;
  }

  #hold(entry: InboxEntry, segment: string): void {
    entry.aliases ??= [];
    entry.retry ??= null;
    this.#entries.set(entry.key, { entry, segment });
    this.#segments.get(segment)?.add(entry.key);
    for (const key of [entry.key, ...entry.aliases]) this.#seen.set(key, Date.parse(entry.receivedAt));
  }

  get size(): number {
    return this.#entries.size;
  }

  hasSeen(key: string): boolean {
    return this.#seen.has(key) || this.#pending.has(key);
  }

  /**
   * Durably accepts an entry. A duplicate is answered only once the first
   * copy is on disk; if that write failed, this copy is tried in its place.
   */
  async accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'> {
    if (this.#readOnly) throw new Error('this ledger was opened read-only');
    const keys = [entry.key, ...entry.aliases];
    for (;;) {
      const pending = keys.map((key) => this.#pending.get(key)).find(Boolean);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      if (keys.some((key) => this.#seen.has(key))) return 'duplicate';
      break;
    }
    const write = this.#join(entry);
    for (const key of keys) this.#pending.set(key, write);
    try {
      await write;
      return 'accepted';
    } finally {
      for (const key of keys) if (this.#pending.get(key) === write) this.#pending.delete(key);
    }
  }

  /** Adds the entry to the batch forming now; resolves when its batch is on disk. */
  #join(entry: InboxEntry): Promise<void> {
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

  /**
   * Group commit of the acknowledgement path: what arrives in one turn of the
   * event loop is one batch, one new file, fdatasynced with its directory.
   */
  #schedule(): void {
    if (this.#batchScheduled || this.#writes.size >= MAX_INBOX_WRITES) return;
    this.#batchScheduled = true;
    setImmediate(() => {
      this.#batchScheduled = false;
      const batch = this.#batchWrite;
      if (this.#batch.length === 0 || !batch) return;
      const entries = this.#batch;
      this.#batch = [];
      this.#batchWrite = undefined;
      const segment = `${pad(this.#nextSegment++, 12)}.json`;
      // The batch's own file and directory sync, not the group commit: an
      // acknowledgement must not wait for order files being written meanwhile.
      const write = (async () => {
        await writeNewFile(this.#path('inbox', segment), JSON.stringify({ entries }), this.#commit.sync);
        if (this.#commit.sync) await syncDirectory(this.#path('inbox'));
      })().then(
        () => {
          this.#segments.set(segment, new Set());
          for (const entry of entries) this.#hold(entry, segment);
          batch.resolve();
          this.onAccepted();
        },
        (error: unknown) => {
          void rm(this.#path('inbox', segment), { force: true }).catch(() => undefined);
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

  /** Entries due for translation, leased to the caller; earliest received first. */
  claim(limit: number): InboxEntry[] {
    const now = this.#now().getTime();
    const claimed: InboxEntry[] = [];
    for (const { entry } of this.#entries.values()) {
      if (claimed.length >= limit) break;
      if (this.#leased.has(entry.key)) continue;
      if (entry.retry && Date.parse(entry.retry.retryAt) > now) continue;
      this.#leased.add(entry.key);
      claimed.push(entry);
    }
    return claimed;
  }

  release(key: string): void {
    this.#leased.delete(key);
  }

  entry(key: string): InboxEntry | undefined {
    return this.#entries.get(key)?.entry;
  }

  *all(): IterableIterator<InboxEntry> {
    for (const { entry } of this.#entries.values()) yield entry;
  }

  nextRetryAt(): number | undefined {
    let earliest: number | undefined;
    for (const { entry } of this.#entries.values()) {
      if (!entry.retry || this.#leased.has(entry.key)) continue;
      const at = Date.parse(entry.retry.retryAt);
      earliest = earliest === undefined ? at : Math.min(earliest, at);
    }
    return earliest;
  }

  /** Records that an entry waits for its platform; durable with the next flush. */
  defer(key: string, retry: EntryRetry): void {
    const held = this.#entries.get(key);
    if (!held) return;
    held.entry.retry = retry;
    this.#retries.data.retries[key] = retry;
    this.#commit.markDirty(this.#retries as DurableLow<unknown>);
  }

  /**
   * Writes the keys of consumed entries to a new seen file (durable with the
   * next flush). Call before the flush that commits what the entries became.
   */
  async recordConsumed(keys: string[]): Promise<void> {
    const byHour = new Map<string, Record<string, string>>();
    for (const key of keys) {
      const entry = this.#entries.get(key)?.entry;
      if (!entry) continue;
      const hour = hourOf(entry.receivedAt);
      const seen = byHour.get(hour) ?? {};
      for (const name of [entry.key, ...entry.aliases]) seen[name] = entry.receivedAt;
      byHour.set(hour, seen);
    }
    for (const [hour, seen] of byHour) {
      await writeNewFile(this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`), JSON.stringify({ keys: seen }), this.#commit.sync);
    }
    if (byHour.size > 0) this.#commit.markDirectory(this.#path('seen'));
  }

  /** After what the entries became is durable: forgets them, and deletes batch files with nothing left. */
  async drop(keys: string[]): Promise<void> {
    let retriesChanged = false;
    const emptied: string[] = [];
    for (const key of keys) {
      const held = this.#entries.get(key);
      if (!held) continue;
      this.#entries.delete(key);
      this.#leased.delete(key);
      if (this.#retries.data.retries[key]) {
        delete this.#retries.data.retries[key];
        retriesChanged = true;
      }
      const remaining = this.#segments.get(held.segment);
      remaining?.delete(key);
      if (remaining?.size === 0) emptied.push(held.segment);
    }
    if (retriesChanged) this.#commit.markDirty(this.#retries as DurableLow<unknown>);
    for (const segment of emptied) {
      this.#segments.delete(segment);
      await rm(this.#path('inbox', segment), { force: true });
    }
  }

  /**
   * Rewrites the batch files holding entries that `change` alters or drops
   * (erasure): each file is replaced atomically, and durable after the next flush.
   */
  async rewrite(change: (entry: InboxEntry) => InboxEntry | null | undefined): Promise<number> {
    let changed = 0;
    for (const [segment, keys] of this.#segments) {
      let touched = false;
      const kept: InboxEntry[] = [];
      const path = this.#path('inbox', segment);
      const file = await readOnce<SegmentFile>(path);
      for (const entry of file?.entries ?? []) {
        if (!keys.has(entry.key)) {
          // Consumed already: its file outlived it only because others in it were not.
          touched = true;
          continue;
        }
        const result = change(this.#entries.get(entry.key)?.entry ?? entry);
        if (result === undefined) {
          kept.push(entry);
          continue;
        }
        touched = true;
        changed++;
        if (result === null) {
          this.#entries.delete(entry.key);
          keys.delete(entry.key);
        } else {
          this.#entries.set(entry.key, { entry: result, segment });
          kept.push(result);
        }
      }
      if (!touched) continue;
      if (kept.length === 0) {
        this.#segments.delete(segment);
        await rm(path, { force: true });
      } else {
        await replaceFile(path, JSON.stringify({ entries: kept }), this.#commit.sync);
      }
      this.#commit.markDirectory(this.#path('inbox'));
    }
    return changed;
  }

  /** Forgets seen keys received before `before`, and merges each hour that is over into one file. */
  async pruneSeen(before: Date): Promise<void> {
    const oldest = before.getTime();
    for (const [key, at] of this.#seen) if (at < oldest && !this.#entries.has(key)) this.#seen.delete(key);
    const cutoff = hourOf(before.toISOString());
    const currentHour = hourOf(this.#now().toISOString());
    const byHour = new Map<string, string[]>();
    for (const name of await readdir(this.#path('seen'))) {
      if (!/^\d{4}-\d\d-\d\dT\d\d\.\d+\.json$/.test(name)) continue;
      const hour = name.slice(0, 13);
      byHour.set(hour, [...(byHour.get(hour) ?? []), name]);
    }
    for (const [hour, names] of byHour) {
      if (hour < cutoff) {
        await Promise.all(names.map((name) => rm(this.#path('seen', name), { force: true })));
      } else if (hour < currentHour && names.length > 1) {
        const keys: Record<string, string> = {};
        for (const name of names) Object.assign(keys, (await readOnce<SeenFile>(this.#path('seen', name)))?.keys ?? {});
        await writeNewFile(this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`), JSON.stringify({ keys }), this.#commit.sync);
        this.#commit.markDirectory(this.#path('seen'));
        // The merged file is durable before the ones it replaces go.
        await this.#commit.flush();
        await Promise.all(names.map((name) => rm(this.#path('seen', name), { force: true })));
      }
    }
  }

  *seenKeys(): IterableIterator<[string, string]> {
    for (const [key, at] of this.#seen) yield [key, new Date(at).toISOString()];
  }

  /** Remembers a key as seen (moving a ledger in): durable with the next seen file written. */
  async importSeen(entries: Array<[string, string]>): Promise<void> {
    const byHour = new Map<string, Record<string, string>>();
    for (const [key, receivedAt] of entries) {
      this.#seen.set(key, Date.parse(receivedAt));
      const seen = byHour.get(hourOf(receivedAt)) ?? {};
      seen[key] = receivedAt;
      byHour.set(hourOf(receivedAt), seen);
    }
    for (const [hour, seen] of byHour) await writeNewFile(this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`), JSON.stringify({ keys: seen }), this.#commit.sync);
    this.#commit.markDirectory(this.#path('seen'));
  }

  /** Adds entries moved in from another store, as one batch file. */
  async importEntries(entries: InboxEntry[]): Promise<void> {
    const fresh = entries.filter((entry) => !this.#entries.has(entry.key));
    if (fresh.length === 0) return;
    const segment = `${pad(this.#nextSegment++, 12)}.json`;
    await writeNewFile(this.#path('inbox', segment), JSON.stringify({ entries: fresh }), this.#commit.sync);
    this.#commit.markDirectory(this.#path('inbox'));
    this.#segments.set(segment, new Set());
    for (const entry of fresh) this.#hold(entry, segment);
  }

  /** Waits for every batch write under way. */
  async settled(): Promise<void> {
    while (this.#writes.size > 0 || this.#batch.length > 0) {
      await Promise.all(this.#writes);
      if (this.#batch.length > 0 && this.#writes.size === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  files(): string[] {
    return [this.#retries.adapter.path];
  }
}
