// The lowdb store's parts built from its options: one object per kind of file, all written through one group
// commit (parts.ts says what each is for).
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import PQueue from 'p-queue';
import { RecordSecrets } from '../record-secrets.ts';
import { ActiveOrders } from './active-orders.ts';
import { BACKUP } from './backup.ts';
import { DeadLetterFiles } from './dead-letters.ts';
import { GroupCommit } from './group-commit.ts';
import { HashedMap } from './hashed-map.ts';
import { Inbox } from './inbox.ts';
import type { LedgerIo } from './ledger-io.ts';
import type { LowdbParts } from './parts.ts';
import { RecordFiles } from './record-files.ts';
import { SettledOrders } from './settled-orders.ts';

export interface LowdbStoreOptions {
  dataDir: string;
  /** For status and listing by the CLI while a bridge runs: reads, never writes or deletes. */
  readOnly?: boolean;
  dedupeWindowMs?: number;
  /** An order with nothing due, quiet this long, leaves memory for the settled chunks. */
  settleAfterMs?: number;
  activePartitionSize?: number;
  /** The active orders' journal size (characters) from which a round writes their partitions instead (tests make it tiny). */
  activeJournalLimit?: number;
  settledChunkSize?: number;
  /** Files kept open when nobody uses them: settled chunks and index files. Tests make them tiny, so that files are let go of all the time. */
  openFiles?: { chunks?: number; indexFiles?: number };
  /** Off only for a bulk load that acknowledges nothing (seeding a benchmark). */
  fsync?: boolean;
  /** The file I/O: node:fs, or a test's that schedules and fails it. */
  io?: LedgerIo;
  now?: () => Date;
  /** Seals and opens the secrets of records (SECRETS_KEY); by default, none and plain values allowed. */
  secrets?: RecordSecrets;
}

/** `notify`: wakes the loops when something became due (a delivery accepted, an order due). */
export function buildParts(options: LowdbStoreOptions, notify: () => void): LowdbParts {
  const { dataDir, readOnly = false, activePartitionSize, activeJournalLimit, settledChunkSize } = options;
  const { openFiles = {}, fsync = true, io, now = () => new Date(), secrets = RecordSecrets.plain() } = options;
  const commit = new GroupCommit({ sync: fsync, ...(io ? { io } : {}) });
  const backupOf = (path: string): string | undefined => {
    const backup = join(dataDir, BACKUP, relative(dataDir, path));
    return existsSync(backup) ? backup : undefined;
  };
  const inbox = new Inbox(dataDir, commit, { readOnly, now });
  inbox.onAccepted = notify;
  return {
    dir: dataDir,
    readOnly,
    now,
    commit,
    inbox,
    active: new ActiveOrders(join(dataDir, 'orders'), commit, {
      ...(activePartitionSize ? { partitionSize: activePartitionSize } : {}),
      ...(activeJournalLimit !== undefined ? { journalLimit: activeJournalLimit } : {}),
      readOnly,
      backupOf,
    }),
    settled: new SettledOrders(join(dataDir, 'orders'), commit, {
      ...(settledChunkSize ? { chunkSize: settledChunkSize } : {}),
      ...(openFiles.chunks ? { openChunks: openFiles.chunks } : {}),
      ...(openFiles.indexFiles ? { openIndexFiles: openFiles.indexFiles } : {}),
      readOnly,
      backupOf,
    }),
    lpOrderIds: new HashedMap(join(dataDir, 'lp-order-ids'), commit, {
      readOnly,
      journalLimit: activeJournalLimit ?? 2_000_000,
      ...(openFiles.indexFiles ? { cachedFiles: openFiles.indexFiles } : {}),
    }),
    records: new RecordFiles(dataDir, commit, backupOf, secrets),
    deadLetters: new DeadLetterFiles(dataDir, commit, now),
    serial: new PQueue({ concurrency: 1 }),
    flush: () => commit.flush(),
    notify,
  };
}
