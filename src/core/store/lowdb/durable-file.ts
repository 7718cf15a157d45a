// Files that are on disk when their write resolves. lowdb's own adapter (steno) renames a temporary file but
// never fsyncs: after a power cut the rename can be there and the data not. Here a write is a temporary
// file, fdatasync, rename; the directory's fsync is left to the caller, so that a group commit syncs each
// directory once, not once per file.
import { basename, dirname, join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { LedgerDamagedError, LedgerUnreadableError } from '../ledger-store.ts';
import type { LedgerIo } from './ledger-io.ts';

let sequence = 0;

/** Replaces a file atomically and durably, but for the directory sync. */
export async function replaceFile(io: LedgerIo, path: string, text: string, sync = true): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${++sequence}.tmp`);
  try {
    await io.writeNewFile(temporary, text, sync);
    await io.rename(temporary, path);
  } catch (error) {
    await io.remove(temporary).catch(() => undefined);
    throw error;
  }
}

/** A lowdb adapter for compact JSON written by replaceFile(). It reports which directory needs a sync. */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly path: string;
  readonly #io: LedgerIo;
  constructor(io: LedgerIo, path: string) {
    this.#io = io;
    this.path = path;
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await this.#io.readFile(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    // Compact JSON: the files are for the program; the admin API is for people.
    return JSON.parse(text) as T;
  }

  write(data: T, sync = true): Promise<void> {
    return this.writeText(JSON.stringify(data), sync);
  }

  writeText(text: string, sync = true): Promise<void> {
    return replaceFile(this.#io, this.path, text, sync);
  }
}

/**
 * A lowdb document on a DurableJsonFile that knows whether what it holds is
 * on disk. Every change is marked (changed()); a write records which changes
 * it carried once it is durable; writes of one file run one after another, in
 * the order they were asked for, so an older copy can never land last. A
 * document is clean when everything marked is durable and no write is under
 * way: only then may a cache let go of it (see OpenFiles).
 */
export class DurableLow<T> extends Low<T> {
  declare adapter: DurableJsonFile<T>;
  /** Top-level fields keyed by outside input (order keys, record ids): objects without a prototype, so "constructor" is just a key. */
  dictionaries: readonly string[] = [];
  #changes = 0;
  #durable = 0;
  #writes = 0;
  #last: Promise<void> = Promise.resolve();

  get path(): string {
    return this.adapter.path;
  }

  /** Marks the data changed: the document is not clean until a write made after this is durable. */
  changed(): void {
    this.#changes++;
  }

  get clean(): boolean {
    return this.#changes === this.#durable && this.#writes === 0;
  }

  /** Writes the data as it is now, after any write of this file asked for earlier. */
  override async write(sync = true): Promise<void> {
    const carries = this.#changes;
    // Serialised now, synchronously: changes made after this call wait for the next write.
    const text = JSON.stringify(this.data);
    this.#writes++;
    const previous = this.#last;
    const write = (async () => {
      await previous.catch(() => undefined);
      await this.adapter.writeText(text, sync);
      if (carries > this.#durable) this.#durable = carries;
    })();
    this.#last = write;
    try {
      await write;
    } finally {
      this.#writes--;
    }
  }
}

/**
 * A ledger document. `dictionaries` names its top-level fields that are
 * keyed by outside input (an order key holds a shop's name; an id comes from
 * a URL): they hold no prototype, before and after a load, so that a key like
 * "constructor" or "__proto__" is an entry like any other, never Object's.
 */
export function openDurable<T>(
  io: LedgerIo,
  path: string,
  empty: T,
  dictionaries: ReadonlyArray<keyof T & string> = [],
): DurableLow<T> {
  const file = new DurableLow<T>(new DurableJsonFile<T>(io, path), empty);
  file.dictionaries = dictionaries;
  withoutPrototypes(file);
  return file;
}

function withoutPrototypes<T>(file: DurableLow<T>): void {
  const data = file.data as Record<string, unknown>;
  for (const key of file.dictionaries) {
    const value = data[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) Object.setPrototypeOf(value, null);
  }
}

const ADVICE_BY_CODE: Record<string, string> = {
  EACCES:
    'the bridge may not read it: give the file back to the user the bridge runs as (the ledger is owner-only, mode 600)',
  EPERM:
    'the bridge may not read it: give the file back to the user the bridge runs as (the ledger is owner-only, mode 600)',
  EISDIR: 'a folder stands where the file belongs: move the folder aside',
  EIO: 'the disk reported an error reading it: check the disk (dmesg, smartctl) and its free space first',
  EMFILE: 'the process ran out of file handles: raise its limit (ulimit -n, or LimitNOFILE for systemd)',
  ENFILE: 'the system ran out of file handles: raise fs.file-max or stop what holds them',
  ENOSPC: 'the disk is full: free space on it',
};

/**
 * Reads a ledger file into its document, or leaves the empty value when there
 * is none. A file that is not JSON or not of the shape we write stops with a
 * LedgerDamagedError naming it (and its backup, when there is one); a file
 * that could not be read at all is a LedgerUnreadableError, whose advice is
 * about the disk or the permissions, never a backup (the file itself is
 * fine, and an older copy would roll progress back). Returns whether the
 * file existed.
 */
export async function loadDurable<T>(
  file: DurableLow<T>,
  isValid: (data: T) => boolean,
  backupOf: (path: string) => string | undefined = () => undefined,
): Promise<boolean> {
  let found: boolean;
  try {
    const data = await file.adapter.read();
    found = data !== null;
    if (data !== null) file.data = data;
    withoutPrototypes(file);
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new LedgerDamagedError(file.path, 'not valid JSON: empty or cut short', backupOf(file.path));
    throw unreadable(file.path, error);
  }
  if (!isValid(file.data))
    throw new LedgerDamagedError(file.path, 'not the shape loyalty-bridge writes', backupOf(file.path));
  return found;
}

/** An I/O error on a ledger file, with advice that fits its cause. */
export function unreadable(path: string, error: unknown): LedgerUnreadableError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  return new LedgerUnreadableError(
    path,
    code,
    ADVICE_BY_CODE[code] ?? `the system said: ${(error as Error).message}`,
    error,
  );
}
