// When each deferred inbox entry is tried again: inbox/retries.<seq>.json, a small new file per deferral, merged
// into one once they outnumber the entries waiting. Retry times only pace the attempts: a damaged file costs an
// early retry, nothing more.
import { join } from 'node:path';
import type { EntryRetry } from '../../delivery.ts';
import { unreadable } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { readOnce } from './read-once.ts';

const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);

export class RetryFiles {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #readOnly: boolean;
  /** The retry state of every deferred entry, as the files say it. */
  readonly #retries = new Map<string, EntryRetry>();
  /** The files on disk, oldest first. */
  #files: string[] = [];
  #next = 1;
  #merging = false;

  constructor(dataDir: string, commit: GroupCommit, readOnly: boolean) {
    this.#dir = join(dataDir, 'inbox');
    this.#commit = commit;
    this.#readOnly = readOnly;
  }

  /** Loads the files; returns the retry state of the entries `isWaiting` still knows (the others' files are stale). */
  async load(isWaiting: (key: string) => boolean): Promise<Map<string, EntryRetry>> {
    // retries.json: the single file of ledgers before retry files were written once each.
    const names = (await this.#commit.io.readdir(this.#dir)).filter((file) => /^retries(\.\d+)?\.json$/.test(file));
    names.sort((a, b) => seqOf(a) - seqOf(b));
    for (const name of names) {
      if (name !== 'retries.json') this.#next = Math.max(this.#next, seqOf(name) + 1);
      let data: { retries?: Record<string, EntryRetry> } | undefined;
      try {
        data = await readOnce(this.#commit.io, join(this.#dir, name));
      } catch (error) {
        throw unreadable(join(this.#dir, name), error);
      }
      this.#files.push(name);
      if (!data || typeof data.retries !== 'object' || data.retries === null) continue;
      for (const [key, retry] of Object.entries(data.retries)) if (isWaiting(key)) this.#retries.set(key, retry);
    }
    return this.#retries;
  }

  /** Records that an entry waits, in a small new file: durable with the next flush. */
  async record(key: string, retry: EntryRetry): Promise<void> {
    this.#retries.set(key, retry);
    await this.#write({ [key]: retry });
  }

  /** An entry consumed or erased: its files are stale now, skipped at start and left out of the next merge. */
  forget(key: string): void {
    this.#retries.delete(key);
  }

  async #write(retries: Record<string, EntryRetry>): Promise<string> {
    const name = `retries.${String(this.#next++).padStart(12, '0')}.json`;
    await this.#commit.io.writeNewFile(join(this.#dir, name), JSON.stringify({ retries }), this.#commit.sync);
    this.#commit.markDirectory(this.#dir);
    this.#files.push(name);
    return name;
  }

  /**
   * Once the files outnumber the entries waiting, their state goes into one new file and the older ones are
   * removed (after the new one is durable): each deferral costs a small write, and merging is paid for by the
   * deferrals before it.
   */
  async merge(): Promise<void> {
    if (this.#merging || this.#readOnly || this.#files.length <= Math.max(64, this.#retries.size)) return;
    this.#merging = true;
    try {
      const older = [...this.#files];
      const merged = await this.#write(Object.fromEntries(this.#retries));
      await this.#commit.flush();
      for (const name of older) await this.#commit.io.remove(join(this.#dir, name));
      this.#files = this.#files.filter((name) => name === merged || !older.includes(name));
    } finally {
      this.#merging = false;
    }
  }
}
