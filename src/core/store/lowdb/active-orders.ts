// Orders still moving, held in memory (the lowdb backend's cache) and on disk
// in partitions of at most 100 orders (orders/active-NNNNNN.json), new orders
// into the newest, plus the journal of what changed since the partitions were
// last written (order-journal.ts). A group commit appends the orders changed
// to the journal; once the journal has grown past its limit, the round writes
// the partitions changed since and empties the journal instead. With them,
// the worker's queue: which orders are due now, which wait for a time, and
// which a worker holds.
import { join } from 'node:path';
import type { OrderRecord } from '../../order-record.ts';
import { LedgerDamagedError } from '../ledger-store.ts';
import { loadDurable, openDurable, replaceFile, unreadable, type DurableLow } from './durable-file.ts';
import type { CommitFile, GroupCommit } from './group-commit.ts';
import { DueQueue } from './due-queue.ts';
import { encodeBatch, JOURNAL_FILE, JournalDamage, readBatches } from './order-journal.ts';
import { upgradeOrder } from '../format/upgrade-records.ts';

interface Partition {
  orders: Record<string, OrderRecord>;
}

const pad = (n: number) => String(n).padStart(6, '0');
const partitionName = (seq: number) => `active-${pad(seq)}.json`;

export interface ActiveOrdersOptions {
  partitionSize?: number;
  /** The journal's size, in characters, from which the next round writes the partitions and empties it. */
  journalLimit?: number;
  readOnly?: boolean;
  backupOf?: (path: string) => string | undefined;
}

export class ActiveOrders {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #partitionSize: number;
  readonly #journalLimit: number;
  readonly #readOnly: boolean;
  readonly #backupOf: (path: string) => string | undefined;
  readonly #partitions = new Map<number, DurableLow<Partition>>();
  readonly #partitionOf = new Map<string, number>();
  #current = 0;
  /** Partitions emptied while not being filled: removed once written empty and the journal emptied. */
  readonly #emptied = new Set<number>();
  /** Partitions whose orders changed since they were last written. */
  readonly #touched = new Set<number>();
  /** Orders changed since the journal's last batch. */
  #unjournaled = new Set<string>();
  #journalSize = 0;
  /** The next round writes the partitions and empties the journal (it grew, an append failed, or an erasure asked). */
  #compactDue = false;
  readonly #journalPath: string;
  /** What the group commit writes for the active orders. */
  readonly #journal: CommitFile;
  readonly due = new DueQueue();

  constructor(
    ordersDir: string,
    commit: GroupCommit,
    {
      partitionSize = 100,
      journalLimit = 8_000_000,
      readOnly = false,
      backupOf = () => undefined,
    }: ActiveOrdersOptions = {},
  ) {
    this.#dir = ordersDir;
    this.#commit = commit;
    this.#partitionSize = partitionSize;
    this.#journalLimit = journalLimit;
    this.#readOnly = readOnly;
    this.#backupOf = backupOf;
    this.#journalPath = join(ordersDir, JOURNAL_FILE);
    this.#journal = { path: this.#journalPath, changed: () => undefined, write: (sync) => this.#write(sync) };
  }

  async open(): Promise<void> {
    const names = (await this.#commit.io.readdir(this.#dir)).filter((file) => /^active-\d+\.json$/.test(file)).sort();
    for (const name of names) {
      const seq = Number(/(\d+)\.json$/.exec(name)?.[1]);
      const file = openDurable<Partition>(this.#commit.io, join(this.#dir, name), { orders: {} }, ['orders']);
      await loadDurable(file, (data) => typeof data?.orders === 'object' && data.orders !== null, this.#backupOf);
      this.#partitions.set(seq, file);
      this.#current = Math.max(this.#current, seq);
      for (const order of Object.values(file.data.orders).map(upgradeOrder)) {
        this.#partitionOf.set(order.key, seq);
        this.due.set(order.key, order.dueAt, order.lane);
      }
    }
    // A crash after a partition was written empty and before it was removed.
    for (const [seq, partition] of this.#partitions)
      if (seq !== this.#current && Object.keys(partition.data.orders).length === 0) this.#emptied.add(seq);
    await this.#replayJournal();
  }

  /** The changes since the partitions were written, applied over them; then (unless read-only) written into them. */
  async #replayJournal(): Promise<void> {
    let text: string;
    try {
      text = await this.#commit.io.readFile(this.#journalPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw unreadable(this.#journalPath, error);
    }
    if (text.length === 0) return;
    let entries;
    try {
      entries = readBatches(text);
    } catch (error) {
      if (error instanceof JournalDamage) throw new LedgerDamagedError(this.#journalPath, error.message);
      throw error;
    }
    for (const entry of entries) {
      if ('put' in entry) this.#place(upgradeOrder(entry.put));
      else this.#take(entry.remove);
    }
    this.#journalSize = text.length;
    if (this.#readOnly) return;
    // A batch a crash cut short must not have later batches appended after it.
    this.compactSoon();
    await this.#commit.flush();
  }

  get size(): number {
    return this.#partitionOf.size;
  }

  get(key: string): OrderRecord | undefined {
    const seq = this.#partitionOf.get(key);
    return seq === undefined ? undefined : this.#partitions.get(seq)?.data.orders[key];
  }

  *values(): IterableIterator<OrderRecord> {
    for (const partition of this.#partitions.values()) yield* Object.values(partition.data.orders);
  }

  /** Inserts or marks changed; durable with the next flush. Bumps the record's version. */
  put(record: OrderRecord): void {
    record.version = (record.version ?? 0) + 1;
    this.#place(record);
    this.#changed(record.key);
  }

  /** Takes orders out (they settled, or were erased); durable with the next flush. */
  remove(keys: Iterable<string>): void {
    for (const key of keys) if (this.#take(key)) this.#changed(key);
  }

  /** The next round writes the partitions and empties the journal: an erasure leaves no copy of what it erased there. */
  compactSoon(): void {
    this.#compactDue = true;
    this.#commit.markDirty(this.#journal);
  }

  /** Whether the journal holds anything the partitions do not (a clean stop writes them first). */
  get journalled(): boolean {
    return this.#journalSize > 0 || this.#unjournaled.size > 0;
  }

  #place(record: OrderRecord): void {
    let seq = this.#partitionOf.get(record.key);
    if (seq === undefined) {
      let current = this.#partitions.get(this.#current);
      if (!current || Object.keys(current.data.orders).length >= this.#partitionSize) {
        this.#current++;
        current = openDurable<Partition>(
          this.#commit.io,
          join(this.#dir, partitionName(this.#current)),
          { orders: {} },
          ['orders'],
        );
        this.#partitions.set(this.#current, current);
      }
      seq = this.#current;
      this.#partitionOf.set(record.key, seq);
    }
    this.#partitions.get(seq)!.data.orders[record.key] = record;
    this.#emptied.delete(seq);
    this.#touched.add(seq);
    this.due.set(record.key, record.dueAt, record.lane);
  }

  #take(key: string): boolean {
    const seq = this.#partitionOf.get(key);
    if (seq === undefined) return false;
    const partition = this.#partitions.get(seq)!;
    delete partition.data.orders[key];
    this.#partitionOf.delete(key);
    this.due.delete(key);
    this.#touched.add(seq);
    if (seq !== this.#current && Object.keys(partition.data.orders).length === 0) this.#emptied.add(seq);
    return true;
  }

  #changed(key: string): void {
    this.#unjournaled.add(key);
    this.#commit.markDirty(this.#journal);
  }

  /**
   * The group commit's write, called in its round: the changed orders as
   * they are now, as one batch, or the partitions. What it writes is taken
   * before its first await, so changes made meanwhile go to the next round.
   */
  async #write(sync: boolean): Promise<void> {
    const keys = this.#unjournaled;
    this.#unjournaled = new Set();
    try {
      if (this.#compactDue || this.#journalSize >= this.#journalLimit) {
        await this.#compact(sync);
      } else {
        const text = encodeBatch(keys, (key) => this.get(key));
        if (text.length === 0) return;
        await this.#commit.io.appendFile(this.#journalPath, text, sync);
        this.#journalSize += text.length;
      }
    } catch (error) {
      for (const key of keys) this.#unjournaled.add(key);
      // A failed append may have left part of its batch: only a journal begun afresh is safe to add to.
      this.#compactDue = true;
      throw error;
    }
  }

  /**
   * The partitions changed since they were last written, durable (their
   * renames synced), and only then the journal emptied: a crash in between
   * applies the journal again over partitions that already hold it, which
   * leaves each order as its last entry says.
   */
  async #compact(sync: boolean): Promise<void> {
    const touched = [...this.#touched];
    this.#touched.clear();
    try {
      const partitions = touched.flatMap((seq) => this.#partitions.get(seq) ?? []);
      // Each write takes its partition's data as it is now.
      const written = await Promise.allSettled(partitions.map((partition) => partition.write(sync)));
      const failed = written.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
      if (sync) await this.#commit.io.syncDirectory(this.#dir);
      await replaceFile(this.#commit.io, this.#journalPath, '', sync);
    } catch (error) {
      for (const seq of touched) this.#touched.add(seq);
      throw error;
    }
    this.#journalSize = 0;
    this.#compactDue = false;
    await this.#removeEmptied();
  }

  /** Partitions written empty, with a journal that no longer names their orders: they go away altogether. */
  async #removeEmptied(): Promise<void> {
    for (const seq of [...this.#emptied]) {
      const partition = this.#partitions.get(seq);
      this.#emptied.delete(seq);
      if (!partition || Object.keys(partition.data.orders).length > 0 || this.#touched.has(seq)) continue;
      this.#partitions.delete(seq);
      await this.#commit.io.remove(partition.path);
    }
  }
}
