// A ledger's life: opened, watched for work, shared between instances (exclusive), closed; and moved to another backend.
import type { InboxEntry } from '../../delivery.ts';
import type { OrderRecord } from '../../order-record.ts';
import type { DeadLetter } from './dead-letters.ts';
import type { SecretsStatus } from './queries.ts';
import type { RecordKind } from './records.ts';

export interface OpenReport {
  /** Inbox files found cut short: written when the process died, so never acknowledged. */
  tornInboxFiles: number;
  /** A one-time rebuild of indexes from an older ledger layout. */
  upgraded?: string | undefined;
  /** Secrets at rest once open: what the open sealed, what the ledger holds, and what the operator should know. */
  secrets?: SecretsStatus | undefined;
}

/** Everything a store holds, one item at a time: for moving a ledger from one backend to another. */
export type LedgerItem =
  | { type: 'order'; record: OrderRecord }
  | { type: 'inbox'; entry: InboxEntry }
  | { type: 'seen'; key: string; receivedAt: string }
  | { type: 'dead-letter'; letter: DeadLetter }
  | { type: 'record'; kind: RecordKind; id: string; value: unknown }
  | { type: 'lp-order-id'; lpOrderId: string; orderKey: string };

export interface LedgerLifecycle {
  readonly kind: 'lowdb' | 'postgres';
  /** Opens (and, for a database, migrates) the store; a damaged one is refused with a message that names what is wrong. */
  open(): Promise<OpenReport>;
  /** Waits for every write under way, then lets go of the store. */
  close(): Promise<void>;
  /** Called when something became due: new inbox entries, folded orders. */
  onWork(listener: () => void): void;
  /** Runs fn only if no other holder (another instance) runs the same name now; 'busy' otherwise. */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Keeps a copy of the store as it is now, known good: the lowdb files' (a database keeps its own backups). */
  backUp(): Promise<void>;
}

export interface LedgerTransfer {
  exportAll(): AsyncIterable<LedgerItem>;
  importItems(items: LedgerItem[]): Promise<void>;
  /** After a large import: a database brings its planner's statistics up to date, so the first queries do not scan. */
  finishImport(): Promise<void>;
}
