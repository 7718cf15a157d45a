// The inbox's dedupe memory: the keys (and aliases) of deliveries accepted within the dedupe window, in memory,
// and those of consumed entries in seen/<hour>.<seq>.json (a waiting entry's keys are read from its batch file).
// Every change of the files runs one at a time: a merge or an erasure reading a file another is still writing
// would take it for torn and remove it, and one listing the files before another's new file would miss it.
import { join } from 'node:path';
import PQueue from 'p-queue';
import type { InboxEntry } from '../../delivery.ts';
import type { GroupCommit } from './group-commit.ts';
import { readOnce } from './read-once.ts';

interface SeenFile {
  keys: Record<string, string>;
}

const hourOf = (iso: string) => iso.slice(0, 13);
const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);
const SEEN_FILE = /^\d{4}-\d\d-\d\dT\d\d\.\d+\.json$/;

export class SeenKeys {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #now: () => Date;
  /** Keys (and aliases) accepted, with when. */
  readonly #seen = new Map<string, number>();
  readonly #files = new PQueue({ concurrency: 1 });
  #next = 1;

  constructor(dataDir: string, commit: GroupCommit, now: () => Date) {
    this.#dir = join(dataDir, 'seen');
    this.#commit = commit;
    this.#now = now;
  }

  /** Loads the keys received since `oldest`. Dedupe only saves work (folding a delivery twice changes nothing): a torn file is skipped. */
  async load(oldest: number): Promise<void> {
    for (const name of (await this.#commit.io.readdir(this.#dir)).filter((file) => file.endsWith('.json'))) {
      this.#next = Math.max(this.#next, seqOf(name) + 1);
      const data = await readOnce<SeenFile>(this.#commit.io, join(this.#dir, name));
      if (!data || typeof data.keys !== 'object' || data.keys === null) continue;
      for (const [key, receivedAt] of Object.entries(data.keys)) {
        const at = Date.parse(receivedAt);
        if (at >= oldest) this.#seen.set(key, at);
      }
    }
  }

  has(key: string): boolean {
    return this.#seen.has(key);
  }

  /** Remembers an entry's keys in memory (one waiting in a batch file). */
  remember(entry: InboxEntry): void {
    for (const key of [entry.key, ...entry.aliases]) this.#seen.set(key, Date.parse(entry.receivedAt));
  }

  *entries(): IterableIterator<[string, string]> {
    for (const [key, at] of this.#seen) yield [key, new Date(at).toISOString()];
  }

  /**
   * Writes the keys of consumed entries to new seen files (durable with the next flush). `consumed` is asked
   * when the files' turn comes, so that an entry an erasure took meanwhile is left out.
   */
  recordConsumed(consumed: () => InboxEntry[]): Promise<void> {
    return this.#files.add(async () => {
      const byHour = new Map<string, Record<string, string>>();
      for (const entry of consumed()) {
        const seen = byHour.get(hourOf(entry.receivedAt)) ?? {};
        for (const name of [entry.key, ...entry.aliases]) seen[name] = entry.receivedAt;
        byHour.set(hourOf(entry.receivedAt), seen);
      }
      for (const [hour, keys] of byHour) await this.#write(hour, keys);
      if (byHour.size > 0) this.#commit.markDirectory(this.#dir);
    });
  }

  /** Remembers keys moved in from another ledger: durable with the next flush. */
  import(entries: Array<[string, string]>): Promise<void> {
    return this.#files.add(async () => {
      const byHour = new Map<string, Record<string, string>>();
      for (const [key, receivedAt] of entries) {
        this.#seen.set(key, Date.parse(receivedAt));
        byHour.set(hourOf(receivedAt), { ...byHour.get(hourOf(receivedAt)), [key]: receivedAt });
      }
      for (const [hour, keys] of byHour) await this.#write(hour, keys);
      this.#commit.markDirectory(this.#dir);
    });
  }

  async #write(hour: string, keys: Record<string, string>): Promise<void> {
    const name = `${hour}.${String(this.#next++).padStart(9, '0')}.json`;
    await this.#commit.io.writeNewFile(join(this.#dir, name), JSON.stringify({ keys }), this.#commit.sync);
  }

  async #list(): Promise<string[]> {
    return (await this.#commit.io.readdir(this.#dir)).filter((name) => SEEN_FILE.test(name));
  }

  async #read(name: string): Promise<Record<string, string>> {
    return (await readOnce<SeenFile>(this.#commit.io, join(this.#dir, name)))?.keys ?? {};
  }

  /**
   * Forgets keys received before `before`, but not those of entries still `waiting` (a copy of one under a new
   * id must stay a duplicate), and merges each hour that is over into one file.
   */
  prune(before: Date, waiting: () => Set<string>): Promise<void> {
    return this.#files.add(async () => {
      const oldest = before.getTime();
      const kept = waiting();
      for (const [key, at] of this.#seen) if (at < oldest && !kept.has(key)) this.#seen.delete(key);
      const cutoff = hourOf(before.toISOString());
      const currentHour = hourOf(this.#now().toISOString());
      const byHour = new Map<string, string[]>();
      for (const name of await this.#list())
        byHour.set(name.slice(0, 13), [...(byHour.get(name.slice(0, 13)) ?? []), name]);
      for (const [hour, names] of byHour) {
        if (hour < cutoff) {
          await Promise.all(names.map((name) => this.#commit.io.remove(join(this.#dir, name))));
        } else if (hour < currentHour && names.length > 1) {
          const keys: Record<string, string> = {};
          for (const name of names) Object.assign(keys, await this.#read(name));
          await this.#write(hour, keys);
          this.#commit.markDirectory(this.#dir);
          // The merged file is durable before the ones it replaces go.
          await this.#commit.flush();
          await Promise.all(names.map((name) => this.#commit.io.remove(join(this.#dir, name))));
        }
      }
    });
  }

  /**
   * Forgets the keys that start with `prefix` (a shop's, at its erasure), in memory and in each file: a file
   * that held one is written again without it, durably, before the old one goes. The keys of entries still
   * `waiting` stay (another store's whose name this one starts, example.com:8443): a copy of one under a new
   * id would pass as new and be folded a second time.
   */
  forget(prefix: string, waiting: () => Set<string>): Promise<void> {
    return this.#files.add(async () => {
      const kept = waiting();
      for (const key of [...this.#seen.keys()]) if (key.startsWith(prefix) && !kept.has(key)) this.#seen.delete(key);
      for (const name of await this.#list()) {
        const keys = await this.#read(name);
        const left = Object.entries(keys).filter(([key]) => !key.startsWith(prefix));
        if (left.length === Object.keys(keys).length) continue;
        if (left.length > 0) {
          await this.#write(name.slice(0, 13), Object.fromEntries(left));
          this.#commit.markDirectory(this.#dir);
          await this.#commit.flush();
        }
        await this.#commit.io.remove(join(this.#dir, name));
        this.#commit.markDirectory(this.#dir);
      }
    });
  }
}
