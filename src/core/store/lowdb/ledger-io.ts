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
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; one that is already gone is fine. */
  remove(path: string): Promise<void>;
  /** fsync of a directory, so that renames and new files in it survive a crash. */
  syncDirectory(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<{ size: number; mtimeMs: number }>;
}

export const nodeIo: LedgerIo = {
  readFile: (path) => readFile(path, 'utf8'),
  async writeNewFile(path, text, sync) {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(text);
      if (sync) await handle.datasync();
    } finally {
      await handle.close();
    }
  },
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
