// Orders with nothing left to do, out of the hot files and out of memory: chunks of up to 1,000
// (orders/settled-NNNNNN.json), an index of which chunk holds each order (a HashedMap), and a summary per
// chunk (orders/chunks.json), so that nothing grows in memory with the history. Start-up summarises again
// only a chunk whose file changed after its summary was written (a crash between the two writes).
import { join } from 'node:path';
import { type OrderRecord } from '../../order-record.ts';
import { countOrders, summarise, type OrderCounts, type OrderSummary } from '../../order-summary.ts';
import { upgradeChunkAttention, upgradeOrder } from '../format/upgrade-records.ts';
import { customerFilter } from './customer-filter.ts';
import { loadDurable, openDurable, type DurableLow } from './durable-file.ts';
import type { GroupCommit } from './group-commit.ts';
import { HashedMap } from './hashed-map.ts';
import { OpenFiles } from './open-files.ts';

interface ChunkFile {
  orders: Record<string, OrderRecord>;
}

export interface ChunkSummary extends OrderCounts {
  count: number;
  oldest: string | null;
  newest: string | null;
  size: number;
  mtimeMs: number;
  /** Its orders' customers (customer-filter.ts); absent in a summary written before them, which start-up redoes. */
  customers?: string;
}

interface Directory {
  chunks: Record<string, ChunkSummary>;
}

const pad = (n: number) => String(n).padStart(6, '0');
const chunkName = (seq: number) => `settled-${pad(seq)}.json`;
const seqOf = (name: string) => Number(/(\d+)\.json$/.exec(name)?.[1] ?? 0);
const OPEN_CHUNKS = 4;

export interface SettledOrdersOptions {
  chunkSize?: number;
  /** Chunks kept open when nobody uses them (tests make it tiny, to let go of chunks all the time). */
  openChunks?: number;
  /** Index files kept open likewise. */
  openIndexFiles?: number;
  readOnly?: boolean;
  backupOf?: (path: string) => string | undefined;
}

export class SettledOrders {
  readonly #dir: string;
  readonly #commit: GroupCommit;
  readonly #chunkSize: number;
  readonly #readOnly: boolean;
  readonly #backupOf: (path: string) => string | undefined;
  readonly index: HashedMap;
  #directory!: DurableLow<Directory>;
  #current = 0;
  readonly #open: OpenFiles<number, DurableLow<ChunkFile>>;

  constructor(
    ordersDir: string,
    commit: GroupCommit,
    {
      chunkSize = 1_000,
      openChunks = OPEN_CHUNKS,
      openIndexFiles,
      readOnly = false,
      backupOf = () => undefined,
    }: SettledOrdersOptions = {},
  ) {
    this.#open = new OpenFiles(openChunks);
    this.#dir = ordersDir;
    this.#commit = commit;
    this.#chunkSize = chunkSize;
    this.#readOnly = readOnly;
    this.#backupOf = backupOf;
    this.index = new HashedMap(join(ordersDir, 'index'), commit, {
      readOnly,
      ...(openIndexFiles ? { cachedFiles: openIndexFiles } : {}),
    });
  }

  get directoryPath(): string {
    return join(this.#dir, 'chunks.json');
  }

  /** Loads the chunk summaries, mends any a crash left stale, and builds them (and the index) for a ledger written before they existed. */
  async open(): Promise<string | undefined> {
    await this.index.init();
    this.#directory = openDurable<Directory>(this.#commit.io, this.directoryPath, { chunks: {} }, ['chunks']);
    const hadDirectory = await loadDurable(
      this.#directory,
      (data) => typeof data.chunks === 'object' && data.chunks !== null,
      this.#backupOf,
    );
    for (const summary of Object.values(this.#directory.data.chunks))
      summary.attention = upgradeChunkAttention(summary.attention);
    const names = (await this.#commit.io.readdir(this.#dir)).filter((file) => /^settled-\d+\.json$/.test(file)).sort();
    let upgraded: string | undefined;
    let rebuilt = 0;
    this.#current = 1;
    for (const name of names) {
      const seq = seqOf(name);
      this.#current = Math.max(this.#current, seq);
      const summary = this.#directory.data.chunks[seq];
      const stats = await this.#commit.io.stat(join(this.#dir, name));
      // Times within a couple of milliseconds: a copy (cp -p, Node's cpSync) keeps them no finer, and a rewrite after the summary changes more.
      // A summary without its customers' filter (from before them) is redone once: its chunk read again.
      if (
        summary &&
        summary.customers !== undefined &&
        summary.size === stats.size &&
        Math.abs(summary.mtimeMs - stats.mtimeMs) < 2
      )
        continue;
      if (this.#readOnly) continue;
      // Written before its summary (or before summaries existed): read it once and summarise it again.
      await this.#use(seq, async (file) => {
        if (!hadDirectory) for (const key of Object.keys(file.data.orders)) await this.index.set(key, String(seq));
        await this.#summarise(seq, file);
      });
      rebuilt++;
    }
    for (const seq of Object.keys(this.#directory.data.chunks)) {
      if (!names.includes(chunkName(Number(seq))) && !this.#readOnly) delete this.#directory.data.chunks[seq];
    }
    if (rebuilt > 0 && !this.#readOnly) {
      await this.#commit.flush();
      this.#commit.markDirty(this.#directory as DurableLow<unknown>);
      await this.#commit.flush();
      if (!hadDirectory) upgraded = `indexed ${rebuilt} settled chunks written by an earlier version`;
    }
    return upgraded;
  }

  #openChunk(seq: number): () => Promise<DurableLow<ChunkFile>> {
    return async () => {
      const file = openDurable<ChunkFile>(this.#commit.io, join(this.#dir, chunkName(seq)), { orders: {} }, ['orders']);
      await loadDurable(file, (data) => typeof data.orders === 'object' && data.orders !== null, this.#backupOf);
      for (const order of Object.values(file.data.orders)) upgradeOrder(order);
      return file;
    };
  }

  /** Runs fn with a chunk, held open meanwhile (see OpenFiles: one object per file, never let go while changed). */
  #use<R>(seq: number, fn: (file: DurableLow<ChunkFile>) => R | Promise<R>): Promise<R> {
    return this.#open.use(seq, this.#openChunk(seq), fn);
  }

  /**
   * A chunk's summary from what it holds now. The file's size and time, which
   * tell at start whether the summary is the file's, come after its write
   * (stat); until then the old ones stay, and a start that finds them
   * different only summarises the chunk again.
   */
  async #summarise(seq: number, file: DurableLow<ChunkFile>, stat = true): Promise<void> {
    const orders = Object.values(file.data.orders);
    const times = orders.map((order) => order.updatedAt).sort();
    const before = this.#directory.data.chunks[seq];
    const stats = stat ? await this.#commit.io.stat(file.adapter.path).catch(() => undefined) : undefined;
    this.#directory.data.chunks[seq] = {
      ...countOrders(orders.map(summarise)),
      count: orders.length,
      oldest: times[0] ?? null,
      newest: times.at(-1) ?? null,
      customers: customerFilter(orders),
      size: stats?.size ?? before?.size ?? 0,
      mtimeMs: stats?.mtimeMs ?? before?.mtimeMs ?? 0,
    };
  }

  /**
   * Writes the chunks changed (held open by the caller), then their summaries.
   * The counts in memory follow the chunks at once, written or not: should a
   * write fail, the chunks stay changed in memory and so do their counts.
   */
  async #persist(chunks: Map<number, DurableLow<ChunkFile>>): Promise<void> {
    const summarised = async (stat: boolean) => {
      for (const [seq, file] of chunks) {
        if (Object.keys(file.data.orders).length === 0 && seq !== this.#current)
          delete this.#directory.data.chunks[seq];
        else await this.#summarise(seq, file, stat);
      }
    };
    for (const file of chunks.values()) this.#commit.markDirty(file as DurableLow<unknown>);
    await summarised(false);
    await this.#commit.flush();
    await summarised(true);
    this.#commit.markDirty(this.#directory as DurableLow<unknown>);
    await this.#commit.flush();
  }

  /** A copy of a settled order: the chunk's own object stays the chunk's. */
  async find(key: string): Promise<OrderRecord | undefined> {
    const seq = await this.index.get(key);
    if (seq === undefined) return undefined;
    return this.#use(Number(seq), (file) => {
      const record = file.data.orders[key];
      return record && structuredClone(record);
    });
  }

  /**
   * Adds orders to the chunk being filled (copies: the caller's records stay
   * theirs), and removes an older copy of any of them left in another chunk.
   * Every chunk it changes stays held until it is written. Durable when it resolves.
   */
  async add(records: OrderRecord[]): Promise<void> {
    const held = new Map<number, { file: DurableLow<ChunkFile>; done: () => void }>();
    const hold = async (seq: number) => {
      let handle = held.get(seq);
      if (!handle) {
        handle = await this.#open.acquire(seq, this.#openChunk(seq));
        held.set(seq, handle);
      }
      return handle.file;
    };
    try {
      const previous = await this.index.getMany(records.map((record) => record.key));
      let current = await hold(this.#current);
      let filled = Object.keys(current.data.orders).length;
      for (const record of records) {
        const was = previous.get(record.key);
        if (filled >= this.#chunkSize && !(was !== undefined && Number(was) === this.#current)) {
          this.#current++;
          current = await hold(this.#current);
          filled = Object.keys(current.data.orders).length;
        }
        if (was !== undefined && Number(was) !== this.#current)
          delete (await hold(Number(was))).data.orders[record.key];
        if (!(record.key in current.data.orders)) filled++;
        current.data.orders[record.key] = structuredClone(record);
        await this.index.set(record.key, String(this.#current));
      }
      const touched = new Map([...held].map(([seq, handle]) => [seq, handle.file]));
      if (touched.size > 0) await this.#persist(touched);
    } finally {
      for (const handle of held.values()) handle.done();
    }
  }

  /** Removes an order from the settled chunks (it became active again; its active copy is already durable). */
  async remove(key: string): Promise<void> {
    const seq = await this.index.get(key);
    if (seq === undefined) return;
    await this.#use(Number(seq), async (file) => {
      delete file.data.orders[key];
      await this.index.delete(key);
      await this.#persist(new Map([[Number(seq), file]]));
    });
  }

  /** Changes settled orders in place (erasure), chunk by chunk; returns how many changed. */
  async rewrite(change: (record: OrderRecord) => 'keep' | 'changed' | 'delete'): Promise<number> {
    let changed = 0;
    for (const seq of this.#chunkSeqs()) {
      await this.#use(seq, async (file) => {
        let touched = false;
        for (const [key, record] of Object.entries(file.data.orders)) {
          const verdict = change(record);
          if (verdict === 'keep') continue;
          touched = true;
          changed++;
          if (verdict === 'delete') {
            delete file.data.orders[key];
            await this.index.delete(key);
          }
        }
        if (touched) await this.#persist(new Map([[seq, file]]));
      });
    }
    return changed;
  }

  #chunkSeqs(newestFirst = false): number[] {
    const seqs = Object.keys(this.#directory.data.chunks).map(Number);
    if (!seqs.includes(this.#current)) seqs.push(this.#current);
    return seqs.sort((a, b) => (newestFirst ? b - a : a - b));
  }

  /** Every settled order, chunk by chunk, newest chunk first; chunks whose summary rules them out are not read. */
  async *scan(
    wanted: (summary: ChunkSummary) => boolean = () => true,
    newestFirst = true,
  ): AsyncGenerator<OrderRecord> {
    for (const seq of this.#chunkSeqs(newestFirst)) {
      const summary = this.#directory.data.chunks[seq];
      if (summary && !wanted(summary)) continue;
      const { file, done } = await this.#open.acquire(seq, this.#openChunk(seq));
      try {
        yield* Object.values(file.data.orders);
      } finally {
        done();
      }
    }
  }

  summaries(): ChunkSummary[] {
    return Object.values(this.#directory.data.chunks);
  }

  /** Orders by state, platform and skip reason, summed over the chunk summaries. */
  counts(): OrderCounts & { total: number } {
    const total: OrderCounts & { total: number } = {
      byState: {},
      byPlatform: {},
      skipped: {},
      attention: {},
      total: 0,
    };
    const add = (into: Record<string, number>, from: Record<string, number>) => {
      for (const [name, value] of Object.entries(from)) into[name] = (into[name] ?? 0) + value;
    };
    for (const summary of this.summaries()) {
      add(total.byState, summary.byState);
      add(total.byPlatform, summary.byPlatform);
      add(total.skipped, summary.skipped);
      add(total.attention, summary.attention);
      total.total += summary.count;
    }
    return total;
  }
}

export type { OrderSummary };
