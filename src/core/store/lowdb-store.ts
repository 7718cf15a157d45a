// The embedded store: lowdb files under DATA_DIR.
//
// lowdb rewrites and re-serialises a whole file on every write, so the data is
// cut so that no write grows with the history of the shop, nor with a backlog:
//   inbox/<seq>.json            one new file per acknowledged batch of deliveries, deleted once folded
//   orders/active-<seq>.json    orders still moving, at most 250 a file, new orders into the newest
//   orders/settled-<seq>.json   quiet orders, 1,000 a file; an event for one brings it back
//   seen/<hour>.<seq>.json      delivery keys for dedupe, one new file per batch, merged per hour
//                               once the hour is over, dropped after the window
//   dead-letters.json, shops.json, reconciliation.json, adjustments.json   small state
//   backup/                     a copy of every rewritten file from the last good start
// New files (inbox batches, seen batches) are written once and never
// rewritten; the rest is rewritten whole, atomically (lowdb's steno writes a
// temporary file and renames it). The folder is readable by its owner only:
// it holds customers' contact details.
import { writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile as readText, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import { summarise, type OrderRecord, type OrderSummary } from '../order-record.ts';
import { GroupCommit } from './group-commit.ts';
import {
  LedgerDamagedError,
  type Adjustment,
  type DeadLetter,
  type InboxEntry,
  type LedgerStore,
  type LoadedLedger,
  type ReconciliationState,
  type ShopStates,
} from './ledger-store.ts';

interface OrdersFile {
  orders: Record<string, OrderRecord>;
}
interface InboxFile {
  entries: InboxEntry[];
}
interface SeenFile {
  keys: Record<string, string>;
}

export interface LowdbStoreOptions {
  dataDir: string;
  activePartitionSize?: number;
  settledChunkSize?: number;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const hourOf = (iso: string) => iso.slice(0, 13);
const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);

// Compact JSON: the files are for the program; the admin API is for people.
const openFile = <T>(path: string, empty: T): Low<T> =>
  new Low<T>(new DataFile<T>(path, { parse: JSON.parse, stringify: (data) => JSON.stringify(data) }), empty);

/** Where the copy of a ledger file from the last good start is kept. */
const BACKUP = 'backup';

async function readFile<T>(path: string, empty: T, isValid: (data: T) => boolean, backupOf?: (path: string) => string | undefined): Promise<Low<T>> {
  const file = openFile(path, empty);
  try {
    await file.read();
  } catch (error) {
    throw new LedgerDamagedError(path, error instanceof SyntaxError ? 'not valid JSON: empty or cut short' : (error as Error).message, backupOf?.(path));
  }
  if (!isValid(file.data)) throw new LedgerDamagedError(path, 'not the shape loyalty-bridge writes', backupOf?.(path));
  return file;
}

/** Reads a file written once; undefined when it is torn (a crash while it was being written). */
async function readOnce<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readText(path, 'utf8')) as T;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

const isRecordOf = (key: string) => (data: unknown) =>
  typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)[key] === 'object' && (data as Record<string, unknown>)[key] !== null;

class SmallFile<T> {
  file!: Low<T>;
  readonly name: string;
  readonly empty: T;
  readonly isValid: (data: T) => boolean;
  constructor(name: string, empty: T, isValid: (data: T) => boolean) {
    this.name = name;
    this.empty = empty;
    this.isValid = isValid;
  }
}

export class LowdbStore implements LedgerStore {
  readonly #dir: string;
  readonly #partitionSize: number;
  readonly #chunkSize: number;
  readonly #commit = new GroupCommit();

  readonly #partitions = new Map<number, Low<OrdersFile>>();
  readonly #partitionOf = new Map<string, number>();
  #currentPartition = 0;

  #settledIndex = new Map<string, number>();
  #settledCount = new Map<number, number>();
  #currentChunk = 0;
  /** Promises, so that two callers opening the same chunk share one file object (and one writer). */
  #openChunks = new Map<number, Promise<Low<OrdersFile>>>();

  #nextSegment = 1;
  #nextSeen = 1;

  readonly #deadLetters = new SmallFile<{ deadLetters: DeadLetter[] }>('dead-letters.json', { deadLetters: [] }, (data) => Array.isArray(data.deadLetters));
  readonly #shops = new SmallFile<{ shops: ShopStates }>('shops.json', { shops: {} }, isRecordOf('shops'));
  readonly #reconciliation = new SmallFile<{ platforms: ReconciliationState }>('reconciliation.json', { platforms: {} }, isRecordOf('platforms'));
  readonly #adjustments = new SmallFile<{ adjustments: Adjustment[] }>('adjustments.json', { adjustments: [] }, (data) => Array.isArray(data.adjustments));

  constructor({ dataDir, activePartitionSize = 250, settledChunkSize = 1_000 }: LowdbStoreOptions) {
    this.#dir = dataDir;
    this.#partitionSize = activePartitionSize;
    this.#chunkSize = settledChunkSize;
  }

  #path(...parts: string[]) {
    return join(this.#dir, ...parts);
  }

  /** The backup of a ledger file, when one exists. */
  #backupOf = (path: string): string | undefined => {
    const backup = join(this.#dir, BACKUP, relative(this.#dir, path));
    return existsSync(backup) ? backup : undefined;
  };

  /**
   * Copies every file that is rewritten in place (orders, small state) to
   * DATA_DIR/backup, once the ledger has loaded whole: the last good copy, for
   * a person to restore if a crash or a full disk ever damages one. Files that
   * did not change since the last backup are not copied again; files that are
   * gone are removed from it, so the backup is one consistent picture.
   */
  async backUp(): Promise<void> {
    const targets = [
      ...(await readdir(this.#path('orders'))).filter((name) => /^(active|settled)-\d+\.json$/.test(name)).map((name) => join('orders', name)),
      ...[this.#deadLetters, this.#shops, this.#reconciliation, this.#adjustments].map((small) => small.name).filter((name) => existsSync(this.#path(name))),
    ];
    await mkdir(this.#path(BACKUP, 'orders'), { recursive: true, mode: 0o700 });
    for (const target of targets) {
      const source = this.#path(target);
      const copy = this.#path(BACKUP, target);
      try {
        const [from, to] = await Promise.all([stat(source), stat(copy).catch(() => undefined)]);
        if (to && to.mtimeMs >= from.mtimeMs && to.size === from.size) continue;
        await copyFile(source, `${copy}.tmp`);
        await rename(`${copy}.tmp`, copy);
      } catch (error) {
        // A file that went away meanwhile (a partition emptied) is simply not copied.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    const wanted = new Set(targets);
    for (const name of await readdir(this.#path(BACKUP, 'orders'))) {
      if (!wanted.has(join('orders', name))) await rm(this.#path(BACKUP, 'orders', name), { force: true });
    }
  }

  async load(): Promise<LoadedLedger> {
    for (const sub of ['', 'inbox', 'orders', 'seen']) await mkdir(this.#path(sub), { recursive: true, mode: 0o700 });
    await chmod(this.#dir, 0o700);
    const orderFiles = (await readdir(this.#path('orders'))).sort();

    const activeOrders: OrderRecord[] = [];
    for (const name of orderFiles.filter((file) => /^active-\d+\.json$/.test(file))) {
      const seq = seqOf(name);
      const file = await readFile<OrdersFile>(this.#path('orders', name), { orders: {} }, isRecordOf('orders'), this.#backupOf);
      this.#partitions.set(seq, file);
      this.#currentPartition = Math.max(this.#currentPartition, seq);
      for (const order of Object.values(file.data.orders)) {
        this.#partitionOf.set(order.key, seq);
        activeOrders.push(order);
      }
    }

    const settledSummaries: OrderSummary[] = [];
    for (const name of orderFiles.filter((file) => /^settled-\d+\.json$/.test(file))) {
      const chunk = seqOf(name);
      const file = await readFile<OrdersFile>(this.#path('orders', name), { orders: {} }, isRecordOf('orders'), this.#backupOf);
      const orders = Object.values(file.data.orders);
      this.#settledCount.set(chunk, orders.length);
      this.#currentChunk = Math.max(this.#currentChunk, chunk);
      for (const order of orders) {
        // A crash between the two writes of a move can leave an order in both places: the hot copy is the newer.
        if (this.#partitionOf.has(order.key)) continue;
        this.#settledIndex.set(order.key, chunk);
        settledSummaries.push(summarise(order));
      }
    }

    // A torn inbox file was being written when the process died, so none of
    // its deliveries was acknowledged: the platforms send them again.
    const inbox: LoadedLedger['inbox'] = [];
    let tornSegments = 0;
    for (const name of (await readdir(this.#path('inbox'))).filter((file) => /^\d+\.json$/.test(file)).sort()) {
      this.#nextSegment = Math.max(this.#nextSegment, seqOf(name) + 1);
      const data = await readOnce<InboxFile>(this.#path('inbox', name));
      if (!data || !Array.isArray(data.entries)) {
        tornSegments++;
        await rm(this.#path('inbox', name), { force: true });
        continue;
      }
      inbox.push({ segment: name, entries: data.entries });
    }

    const seen: LoadedLedger['seen'] = [];
    for (const name of (await readdir(this.#path('seen'))).filter((file) => file.endsWith('.json'))) {
      this.#nextSeen = Math.max(this.#nextSeen, seqOf(name) + 1);
      const data = await readOnce<SeenFile>(this.#path('seen', name));
      // Dedupe only saves work (folding a delivery twice changes nothing): a torn file is skipped.
      if (data && typeof data.keys === 'object' && data.keys !== null) for (const entry of Object.entries(data.keys)) seen.push(entry);
    }

    for (const small of [this.#deadLetters, this.#shops, this.#reconciliation, this.#adjustments] as Array<SmallFile<unknown>>) {
      small.file = await readFile(this.#path(small.name), small.empty, small.isValid, this.#backupOf);
    }

    return {
      activeOrders,
      inbox,
      tornSegments,
      seen,
      settledSummaries,
      deadLetters: this.#deadLetters.file.data.deadLetters,
      shops: this.#shops.file.data.shops,
      reconciliation: this.#reconciliation.file.data.platforms,
      adjustments: this.#adjustments.file.data.adjustments,
    };
  }

  async appendInbox(entries: InboxEntry[]): Promise<string> {
    const segment = `${pad(this.#nextSegment++, 12)}.json`;
    // A new file, written once: no rewrite, no rename. 'wx' refuses to overwrite anything.
    // Written synchronously: a batch of tens of deliveries is a few tens of KB,
    // which the kernel takes in well under a millisecond, while the three
    // thread-pool round trips of an async write would each wait for a turn of
    // the busy event loop, and every acknowledgement in the batch waits for them.
    writeFileSync(this.#path('inbox', segment), JSON.stringify({ entries }), { flag: 'wx', mode: 0o600 });
    return segment;
  }

  async dropInbox(segments: string[]): Promise<void> {
    await Promise.all(segments.map((segment) => rm(this.#path('inbox', segment), { force: true })));
  }

  /** The partition an order lives in; a new order goes into the newest, a full one starts the next. */
  #partitionFor(key: string): Low<OrdersFile> {
    const known = this.#partitionOf.get(key);
    if (known !== undefined) return this.#partitions.get(known)!;
    let current = this.#partitions.get(this.#currentPartition);
    if (!current || Object.keys(current.data.orders).length >= this.#partitionSize) {
      this.#currentPartition++;
      current = openFile<OrdersFile>(this.#path('orders', `active-${pad(this.#currentPartition, 6)}.json`), { orders: {} });
      this.#partitions.set(this.#currentPartition, current);
    }
    this.#partitionOf.set(key, this.#currentPartition);
    return current;
  }

  saveActive(orders: OrderRecord[]): Promise<void> {
    for (const order of orders) {
      const partition = this.#partitionFor(order.key);
      partition.data.orders[order.key] = order;
      this.#commit.markDirty(partition as Low<unknown>);
    }
    return this.#commit.flush();
  }

  async #removeActive(keys: string[]): Promise<void> {
    const emptied = new Set<number>();
    for (const key of keys) {
      const seq = this.#partitionOf.get(key);
      if (seq === undefined) continue;
      const partition = this.#partitions.get(seq)!;
      delete partition.data.orders[key];
      this.#partitionOf.delete(key);
      this.#commit.markDirty(partition as Low<unknown>);
      if (seq !== this.#currentPartition && Object.keys(partition.data.orders).length === 0) emptied.add(seq);
    }
    await this.#commit.flush();
    // An empty partition that is no longer being filled goes away altogether.
    for (const seq of emptied) {
      if (Object.keys(this.#partitions.get(seq)?.data.orders ?? {}).length > 0) continue;
      this.#partitions.delete(seq);
      await rm(this.#path('orders', `active-${pad(seq, 6)}.json`), { force: true });
    }
  }

  async settle(orders: OrderRecord[]): Promise<void> {
    if (orders.length === 0) return;
    // Cold copy first, then out of the hot file: a crash in between leaves two copies, never none.
    const byChunk = new Map<number, OrderRecord[]>();
    for (const order of orders) {
      if ((this.#settledCount.get(this.#currentChunk) ?? 0) >= this.#chunkSize) this.#currentChunk++;
      const chunk = this.#currentChunk;
      this.#settledCount.set(chunk, (this.#settledCount.get(chunk) ?? 0) + 1);
      byChunk.set(chunk, [...(byChunk.get(chunk) ?? []), order]);
    }
    for (const [chunk, chunkOrders] of byChunk) {
      const file = await this.#openChunk(chunk);
      for (const order of chunkOrders) {
        file.data.orders[order.key] = order;
        this.#settledIndex.set(order.key, chunk);
      }
      this.#commit.markDirty(file as Low<unknown>);
    }
    await this.#commit.flush();
    await this.#removeActive(orders.map((order) => order.key));
  }

  async unsettle(key: string): Promise<OrderRecord | undefined> {
    const chunk = this.#settledIndex.get(key);
    if (chunk === undefined) return undefined;
    const file = await this.#openChunk(chunk);
    const order = file.data.orders[key];
    if (!order) return undefined;
    // Hot copy first, then out of the cold chunk.
    await this.saveActive([order]);
    delete file.data.orders[key];
    this.#settledIndex.delete(key);
    this.#settledCount.set(chunk, Math.max(0, (this.#settledCount.get(chunk) ?? 1) - 1));
    this.#commit.markDirty(file as Low<unknown>);
    await this.#commit.flush();
    return order;
  }

  async readSettled(key: string): Promise<OrderRecord | undefined> {
    const chunk = this.#settledIndex.get(key);
    if (chunk === undefined) return undefined;
    return (await this.#openChunk(chunk)).data.orders[key];
  }

  // Only the chunk being filled stays open; others are read when asked for.
  #openChunk(chunk: number): Promise<Low<OrdersFile>> {
    const open = this.#openChunks.get(chunk);
    if (open) return open;
    for (const other of this.#openChunks.keys()) if (other !== this.#currentChunk) this.#openChunks.delete(other);
    const opening = readFile<OrdersFile>(this.#path('orders', `settled-${pad(chunk, 6)}.json`), { orders: {} }, isRecordOf('orders'), this.#backupOf);
    this.#openChunks.set(chunk, opening);
    opening.catch(() => this.#openChunks.delete(chunk));
    return opening;
  }

  async saveSeen(entries: Array<[string, string]>): Promise<void> {
    const byHour = new Map<string, Record<string, string>>();
    for (const [key, receivedAt] of entries) {
      const hour = hourOf(receivedAt);
      const keys = byHour.get(hour) ?? {};
      keys[key] = receivedAt;
      byHour.set(hour, keys);
    }
    await Promise.all(
      [...byHour].map(([hour, keys]) => writeFile(this.#path('seen', `${hour}.${pad(this.#nextSeen++, 9)}.json`), JSON.stringify({ keys }), { flag: 'wx', mode: 0o600 })),
    );
  }

  /** Drops seen delivery keys received before `before`, and merges the files of hours that are over into one each. */
  async pruneSeen(before: Date, now = new Date()): Promise<void> {
    const cutoff = hourOf(before.toISOString());
    const currentHour = hourOf(now.toISOString());
    const byHour = new Map<string, string[]>();
    for (const name of await readdir(this.#path('seen'))) {
      const hour = name.slice(0, 13);
      byHour.set(hour, [...(byHour.get(hour) ?? []), name]);
    }
    for (const [hour, names] of byHour) {
      if (hour < cutoff) {
        await Promise.all(names.map((name) => rm(this.#path('seen', name), { force: true })));
      } else if (hour < currentHour && names.length > 1) {
        const keys: Record<string, string> = {};
        for (const name of names) Object.assign(keys, (await readOnce<SeenFile>(this.#path('seen', name)))?.keys ?? {});
        const merged = `${hour}.${pad(this.#nextSeen++, 9)}.json`;
        await writeFile(this.#path('seen', merged), JSON.stringify({ keys }), { flag: 'wx', mode: 0o600 });
        await Promise.all(names.map((name) => rm(this.#path('seen', name), { force: true })));
      }
    }
  }

  #saveSmall<T>(small: SmallFile<T>, data: T): Promise<void> {
    small.file.data = data;
    this.#commit.markDirty(small.file as Low<unknown>);
    return this.#commit.flush();
  }

  saveDeadLetters(deadLetters: DeadLetter[]): Promise<void> {
    return this.#saveSmall(this.#deadLetters, { deadLetters });
  }

  saveShops(shops: ShopStates): Promise<void> {
    return this.#saveSmall(this.#shops, { shops });
  }

  saveReconciliation(platforms: ReconciliationState): Promise<void> {
    return this.#saveSmall(this.#reconciliation, { platforms });
  }

  saveAdjustments(adjustments: Adjustment[]): Promise<void> {
    return this.#saveSmall(this.#adjustments, { adjustments });
  }

  close(): Promise<void> {
    return this.#commit.flush();
  }
}
