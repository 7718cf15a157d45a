// Files the inbox writes once and never changes: a file cut short was being written when the process died.
import type { LedgerIo } from './ledger-io.ts';

/** Reads a file written once; undefined when it is torn (a crash while it was being written). */
export async function readOnce<T>(io: LedgerIo, path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await io.readFile(path)) as T;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}
