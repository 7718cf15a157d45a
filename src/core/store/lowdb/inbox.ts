// The lowdb acknowledgement path and its dedupe memory: a new inbox/<seq>.json per group-committed batch,
// fdatasynced before any of it is acknowledged; inbox/retries.<seq>.json for deferred entries; and
// seen/<hour>.<seq>.json for consumed keys. No write grows with the backlog or the history, and no claim
// looks at the whole backlog. A file cut short was being written when the process died, so none of its
// deliveries was acknowledged: it is dropped.
import { join } from 'node:path';
import TinyQueue from 'tinyqueue';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import { replaceFile, unreadable } from './durable-file.ts';
import type { LedgerIo } from './ledger-io.ts';
import type { GroupCommit } from './group-commit.ts';
import { upgradeInboxEntry } from '../format/upgrade-records.ts';

interface SegmentFile {
  entries: InboxEntry[];
}
interface SeenFile {
  keys: Record<string, string>;
}
/**
 * One copy of an entry: its key and the batch file it came in. A shop's erasure may take a copy intake holds, and a
 * copy stored again under the same key then comes in a new file: a commit of the first must not consume the second.
 */
export interface EntryCopy {
  key: string;
  segment: string;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const hourOf = (iso: string) => iso.slice(0, 13);
const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);

/** Up to this many batches are written at once; beyond that, batches wait and grow. */
const MAX_INBOX_WRITES = 4;

/** Reads a file written once; undefined when it is torn (a crash while it was being written). */
async function readOnce<T>(io: LedgerIo, path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await io.readFile(path)) as T;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

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
  /** Entries a taker holds: out of #ready and #deferred until released or dropped. */
  readonly #leased = new Set<string>();
  /** Entries that may be taken now, in the order they arrived (or were let go). */
  readonly #ready = new Set<string>();
  /** Entries waiting for a time (their retry time, or a pause after a failure), earliest first. */
  readonly #deferred = new TinyQueue<{ at: number; key: string }>([], (a, b) => a.at - b.at);
  /** When each deferred entry may be taken: a heap item that does not match is stale and skipped. */
  readonly #waitingUntil = new Map<string, number>();
  /** Batch files whose entries are all consumed but which could not be removed yet. */
  readonly #unremoved = new Set<string>();
  /** The retry state of every deferred entry, as the retry files say it. */
  readonly #retries = new Map<string, EntryRetry>();
  /** Retry files on disk, oldest first, and how many were written since the last merge. */
  #retryFiles: string[] = [];
  #nextRetryFile = 1;
  #merging = false;
  #nextSegment = 1;
  #nextSeen = 1;
  #batch: InboxEntry[] = [];
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
    for (const name of (await this.#commit.io.readdir(this.#path('inbox')))
      .filter((file) => /^\d+\.json$/.test(file))
      .sort()) {
      this.#nextSegment = Math.max(this.#nextSegment, seqOf(name) + 1);
      const data = await readOnce<SegmentFile>(this.#commit.io, this.#path('inbox', name));
      if (!data || !Array.isArray(data.entries)) {
        torn++;
        if (!this.#readOnly) await this.#commit.io.remove(this.#path('inbox', name));
        continue;
      }
      this.#segments.set(name, new Set());
      for (const entry of data.entries) this.#hold(entry, name);
    }
    const oldest = this.#now().getTime() - dedupeWindowMs;
    for (const name of (await this.#commit.io.readdir(this.#path('seen'))).filter((file) => file.endsWith('.json'))) {
      this.#nextSeen = Math.max(this.#nextSeen, seqOf(name) + 1);
      const data = await readOnce<SeenFile>(this.#commit.io, this.#path('seen', name));
      // Dedupe only saves work (folding a delivery twice changes nothing): a torn file is skipped.
      if (!data || typeof data.keys !== 'object' || data.keys === null) continue;
      for (const [key, receivedAt] of Object.entries(data.keys)) {
        const at = Date.parse(receivedAt);
        if (at >= oldest) this.#seen.set(key, at);
      }
    }
    // retries.json: the single file of ledgers before retry files were written once each.
    const retryNames = (await this.#commit.io.readdir(this.#path('inbox'))).filter((file) =>
      /^retries(\.\d+)?\.json$/.test(file),
    );
    retryNames.sort((a, b) => seqOf(a) - seqOf(b));
    for (const name of retryNames) {
      if (name !== 'retries.json') this.#nextRetryFile = Math.max(this.#nextRetryFile, seqOf(name) + 1);
      let data: { retries?: Record<string, EntryRetry> } | undefined;
      try {
        data = await readOnce(this.#commit.io, this.#path('inbox', name));
      } catch (error) {
        throw unreadable(this.#path('inbox', name), error);
      }
      this.#retryFiles.push(name);
      // Retry times only pace the attempts: a damaged file costs an early retry, nothing more.
      if (!data || typeof data.retries !== 'object' || data.retries === null) continue;
      for (const [key, retry] of Object.entries(data.retries))
        if (this.#entries.has(key)) this.#retries.set(key, retry);
    }
    for (const [key, retry] of this.#retries) {
      this.#entries.get(key)!.entry.retry = retry;
      this.#queue(key);
    }
    return torn;
  }

  #hold(stored: InboxEntry, segment: string): void {
    const entry = upgradeInboxEntry(stored);
    this.#entries.set(entry.key, { entry, segment });
    this.#segments.get(segment)?.add(entry.key);
    for (const key of [entry.key, ...entry.aliases]) this.#seen.set(key, Date.parse(entry.receivedAt));
    this.#queue(entry.key);
  }

  /** Puts an entry nobody holds where a claim finds it: ready, or deferred until its retry time (and notBefore). */
  #queue(key: string, notBefore = 0): void {
    const entry = this.#entries.get(key)?.entry;
    if (!entry || this.#leased.has(key)) return;
    const at = Math.max(entry.retry ? Date.parse(entry.retry.retryAt) : 0, notBefore);
    if (at > this.#now().getTime()) {
      this.#ready.delete(key);
      this.#waitingUntil.set(key, at);
      this.#deferred.push({ at, key });
    } else {
      this.#waitingUntil.delete(key);
      this.#ready.add(key);
    }
  }

  /** Whether a deferred heap item still stands for its entry (not taken, dropped or deferred again since). */
  #stillDeferred({ at, key }: { at: number; key: string }): boolean {
    return this.#waitingUntil.get(key) === at && this.#entries.has(key) && !this.#leased.has(key);
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
        await this.#commit.io.writeNewFile(
          this.#path('inbox', segment),
          JSON.stringify({ entries }),
          this.#commit.sync,
        );
        if (this.#commit.sync) await this.#commit.io.syncDirectory(this.#path('inbox'));
      })().then(
        () => {
          this.#segments.set(segment, new Set());
          for (const entry of entries) this.#hold(entry, segment);
          batch.resolve();
          this.onAccepted();
        },
        (error: unknown) => {
          void this.#commit.io.remove(this.#path('inbox', segment)).catch(() => undefined);
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

  /** Entries due for translation, held for the caller until released or dropped; earliest received first. */
  claim(limit: number): InboxEntry[] {
    const now = this.#now().getTime();
    for (let top = this.#deferred.peek(); top && top.at <= now; top = this.#deferred.peek()) {
      this.#deferred.pop();
      if (!this.#stillDeferred(top)) continue;
      this.#waitingUntil.delete(top.key);
      this.#ready.add(top.key);
    }
    const claimed: InboxEntry[] = [];
    for (const key of this.#ready) {
      if (claimed.length >= limit) break;
      this.#ready.delete(key);
      const entry = this.#entries.get(key)?.entry;
      if (!entry) continue;
      this.#leased.add(key);
      claimed.push(entry);
    }
    return claimed;
  }

  /** Lets go of a held entry: it may be taken again at its retry time, or now, but not before notBefore. */
  release(key: string, notBefore = 0): void {
    if (!this.#leased.delete(key)) return;
    this.#queue(key, notBefore);
  }

  /** Lets go of these copies, if they are still the ones waiting (not a copy stored since, which another may hold). */
  releaseCopies(copies: EntryCopy[]): void {
    for (const copy of copies) if (this.#isCurrent(copy)) this.release(copy.key);
  }

  /** Whether intake holds the entry (for renewClaims). */
  isLeased(key: string): boolean {
    return this.#leased.has(key);
  }

  entry(key: string): InboxEntry | undefined {
    return this.#entries.get(key)?.entry;
  }

  /** The copy of the entry waiting now, if any. */
  copyOf(key: string): EntryCopy | undefined {
    const held = this.#entries.get(key);
    return held && { key, segment: held.segment };
  }

  #isCurrent(copy: EntryCopy): boolean {
    return this.#entries.get(copy.key)?.segment === copy.segment;
  }

  *all(): IterableIterator<InboxEntry> {
    for (const { entry } of this.#entries.values()) yield entry;
  }

  nextRetryAt(): number | undefined {
    for (let top = this.#deferred.peek(); top; top = this.#deferred.peek()) {
      if (this.#stillDeferred(top)) return top.at;
      this.#deferred.pop();
    }
    return undefined;
  }

  /**
   * Records that an entry waits for its platform, in a small new retry file:
   * durable with the next flush. A deferral never rewrites the others' state,
   * however many entries wait.
   */
  async defer(key: string, retry: EntryRetry): Promise<void> {
    const held = this.#entries.get(key);
    if (!held) return;
    held.entry.retry = retry;
    this.#retries.set(key, retry);
    await this.#writeRetryFile({ [key]: retry });
  }

  async #writeRetryFile(retries: Record<string, EntryRetry>): Promise<string> {
    const name = `retries.${pad(this.#nextRetryFile++, 12)}.json`;
    await this.#commit.io.writeNewFile(this.#path('inbox', name), JSON.stringify({ retries }), this.#commit.sync);
    this.#commit.markDirectory(this.#path('inbox'));
    this.#retryFiles.push(name);
    return name;
  }

  /**
   * Once the retry files outnumber the entries waiting, their state goes into
   * one new file and the older ones are removed (after the new one is
   * durable): each deferral costs a small write, and merging is paid for by
   * the deferrals before it.
   */
  async mergeRetryFiles(): Promise<void> {
    if (this.#merging || this.#readOnly || this.#retryFiles.length <= Math.max(64, this.#retries.size)) return;
    this.#merging = true;
    try {
      const older = [...this.#retryFiles];
      const merged = await this.#writeRetryFile(Object.fromEntries(this.#retries));
      await this.#commit.flush();
      for (const name of older) await this.#commit.io.remove(this.#path('inbox', name));
      this.#retryFiles = this.#retryFiles.filter((name) => name === merged || !older.includes(name));
    } finally {
      this.#merging = false;
    }
  }

  /**
   * Writes the keys of consumed entries to a new seen file (durable with the
   * next flush). Call before the flush that commits what the entries became.
   */
  async recordConsumed(copies: EntryCopy[]): Promise<void> {
    const byHour = new Map<string, Record<string, string>>();
    for (const copy of copies) {
      const entry = this.#isCurrent(copy) ? this.#entries.get(copy.key)?.entry : undefined;
      if (!entry) continue;
      const hour = hourOf(entry.receivedAt);
      const seen = byHour.get(hour) ?? {};
      for (const name of [entry.key, ...entry.aliases]) seen[name] = entry.receivedAt;
      byHour.set(hour, seen);
    }
    for (const [hour, seen] of byHour) {
      await this.#commit.io.writeNewFile(
        this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`),
        JSON.stringify({ keys: seen }),
        this.#commit.sync,
      );
    }
    if (byHour.size > 0) this.#commit.markDirectory(this.#path('seen'));
  }

  /**
   * After what the entries became is durable: forgets them, and deletes batch
   * files with nothing left. A file that cannot be deleted now is tried again
   * with the next drop; should the process stop first, its entries are folded
   * once more at start, which changes nothing. A copy stored since under the same key stays.
   */
  async drop(copies: EntryCopy[]): Promise<void> {
    const emptied: string[] = [...this.#unremoved];
    for (const copy of copies) {
      const { key } = copy;
      const held = this.#entries.get(key);
      if (!held || !this.#isCurrent(copy)) continue;
      this.#entries.delete(key);
      this.#leased.delete(key);
      this.#ready.delete(key);
      this.#waitingUntil.delete(key);
      // Its retry files are stale now: they are skipped at start, and left out of the next merge.
      this.#retries.delete(key);
      const remaining = this.#segments.get(held.segment);
      remaining?.delete(key);
      if (remaining?.size === 0) emptied.push(held.segment);
    }
    for (const segment of emptied) {
      this.#segments.delete(segment);
      try {
        await this.#commit.io.remove(this.#path('inbox', segment));
        this.#unremoved.delete(segment);
      } catch {
        this.#unremoved.add(segment);
      }
    }
  }

  /**
   * Rewrites the batch files holding entries that `change` alters or drops
   * (erasure): each file is replaced atomically, and durable after the next
   * flush. What is in memory follows each file only once that file is
   * written: should a write fail, the entries stay as the file still has
   * them, and the next rewrite (the erasure run again) finds them there.
   */
  async rewrite(change: (entry: InboxEntry) => InboxEntry | null | undefined): Promise<number> {
    let changed = 0;
    for (const [segment, keys] of this.#segments) {
      let touched = false;
      const kept: InboxEntry[] = [];
      const dropped: string[] = [];
      const altered: InboxEntry[] = [];
      const path = this.#path('inbox', segment);
      const file = await readOnce<SegmentFile>(this.#commit.io, path);
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
        if (result === null) dropped.push(entry.key);
        else {
          altered.push(result);
          kept.push(result);
        }
      }
      if (!touched) continue;
      if (kept.length === 0) await this.#commit.io.remove(path);
      else await replaceFile(this.#commit.io, path, JSON.stringify({ entries: kept }), this.#commit.sync);
      this.#commit.markDirectory(this.#path('inbox'));
      changed += dropped.length + altered.length;
      for (const key of dropped) {
        this.#entries.delete(key);
        // Held by intake or not: a later copy under the same key (its keys forgotten with its shop) must be taken.
        this.#leased.delete(key);
        this.#ready.delete(key);
        this.#waitingUntil.delete(key);
        keys.delete(key);
      }
      for (const entry of altered) if (this.#entries.has(entry.key)) this.#entries.set(entry.key, { entry, segment });
      // Emptied, or its last entries consumed while it was written (drop could not remove what was then renamed in).
      if (kept.length === 0) this.#segments.delete(segment);
      else if (keys.size === 0) {
        this.#segments.delete(segment);
        this.#unremoved.add(segment);
      }
    }
    return changed;
  }

  /** Forgets seen keys received before `before`, and merges each hour that is over into one file. */
  /** The keys and aliases of the entries still waiting: a copy of one under a new id must stay a duplicate. */
  #waitingKeys(): Set<string> {
    const waiting = new Set<string>();
    for (const { entry } of this.#entries.values()) for (const key of [entry.key, ...entry.aliases]) waiting.add(key);
    return waiting;
  }

  async pruneSeen(before: Date): Promise<void> {
    const oldest = before.getTime();
    const waiting = this.#waitingKeys();
    for (const [key, at] of this.#seen) if (at < oldest && !waiting.has(key)) this.#seen.delete(key);
    const cutoff = hourOf(before.toISOString());
    const currentHour = hourOf(this.#now().toISOString());
    const byHour = new Map<string, string[]>();
    for (const name of await this.#commit.io.readdir(this.#path('seen'))) {
      if (!/^\d{4}-\d\d-\d\dT\d\d\.\d+\.json$/.test(name)) continue;
      const hour = name.slice(0, 13);
      byHour.set(hour, [...(byHour.get(hour) ?? []), name]);
    }
    for (const [hour, names] of byHour) {
      if (hour < cutoff) {
        await Promise.all(names.map((name) => this.#commit.io.remove(this.#path('seen', name))));
      } else if (hour < currentHour && names.length > 1) {
        const keys: Record<string, string> = {};
        for (const name of names)
          Object.assign(keys, (await readOnce<SeenFile>(this.#commit.io, this.#path('seen', name)))?.keys ?? {});
        await this.#commit.io.writeNewFile(
          this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`),
          JSON.stringify({ keys }),
          this.#commit.sync,
        );
        this.#commit.markDirectory(this.#path('seen'));
        // The merged file is durable before the ones it replaces go.
        await this.#commit.flush();
        await Promise.all(names.map((name) => this.#commit.io.remove(this.#path('seen', name))));
      }
    }
  }

  /**
   * Forgets the seen keys that start with `prefix` (a shop's, at its
   * erasure), in memory and in each file: a file that held one is written
   * again without it, durably, before the old one goes. The keys and aliases
   * of entries still waiting stay (another store's whose name this one
   * starts, example.com:8443): a copy of one under a new id would pass as new
   * and be folded a second time. The files hold consumed keys alone; a
   * waiting entry's are read from its batch file at start.
   */
  async forgetSeen(prefix: string): Promise<void> {
    const waiting = this.#waitingKeys();
    for (const key of [...this.#seen.keys()]) if (key.startsWith(prefix) && !waiting.has(key)) this.#seen.delete(key);
    for (const name of await this.#commit.io.readdir(this.#path('seen'))) {
      if (!/^\d{4}-\d\d-\d\dT\d\d\.\d+\.json$/.test(name)) continue;
      const keys = (await readOnce<SeenFile>(this.#commit.io, this.#path('seen', name)))?.keys ?? {};
      const kept = Object.entries(keys).filter(([key]) => !key.startsWith(prefix));
      if (kept.length === Object.keys(keys).length) continue;
      if (kept.length > 0) {
        await this.#commit.io.writeNewFile(
          this.#path('seen', `${name.slice(0, 13)}.${pad(this.#nextSeen++, 9)}.json`),
          JSON.stringify({ keys: Object.fromEntries(kept) }),
          this.#commit.sync,
        );
        this.#commit.markDirectory(this.#path('seen'));
        await this.#commit.flush();
      }
      await this.#commit.io.remove(this.#path('seen', name));
      this.#commit.markDirectory(this.#path('seen'));
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
    for (const [hour, seen] of byHour)
      await this.#commit.io.writeNewFile(
        this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`),
        JSON.stringify({ keys: seen }),
        this.#commit.sync,
      );
    this.#commit.markDirectory(this.#path('seen'));
  }

  /** Adds entries moved in from another store, as one batch file. */
  async importEntries(entries: InboxEntry[]): Promise<void> {
    const fresh = entries.filter((entry) => !this.#entries.has(entry.key));
    if (fresh.length === 0) return;
    const segment = `${pad(this.#nextSegment++, 12)}.json`;
    await this.#commit.io.writeNewFile(
      this.#path('inbox', segment),
      JSON.stringify({ entries: fresh }),
      this.#commit.sync,
    );
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
}
