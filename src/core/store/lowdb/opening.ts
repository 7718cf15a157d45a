// The lowdb ledger opened and closed: its folder made its owner's only, what a crash left mended, older formats
// brought up to date (and their secrets sealed), and at a clean stop everything whole on disk with a mark that says so.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LEDGER_FORMAT } from '../format/ledger-format.ts';
import type { OpenReport, SecretsStatus } from '../ledger-store.ts';
import { noSecrets, type RecordSecrets } from '../record-secrets.ts';
import { backUpFiles } from './backup.ts';
import { checkFormatFile, writeFormatFile } from './format-file.ts';
import type { LowdbParts } from './parts.ts';

/** Written by a clean stop, removed at start: its absence means the last run crashed. */
const CLEAN_STOP = 'stopped-cleanly';

export interface Opening {
  dedupeWindowMs: number;
  secrets: RecordSecrets;
  /** Puts right what a crash left in two places (order-operations.ts). */
  mendAfterCrash(): Promise<void>;
}

/** Opens every file; a writer also mends, upgrades and seals. Returns what the start reports. */
export async function openLedger(p: LowdbParts, opening: Opening): Promise<OpenReport> {
  const { readOnly, inbox, active, settled, lpOrderIds, records, deadLetters } = p;
  // Before anything is touched: a ledger of a newer format is refused as it is.
  const upgradeFrom = existsSync(p.dir) ? await checkFormatFile(p.commit.io, p.dir) : 0;
  const hadLedger = existsSync(join(p.dir, 'orders'));
  if (!readOnly) {
    for (const sub of ['', 'inbox', 'orders', 'seen']) await mkdir(join(p.dir, sub), { recursive: true, mode: 0o700 });
    await chmod(p.dir, 0o700);
    await removeStrayTemporaries(p.dir);
  } else if (!hadLedger) {
    throw new Error(`${p.dir} holds no loyalty-bridge ledger`);
  }
  const tornInboxFiles = await inbox.open(opening.dedupeWindowMs);
  let secrets: SecretsStatus | undefined;
  await active.open();
  const notes = [await settled.open()];
  await lpOrderIds.init();
  await records.open(readOnly);
  notes.push(await deadLetters.open(readOnly));
  if (!readOnly) {
    if (!(await stoppedCleanly(p))) await opening.mendAfterCrash();
    const moved = await records.upgradeOldFiles();
    if (moved.length > 0) notes.push(`moved ${moved.join(', ')} into records/`);
    // Format 2: secrets sealed, those of earlier releases at the first start with a key. The
    // backups of the files rewritten follow at once, so that no plain copy outlives the start.
    const resealed = records.reseal();
    if (resealed.files.length > 0) {
      await p.commit.flush();
      await backUpFiles(p.dir, resealed.files);
    }
    secrets = opening.secrets.status(records.countSecrets(noSecrets()), resealed);
    // Every record kind reads older formats where it is read (format/upgrade-records.ts): the mark can say current now.
    if (upgradeFrom !== undefined) {
      await writeFormatFile(p.commit.io, p.dir, p.commit.sync);
      if (hadLedger) notes.push(`ledger format ${upgradeFrom} upgraded to format ${LEDGER_FORMAT}`);
    }
  }
  const upgraded = notes.filter(Boolean);
  return {
    tornInboxFiles,
    ...(upgraded.length > 0 ? { upgraded: upgraded.join('; ') } : {}),
    secrets: secrets ?? opening.secrets.status(records.countSecrets(noSecrets())),
  };
}

/** A write cut short leaves a temporary file with what it was writing: none may outlive a crash (they may hold erased data). */
async function removeStrayTemporaries(dir: string): Promise<void> {
  for (const sub of [
    '',
    'inbox',
    'orders',
    join('orders', 'index'),
    'lp-order-ids',
    'records',
    'seen',
    'dead-letters',
  ]) {
    const names = await readdir(join(dir, sub)).catch(() => [] as string[]);
    for (const name of names.filter((file) => /^\..+\.tmp$/.test(file)))
      await rm(join(dir, sub, name), { force: true });
  }
}

/** Whether the last process stopped cleanly; the mark is taken away (durably) for this run. */
async function stoppedCleanly(p: LowdbParts): Promise<boolean> {
  if (!existsSync(join(p.dir, CLEAN_STOP))) return false;
  await p.commit.io.remove(join(p.dir, CLEAN_STOP));
  await p.commit.io.syncDirectory(p.dir);
  return true;
}

/** Waits for every write under way, leaves the files whole on disk, and marks the stop clean. */
export async function closeLedger(p: LowdbParts): Promise<void> {
  if (p.readOnly) return;
  await p.inbox.settled();
  await p.serial.onIdle();
  await p.deadLetters.idle();
  // The base files whole on disk, the journals empty: what a person or an earlier release reads is all there.
  const journals = [p.active.journal, p.lpOrderIds.journal];
  for (const journal of journals) if (journal?.holdsChanges) journal.compactSoon();
  try {
    await p.flush();
  } finally {
    // The files they held open: emptied journals hold none, but a round that failed may have left one.
    for (const journal of journals) await journal?.release();
  }
  // Everything is on disk: the next start need not look for orders a crash left in two places.
  await p.commit.io.writeNewFile(join(p.dir, CLEAN_STOP), new Date().toISOString(), p.commit.sync);
  await p.commit.io.syncDirectory(p.dir);
}
