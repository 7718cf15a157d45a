// The embedded store: lowdb files under DATA_DIR.
//
// lowdb rewrites and re-serialises a whole file on every write, so the data is
// cut so that no write grows with the history of the shop:
//   inbox/<seq>.json           one file per acknowledged batch of deliveries, deleted once folded
//   orders/active-<n>.json     orders still moving, spread over a few shards
//   orders/settled-<n>.json    quiet, finished orders, in chunks of a bounded size
//   seen/<yyyy-mm-ddThh>.json  delivery keys for dedupe, one file an hour, dropped after the window
//   dead-letters.json          what needs a person
//   shops.json                 shops that removed the app
//   reconciliation.json        each platform's last reconciliation and high-water mark
//   adjustments.json           manual earns and redeems, with who asked and why
// The folder is created readable by its owner only: it holds customers' contact details.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import { summarise, type OrderRecord, type OrderSummary } from '../order-record.ts';
import { GroupCommit } from './group-commit.ts';
import { LedgerDamagedError, type DeadLetter, type InboxEntry, type LedgerStore, type LoadedLedger, type ReconciliationState, type ShopStates, type Adjustment } from './ledger-store.ts';

interface OrdersFile {
  orders: Record<string, OrderRecord>;
}
interface InboxFile {
  entries: InboxEntry[];
}
interface SeenFile {
  keys: Record<string, string>;
}
interface DeadLettersFile {
  deadLetters: DeadLetter[];
}
interface ShopsFile {
  shops: ShopStates;
}
interface ReconciliationFile {
  platforms: ReconciliationState;
}
interface AdjustmentsFile {
  adjustments: Adjustment[];
}

export interface LowdbStoreOptions {
  dataDir: string;
  activeShards?: number;
  settledChunkSize?: number;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const hourOf = (iso: string) => iso.slice(0, 13);

// Compact JSON: the files are for the program; the admin API is for people.
const openFile = <T>(path: string, empty: T): Low<T> =>
  new Low<T>(new DataFile<T>(path, { parse: JSON.parse, stringify: (data) => JSON.stringify(data) }), empty);

async function readFile<T>(path: string, empty: T, isValid: (data: T) => boolean): Promise<Low<T>> {
  const file = openFile(path, empty);
  try {
    await file.read();
  } catch (error) {
    throw new LedgerDamagedError(path, error instanceof SyntaxError ? 'not valid JSON: empty or cut short' : (error as Error).message);
  }
  if (!isValid(file.data)) throw new LedgerDamagedError(path, 'not the shape loyalty-bridge writes');
  return file;
}

const isRecordOf = (key: string) => (data: unknown) =>
  typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)[key] === 'object' && (data as Record<string, unknown>)[key] !== null;

export class LowdbStore implements LedgerStore {
  readonly #dir: string;
  readonly #shards: number;
  readonly #chunkSize: number;
  readonly #commit = new GroupCommit();
  #active: Array<Low<OrdersFile>> = [];
  #settledIndex = new Map<string, number>();
  #settledCount = new Map<number, number>();
  #currentChunk = 0;
  #seenFiles = new Map<string, Low<SeenFile>>();
  #deadLetters!: Low<DeadLettersFile>;
  #shops!: Low<ShopsFile>;
  #reconciliation!: Low<ReconciliationFile>;
  #adjustments!: Low<AdjustmentsFile>;
  #nextSegment = 1;

  constructor({ dataDir, activeShards = 8, settledChunkSize = 1_000 }: LowdbStoreOptions) {
    this.#dir = dataDir;
    this.#shards = activeShards;
    this.#chunkSize = settledChunkSize;
  }

  #path(...parts: string[]) {
    return join(this.#dir, ...parts);
  }

  async load(): Promise<LoadedLedger> {
    for (const sub of ['', 'inbox', 'orders', 'seen']) await mkdir(this.#path(sub), { recursive: true, mode: 0o700 });
    await chmod(this.#dir, 0o700);

    this.#active = [];
    for (let shard = 0; shard < this.#shards; shard++) {
      this.#active.push(await readFile(this.#path('orders', `active-${pad(shard, 2)}.json`), { orders: {} }, isRecordOf('orders')));
    }
    const activeOrders = this.#active.flatMap((file) => Object.values(file.data.orders));
    const activeKeys = new Set(activeOrders.map((order) => order.key));

    const files = await readdir(this.#path('orders'));
    const settledKeys: string[] = [];
    const settledSummaries: OrderSummary[] = [];
    for (const name of files.filter((file) => /^settled-\d+\.json$/.test(file)).sort()) {
      const chunk = Number(/\d+/.exec(name)?.[0]);
      const file = await readFile<OrdersFile>(this.#path('orders', name), { orders: {} }, isRecordOf('orders'));
      const keys = Object.keys(file.data.orders);
      this.#settledCount.set(chunk, keys.length);
      this.#currentChunk = Math.max(this.#currentChunk, chunk);
      for (const key of keys) {
        // A crash between the two writes of a move can leave an order in both places: the hot copy is the newer.
        if (activeKeys.has(key)) continue;
        this.#settledIndex.set(key, chunk);
        settledKeys.push(key);
        const order = file.data.orders[key];
        if (order) settledSummaries.push(summarise(order));
      }
    }

    const inbox: LoadedLedger['inbox'] = [];
    for (const name of (await readdir(this.#path('inbox'))).filter((file) => /^\d+\.json$/.test(file)).sort()) {
      const file = await readFile<InboxFile>(this.#path('inbox', name), { entries: [] }, (data) => Array.isArray(data.entries));
      inbox.push({ segment: name, entries: file.data.entries });
      this.#nextSegment = Math.max(this.#nextSegment, Number(name.slice(0, -5)) + 1);
    }

    const seen: LoadedLedger['seen'] = [];
    for (const name of (await readdir(this.#path('seen'))).filter((file) => file.endsWith('.json')).sort()) {
      const file = await readFile<SeenFile>(this.#path('seen', name), { keys: {} }, isRecordOf('keys'));
      for (const entry of Object.entries(file.data.keys)) seen.push(entry);
    }

    this.#deadLetters = await readFile<DeadLettersFile>(this.#path('dead-letters.json'), { deadLetters: [] }, (data) => Array.isArray(data.deadLetters));

    this.#shops = await readFile<ShopsFile>(this.#path('shops.json'), { shops: {} }, isRecordOf('shops'));

    this.#reconciliation = await readFile<ReconciliationFile>(this.#path('reconciliation.json'), { platforms: {} }, isRecordOf('platforms'));
    this.#adjustments = await readFile<AdjustmentsFile>(this.#path('adjustments.json'), { adjustments: [] }, (data) => Array.isArray(data.adjustments));

    return {
      activeOrders,
      inbox,
      seen,
      settledKeys,
      settledSummaries,
      deadLetters: this.#deadLetters.data.deadLetters,
      shops: this.#shops.data.shops,
      reconciliation: this.#reconciliation.data.platforms,
      adjustments: this.#adjustments.data.adjustments,
    };
  }

  async appendInbox(entries: InboxEntry[]): Promise<string> {
    const segment = `${pad(this.#nextSegment++, 12)}.json`;
    const file = openFile<InboxFile>(this.#path('inbox', segment), { entries });
    await file.write();
    return segment;
  }

  async dropInbox(segments: string[]): Promise<void> {
    await Promise.all(segments.map((segment) => rm(this.#path('inbox', segment), { force: true })));
  }

  #shardOf(key: string): Low<OrdersFile> {
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) | 0;
    const file = this.#active[Math.abs(hash) % this.#shards];
    if (!file) throw new Error('store not loaded');
    return file;
  }

  saveActive(orders: OrderRecord[]): Promise<void> {
    for (const order of orders) {
      const shard = this.#shardOf(order.key);
      shard.data.orders[order.key] = order;
      this.#commit.markDirty(shard as Low<unknown>);
    }
    return this.#commit.flush();
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
    for (const order of orders) {
      const shard = this.#shardOf(order.key);
      delete shard.data.orders[order.key];
      this.#commit.markDirty(shard as Low<unknown>);
    }
    await this.#commit.flush();
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
  #openChunks = new Map<number, Low<OrdersFile>>();
  async #openChunk(chunk: number): Promise<Low<OrdersFile>> {
    const open = this.#openChunks.get(chunk);
    if (open) return open;
    const file = await readFile<OrdersFile>(this.#path('orders', `settled-${pad(chunk, 6)}.json`), { orders: {} }, isRecordOf('orders'));
    for (const other of this.#openChunks.keys()) if (other !== this.#currentChunk) this.#openChunks.delete(other);
    this.#openChunks.set(chunk, file);
    return file;
  }

  async saveSeen(entries: Array<[string, string]>): Promise<void> {
    for (const [key, receivedAt] of entries) {
      const hour = hourOf(receivedAt);
      let file = this.#seenFiles.get(hour);
      if (!file) {
        file = await readFile<SeenFile>(this.#path('seen', `${hour}.json`), { keys: {} }, isRecordOf('keys'));
        this.#seenFiles.set(hour, file);
      }
      file.data.keys[key] = receivedAt;
      this.#commit.markDirty(file as Low<unknown>);
    }
    // Hours no longer being written need not stay in memory.
    const newest = [...this.#seenFiles.keys()].sort().at(-1) ?? '';
    for (const hour of this.#seenFiles.keys()) if (hour < newest && this.#seenFiles.size > 2) this.#seenFiles.delete(hour);
    await this.#commit.flush();
  }

  async pruneSeen(before: Date): Promise<void> {
    const cutoff = hourOf(before.toISOString());
    for (const name of await readdir(this.#path('seen'))) {
      const hour = name.replace(/\.json$/, '');
      if (hour < cutoff) {
        this.#seenFiles.delete(hour);
        await rm(this.#path('seen', name), { force: true });
      }
    }
  }

  saveDeadLetters(deadLetters: DeadLetter[]): Promise<void> {
    this.#deadLetters.data.deadLetters = deadLetters;
    this.#commit.markDirty(this.#deadLetters as Low<unknown>);
    return this.#commit.flush();
  }

  saveShops(shops: ShopStates): Promise<void> {
    this.#shops.data.shops = shops;
    this.#commit.markDirty(this.#shops as Low<unknown>);
    return this.#commit.flush();
  }

  saveReconciliation(state: ReconciliationState): Promise<void> {
    this.#reconciliation.data.platforms = state;
    this.#commit.markDirty(this.#reconciliation as Low<unknown>);
    return this.#commit.flush();
  }

  saveAdjustments(adjustments: Adjustment[]): Promise<void> {
    this.#adjustments.data.adjustments = adjustments;
    this.#commit.markDirty(this.#adjustments as Low<unknown>);
    return this.#commit.flush();
  }

  close(): Promise<void> {
    return this.#commit.flush();
  }
}
