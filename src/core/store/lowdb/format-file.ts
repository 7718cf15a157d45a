// The ledger's format mark in DATA_DIR/format.json (format/ledger-format.ts):
// read first at every open, so that a ledger a newer release wrote is
// refused before anything here is touched, and written once the ledger
// opened in the current format.
import { join } from 'node:path';
import { LedgerDamagedError } from '../ledger-store.ts';
import { checkMark, currentMark, type FormatMark } from '../format/ledger-format.ts';
import { replaceFile, unreadable } from './durable-file.ts';
import type { LedgerIo } from './ledger-io.ts';

export const FORMAT_FILE = 'format.json';

async function readMark(io: LedgerIo, path: string): Promise<FormatMark | undefined> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(path, error);
  }
  try {
    const mark = JSON.parse(text) as FormatMark;
    if (typeof mark?.format !== 'number' || typeof mark.writtenBy !== 'string') throw new SyntaxError('not a mark');
    return mark;
  } catch {
    throw new LedgerDamagedError(path, 'not the format mark loyalty-bridge writes');
  }
}

/** Refuses a ledger of a newer format; says which format to upgrade from (undefined: none, it is current). */
export async function checkFormatFile(io: LedgerIo, dataDir: string): Promise<number | undefined> {
  const path = join(dataDir, FORMAT_FILE);
  return checkMark(`DATA_DIR ${dataDir}`, await readMark(io, path)).upgradeFrom;
}

export async function writeFormatFile(io: LedgerIo, dataDir: string, sync: boolean): Promise<void> {
  await replaceFile(io, join(dataDir, FORMAT_FILE), JSON.stringify(currentMark()), sync);
  await io.syncDirectory(dataDir);
}
