// Every read and write of a ledger file goes through one small interface, so
// that the store's tests can choose the order in which concurrent I/O lands
// (fast-check's scheduler) and make any of it fail (a full disk, a failing
// one) at any point. In production it is node:fs, unchanged.
import { constants } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';

export interface LedgerIo {
  readFile(path: string): Promise<string>;
  /** Creates a file that must not exist yet, writes it whole and (with sync) fdatasyncs it. */
  writeNewFile(path: string, text: string, sync: boolean): Promise<void>;
  /**
   * Opens a file to add to its end (made if missing), held open for many appends: the journals of
   * change-journal.ts, which append and fdatasync every group commit round.
   */
  openAppend(path: string): Promise<AppendFile>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; one that is already gone is fine. */
  remove(path: string): Promise<void>;
  /** fsync of a directory, so that renames and new files in it survive a crash. */
  syncDirectory(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<{ size: number; mtimeMs: number }>;
}

/**
 * A file held open for appends. Its owner appends one at a time and closes it
 * before the file at its path is replaced (an emptied journal is a new file):
 * appends to a handle on the old file would go where no one reads them.
 */
export interface AppendFile {
  /** Adds the text to the end of the file and (with sync) fdatasyncs it. */
  append(text: string, sync: boolean): Promise<void>;
  /** Closes the handle; appends under way end first. */
  close(): Promise<void>;
}

/** Creates a file that must not exist yet, writes it, and (with sync) fdatasyncs it. */
async function writeNew(path: string, text: string, sync: boolean): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    if (sync) await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Every append file open now, held here until it is closed: a store dropped
 * without being closed (as a crash leaves one) keeps its descriptor, as the
 * crashed process would have, rather than having the garbage collector close
 * it, which Node 26 reports as an uncaught error.
 */
const heldOpen = new Set<FileHandle>();

async function openAppend(path: string): Promise<AppendFile> {
  // A FileHandle, not a bare descriptor: its close waits for the operations under way, so that the number is
  // never reused by another file while a write to this one is still queued.
  const handle: FileHandle = await open(path, 'a', 0o600);
  heldOpen.add(handle);
  return {
    async append(text, sync) {
      const buffer = Buffer.from(text);
      for (let at = 0; at < buffer.length;) at += (await handle.write(buffer, at, buffer.length - at)).bytesWritten;
      if (sync) await handle.datasync();
    },
    close: async () => {
      try {
        await handle.close();
      } finally {
        heldOpen.delete(handle);
      }
    },
  };
}

export const nodeIo: LedgerIo = {
  readFile: (path) => readFile(path, 'utf8'),
  writeNewFile: writeNew,
  openAppend,
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
