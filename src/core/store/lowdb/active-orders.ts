// Orders still moving, held in memory (the lowdb backend's cache) and on disk
// in partitions of at most 100 orders (orders/active-NNNNNN.json), new orders
// into the newest, so that no write grows with the backlog. With them, the
// worker's queue: which orders are due now, which wait for a time, and which
// a worker holds.
import { join } from 'node:path';
import type { OrderRecord } from '../../order-record.ts';
import { loadDurable, openDurable, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { DueQueue } from './due-queue.ts';
import { upgradeOrder } from '../format/upgrade-records.ts';

interface Partition {
  orders: Record<string, OrderRecord>;
}

const pad = (n: number) => String(n).padStart(6, '0');
const partitionName = (seq: number) => `active-${pad(seq)}.json`;

export interface ActiveOrdersOptions {
  partitionSize?: number;
  backupOf?: (path: string) => string | undefined;
}

export class ActiveOrders {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #partitionSize: number;
  readonly #backupOf: (path: string) => string | undefined;
  readonly #partitions = new Map<number, DurableLow<Partition>>();
  readonly #partitionOf = new Map<string, number>();
  #current = 0;
  /** Partitions emptied while not being filled: removed after the next flush. */
  readonly #emptied = new Set<number>();
  readonly due = new DueQueue();

  constructor(
    ordersDir: string,
    commit: GroupCommit,
    { partitionSize = 100, backupOf = () => undefined }: ActiveOrdersOptions = {},
  ) {
    this.#dir = ordersDir;
    this.#commit = commit;
    this.#partitionSize = partitionSize;
    this.#backupOf = backupOf;
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
    const partition = this.#partitions.get(seq)!;
    partition.data.orders[record.key] = record;
    this.#emptied.delete(seq);
    this.#commit.markDirty(partition as DurableLow<unknown>);
    this.due.set(record.key, record.dueAt, record.lane);
  }

  /** Takes orders out (they settled, or were erased); durable with the next flush. */
  remove(keys: Iterable<string>): void {
    for (const key of keys) {
      const seq = this.#partitionOf.get(key);
      if (seq === undefined) continue;
      const partition = this.#partitions.get(seq)!;
      delete partition.data.orders[key];
      this.#partitionOf.delete(key);
      this.due.delete(key);
      this.#commit.markDirty(partition as DurableLow<unknown>);
      if (seq !== this.#current && Object.keys(partition.data.orders).length === 0) this.#emptied.add(seq);
    }
  }

  /** After a successful flush: partitions that were emptied go away altogether. */
  async flushed(): Promise<void> {
    for (const seq of [...this.#emptied]) {
      const partition = this.#partitions.get(seq);
      this.#emptied.delete(seq);
      if (!partition || Object.keys(partition.data.orders).length > 0) continue;
      this.#partitions.delete(seq);
      await this.#commit.io.remove(partition.adapter.path);
    }
  }
}
