// The lowdb inbox: the entries acknowledged and not yet consumed, by key, with the batch file holding each.
// Batches are written by inbox-batches.ts, who may take which entry by entry-holds.ts, deferrals by
// retry-files.ts, and the keys of consumed entries by seen-keys.ts. No write grows with the backlog or the
// history, and no claim looks at the whole backlog. A file cut short was being written when the process died,
// so none of its deliveries was acknowledged: it is dropped.
import { join } from 'node:path';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import { replaceFile } from './durable-file.ts';
import { EntryHolds } from './entry-holds.ts';
import { InboxBatches } from './inbox-batches.ts';
import type { GroupCommit } from './group-commit.ts';
import { upgradeInboxEntry } from '../format/upgrade-records.ts';
import { readOnce } from './read-once.ts';
import { RetryFiles } from './retry-files.ts';
import { SeenKeys } from './seen-keys.ts';

interface SegmentFile {
  entries: InboxEntry[];
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
const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);

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
  /** Keys (and aliases) accepted: for dedupe. */
  readonly #seen: SeenKeys;
  /** Keys in a batch not yet on disk, with that batch's write: a duplicate waits for it. */
  readonly #pending = new Map<string, Promise<void>>();
  /** Who may take which entry, and when. */
  readonly #holds: EntryHolds;
  /** Batch files whose entries are all consumed but which could not be removed yet. */
  readonly #unremoved = new Set<string>();
  readonly #retries: RetryFiles;
  #nextSegment = 1;
  readonly #batches: InboxBatches;
  onAccepted: () => void = () => undefined;

  constructor(dataDir: string, commit: GroupCommit, { readOnly = false, now = () => new Date() }: InboxOptions = {}) {
    this.#dataDir = dataDir;
    this.#commit = commit;
    this.#readOnly = readOnly;
    this.#now = now;
    this.#seen = new SeenKeys(dataDir, commit, now);
    this.#holds = new EntryHolds(now, (key) => this.#entries.has(key));
    this.#batches = new InboxBatches(
      dataDir,
      commit,
      () => this.#nextSegmentName(),
      (segment, entries) => {
        this.#segments.set(segment, new Set());
        for (const entry of entries) this.#hold(entry, segment);
        this.onAccepted();
      },
    );
    this.#retries = new RetryFiles(dataDir, commit, readOnly);
  }

  #nextSegmentName(): string {
    return `${pad(this.#nextSegment++, 12)}.json`;
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
    await this.#seen.load(this.#now().getTime() - dedupeWindowMs);
    for (const [key, retry] of await this.#retries.load((key) => this.#entries.has(key))) {
      this.#entries.get(key)!.entry.retry = retry;
      this.#queue(key);
    }
    return torn;
  }

  #hold(stored: InboxEntry, segment: string): void {
    const entry = upgradeInboxEntry(stored);
    this.#entries.set(entry.key, { entry, segment });
    this.#segments.get(segment)?.add(entry.key);
    this.#seen.remember(entry);
    this.#queue(entry.key);
  }

  /** Puts an entry nobody holds where a claim finds it: ready, or deferred until its retry time (and notBefore). */
  #queue(key: string, notBefore = 0): void {
    const entry = this.#entries.get(key)?.entry;
    if (entry) this.#holds.queue(key, Math.max(entry.retry ? Date.parse(entry.retry.retryAt) : 0, notBefore));
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
    const write = this.#batches.join(entry);
    for (const key of keys) this.#pending.set(key, write);
    try {
      await write;
      return 'accepted';
    } finally {
      for (const key of keys) if (this.#pending.get(key) === write) this.#pending.delete(key);
    }
  }

  /** Entries due for translation, held for this claim until released or dropped; earliest received first. */
  claim(limit: number, owner: string): InboxEntry[] {
    return this.#holds.claim(limit, owner).map((key) => this.#entries.get(key)!.entry);
  }

  /** The claim's hold lets go: the entry may be taken again at its retry time, or now, but not before notBefore. */
  release(key: string, owner: string, notBefore = 0): void {
    if (this.#holds.let(key, owner)) this.#queue(key, notBefore);
  }

  /** Whether this claim holds the entry (for renewClaims). */
  holds(key: string, owner: string): boolean {
    return this.#holds.holds(key, owner);
  }

  entry(key: string): InboxEntry | undefined {
    return this.#entries.get(key)?.entry;
  }

  /**
   * The copy of the entry waiting now that a step of this claim may consume, held for the claim from now: one
   * nobody holds, or this claim does (a step without a claim, moving a ledger or in a test, consumes whatever
   * copy waits).
   */
  copyFor(key: string, owner: string | undefined): EntryCopy | undefined {
    const held = this.#entries.get(key);
    if (!held || (owner !== undefined && this.#holds.heldByAnother(key, owner))) return undefined;
    // Held from now until the commit drops it or lets go: another claim taking it meanwhile would fold it again.
    if (owner !== undefined) this.#holds.take(key, owner);
    return { key, segment: held.segment };
  }

  #isCurrent(copy: EntryCopy): boolean {
    return this.#entries.get(copy.key)?.segment === copy.segment;
  }

  *all(): IterableIterator<InboxEntry> {
    for (const { entry } of this.#entries.values()) yield entry;
  }

  nextRetryAt(): number | undefined {
    return this.#holds.nextAt();
  }

  /**
   * Records that an entry this claim holds waits for its platform, in a small new retry file: durable with the
   * next flush. A deferral never rewrites the others' state, however many entries wait.
   */
  async defer(key: string, owner: string, retry: EntryRetry): Promise<void> {
    const held = this.#entries.get(key);
    if (!held || !this.holds(key, owner)) return;
    held.entry.retry = retry;
    await this.#retries.record(key, retry);
  }

  mergeRetryFiles(): Promise<void> {
    return this.#retries.merge();
  }

  /**
   * Writes the keys of consumed copies to a new seen file (durable with the next flush); a copy an erasure took
   * meanwhile is left out. Call before the flush that commits what the entries became.
   */
  recordConsumed(copies: EntryCopy[]): Promise<void> {
    return this.#seen.recordConsumed(() =>
      copies.filter((copy) => this.#isCurrent(copy)).map((copy) => this.#entries.get(copy.key)!.entry),
    );
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
      if (!held || held.segment !== copy.segment) continue;
      this.#entries.delete(key);
      this.#holds.forget(key);
      this.#retries.forget(key);
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
        this.#holds.forget(key);
        this.#retries.forget(key);
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

  /** The keys and aliases of the entries still waiting: a copy of one under a new id must stay a duplicate. */
  #waitingKeys(): Set<string> {
    const waiting = new Set<string>();
    for (const { entry } of this.#entries.values()) for (const key of [entry.key, ...entry.aliases]) waiting.add(key);
    return waiting;
  }

  /** Forgets seen keys received before `before`, and merges each hour that is over into one file. */
  pruneSeen(before: Date): Promise<void> {
    return this.#seen.prune(before, () => this.#waitingKeys());
  }

  /** Forgets the seen keys that start with `prefix` (a shop's, at its erasure); those of entries still waiting stay. */
  forgetSeen(prefix: string): Promise<void> {
    return this.#seen.forget(prefix, () => this.#waitingKeys());
  }

  seenKeys(): IterableIterator<[string, string]> {
    return this.#seen.entries();
  }

  /** Remembers keys as seen (moving a ledger in): durable with the next flush. */
  importSeen(entries: Array<[string, string]>): Promise<void> {
    return this.#seen.import(entries);
  }

  /** Adds entries moved in from another store, as one batch file. */
  async importEntries(entries: InboxEntry[]): Promise<void> {
    const fresh = entries.filter((entry) => !this.#entries.has(entry.key));
    if (fresh.length === 0) return;
    const segment = this.#nextSegmentName();
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
  settled(): Promise<void> {
    return this.#batches.settled();
  }
}
