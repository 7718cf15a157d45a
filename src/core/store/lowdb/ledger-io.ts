// Every read and write of a ledger file goes through one small interface, so
// that the store's tests can choose the order in which concurrent I/O lands
// (fast-check's scheduler) and make any of it fail (a full disk, a failing
// one) at any point. In production it is node:fs, unchanged.
import { constants } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';

export interface LedgerIo {
  readFile(path: string): Promise<string>;
  /** Creates a file that must not exist yet, writes it whole and (with sync) fdatasyncs it. */
  writeNewFile(path: string, text: string, sync: boolean): Promise<void>;
  /** Adds to the end of a file (made if missing) and (with sync) fdatasyncs it: the journals of change-journal.ts. */
  appendFile(path: string, text: string, sync: boolean): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; one that is already gone is fine. */
  remove(path: string): Promise<void>;
  /** fsync of a directory, so that renames and new files in it survive a crash. */
  syncDirectory(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<{ size: number; mtimeMs: number }>;
}

/** Opens with `flag` ('wx': a new file; 'a': the end of one), writes, and (with sync) fdatasyncs. */
async function writeWith(flag: 'wx' | 'a', path: string, text: string, sync: boolean): Promise<void> {
  const handle = await open(path, flag, 0o600);
  try {
    await handle.writeFile(text);
    if (sync) await handle.datasync();
  } finally {
    await handle.close();
  }
}

export const nodeIo: LedgerIo = {
  readFile: (path) => readFile(path, 'utf8'),
  writeNewFile: (path, text, sync) => writeWith('wx', path, text, sync),
  appendFile: (path, text, sync) => writeWith('a', path, text, sync),
  rename,
  remove: (path) => rm(path, { force: true }),
  async syncDirectory(path) {
    const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  readdir: (path) => readdir(path),
  stat: (path) => stat(path),
};
