// Orders still moving, for the lowdb backend: held in memory, and on disk in partitions of at most 100
// (orders/active-NNNNNN.json) plus the journal of changes since those were written (change-journal.ts), so
// that a save does not rewrite a partition. With them, the worker's queue: which orders are due, which
// wait for a time, and which a worker holds.
import { join } from 'node:path';
import type { OrderRecord } from '../../order-record.ts';
import { loadDurable, openDurable, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { DueQueue } from './due-queue.ts';
import { ChangeJournal, JOURNAL_FILE } from './change-journal.ts';
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
  readonly #readOnly: boolean;
  readonly #backupOf: (path: string) => string | undefined;
  readonly #partitions = new Map<number, DurableLow<Partition>>();
  readonly #partitionOf = new Map<string, number>();
  #current = 0;
  /** Partitions emptied while not being filled: removed once written empty and the journal emptied. */
  readonly #emptied = new Set<number>();
  /** Partitions whose orders changed since they were last written. */
  readonly #touched = new Set<number>();
  /** What the group commit writes for the active orders: a batch of changes, or the partitions. */
  readonly journal: ChangeJournal<OrderRecord>;
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
    this.#readOnly = readOnly;
    this.#backupOf = backupOf;
    this.journal = new ChangeJournal<OrderRecord>(commit, {
      path: join(ordersDir, JOURNAL_FILE),
      limit: journalLimit,
      current: (key) => this.get(key),
      writeBase: (sync) => this.#writePartitions(sync),
      afterCompaction: () => this.#removeEmptied(),
    });
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
        // A compaction a crash cut short may leave an order that moved (settled, then back in a newer partition) in
        // its old partition too: partitions are read oldest first, and only the newest is filled, so the later is it.
        const earlier = this.#partitionOf.get(order.key);
        if (earlier !== undefined) {
          delete this.#partitions.get(earlier)!.data.orders[order.key];
          this.#touched.add(earlier);
        }
        this.#partitionOf.set(order.key, seq);
        this.due.set(order.key, order.dueAt, order.lane);
      }
    }
    // A crash after a partition was written empty and before it was removed.
    for (const [seq, partition] of this.#partitions)
      if (seq !== this.#current && Object.keys(partition.data.orders).length === 0) this.#emptied.add(seq);
    await this.journal.replay(
      (entry) => ('gone' in entry ? void this.#take(entry.key) : this.#place(upgradeOrder(entry.value))),
      this.#readOnly,
    );
    // Old copies taken out above are written away at once, whatever the journal held.
    if (this.#touched.size > 0 && !this.#readOnly) {
      this.journal.compactSoon();
      await this.#commit.flush();
    }
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
    this.journal.note(key);
  }

  /**
   * The partitions changed since they were last written, each as it is now;
   * the journal is emptied after. Returns how to mark them changed again, for
   * a later failure (their renames not synced).
   */
  async #writePartitions(sync: boolean): Promise<() => void> {
    const touched = [...this.#touched];
    this.#touched.clear();
    const again = () => touched.forEach((seq) => this.#touched.add(seq));
    const partitions = touched.flatMap((seq) => this.#partitions.get(seq) ?? []);
    // Each write takes its partition's data as it is now, before the first await.
    const written = await Promise.allSettled(partitions.map((partition) => partition.write(sync)));
    const failed = written.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) {
      again();
      throw failed.reason;
    }
    return again;
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
