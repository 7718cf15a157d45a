// Files that are on disk when their write resolves. lowdb's own file adapter
// (steno) writes a temporary file and renames it, but never fsyncs: after a
// power cut the rename can be there and the data not, or neither. Here a
// write is: temporary file, fdatasync, rename, and the directory fsynced (the
// rename itself lives in the directory). The directory sync is left to the
// caller so that a group commit syncs each directory once, not once per file.
import { constants } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { LedgerDamagedError } from '../ledger-store.ts';

let sequence = 0;

/** fsync of a directory, so that renames and new files in it survive a crash. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes bytes to a new file, refusing to overwrite one, and fdatasyncs it
 * (unless sync is off: a bulk load that acknowledges nothing). The caller
 * syncs the directory.
 */
export async function writeNewFile(path: string, text: string, sync = true): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    if (sync) await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Replaces a file atomically and durably, but for the directory sync. */
export async function replaceFile(path: string, text: string, sync = true): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${++sequence}.tmp`);
  try {
    await writeNewFile(temporary, text, sync);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A lowdb adapter for compact JSON written by replaceFile(). It reports which directory needs a sync. */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    // Compact JSON: the files are for the program; the admin API is for people.
    return JSON.parse(text) as T;
  }

  write(data: T, sync = true): Promise<void> {
    // Serialised now, synchronously: changes made after this call wait for the next write.
    return replaceFile(this.path, JSON.stringify(data), sync);
  }
}

/** A lowdb document on a DurableJsonFile. */
export type DurableLow<T> = Low<T> & { adapter: DurableJsonFile<T> };

export const openDurable = <T>(path: string, empty: T): DurableLow<T> => new Low<T>(new DurableJsonFile<T>(path), empty) as DurableLow<T>;

/**
 * Reads a ledger file into its document, or leaves the empty value when there
 * is none. A file that is not JSON or not of the shape we write stops with a
 * LedgerDamagedError naming it (and its backup, when there is one). Returns
 * whether the file existed.
 */
export async function loadDurable<T>(file: DurableLow<T>, isValid: (data: T) => boolean, backupOf: (path: string) => string | undefined = () => undefined): Promise<boolean> {
  let found: boolean;
  try {
    const data = await file.adapter.read();
    found = data !== null;
    if (data !== null) file.data = data;
  } catch (error) {
    throw new LedgerDamagedError(file.adapter.path, error instanceof SyntaxError ? 'not valid JSON: empty or cut short' : (error as Error).message, backupOf(file.adapter.path));
  }
  if (!isValid(file.data)) throw new LedgerDamagedError(file.adapter.path, 'not the shape loyalty-bridge writes', backupOf(file.adapter.path));
  return found;
}
