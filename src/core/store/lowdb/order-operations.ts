// Orders in the lowdb store: reading and listing them, handing due ones to
// the worker and saving what it did, a person's change, and settling quiet
// orders out of memory. A claim is held in memory until the worker saves with
// release, or lets go with releaseOrder() (its `finally`), so a failed write
// never strands an order.
import type { Lane, SkippedShops } from '../../lanes.ts';
import { PROGRESS_FIELDS, type OrderRecord } from '../../order-record.ts';
import { countOrders, countWithReason, summarise, type OrderCounts, type OrderSummary } from '../../order-summary.ts';
import type { OrderQuery, SaveResult } from '../ledger-store.ts';
import { matchesQuery, newestFirst } from '../order-query.ts';
import type { LowdbParts } from './parts.ts';
import type { ChunkSummary } from './settled-orders.ts';

/** How long a person's retry waits for a worker to let go of the order before it changes it anyway. */
const WAIT_FOR_WORKER_MS = 30_000;

export class OrderOperations {
  readonly #p: LowdbParts;
  readonly #settleAfterMs: number;
  /**
   * Orders that may be both active and settled, because a write failed while
   * one moved between the two: not counted twice meanwhile, and made one
   * again by the next settle.
   */
  readonly #suspects = new Set<string>();

  constructor(parts: LowdbParts, settleAfterMs: number) {
    this.#p = parts;
    this.#settleAfterMs = settleAfterMs;
  }

  /**
   * The live record for an order: active, brought back from the settled
   * chunks, or made by create(). Runs inside the serial queue. `settled:
   * false` says the caller looked the order up in the settled index already
   * (many at once) and it is not there.
   */
  async live(
    key: string,
    create: () => OrderRecord | undefined,
    { settled: knownSettled = true } = {},
  ): Promise<OrderRecord | undefined> {
    const { active, settled } = this.#p;
    const found = active.get(key);
    if (found) return found;
    const record = knownSettled ? await settled.find(key) : undefined;
    if (record) {
      // Hot copy first, durable, then out of the cold chunk: a crash between leaves two copies, never none.
      active.put(record);
      try {
        await this.#p.flush();
        await settled.remove(key);
      } catch (error) {
        this.#suspects.add(key);
        throw error;
      }
      return record;
    }
    return create();
  }

  async get(key: string): Promise<OrderRecord | undefined> {
    const active = this.#p.active.get(key);
    // The settled chunks hand out copies already.
    return active ? structuredClone(active) : this.#p.settled.find(key);
  }

  claimDue(limit: number, lane?: Lane, skipShops?: ReadonlySet<string>): OrderRecord[] {
    const { active } = this.#p;
    const keys = active.due.claim(limit, this.#p.now().getTime(), lane, skipShops);
    return keys.flatMap((key) => {
      const record = active.get(key);
      return record ? [structuredClone(record)] : [];
    });
  }

  async saveProgress(record: OrderRecord, release: boolean): Promise<SaveResult> {
    const { active } = this.#p;
    const live = active.get(record.key);
    if (!live || !active.due.isHeld(record.key)) return 'lost';
    for (const field of PROGRESS_FIELDS)
      (live as unknown as Record<string, unknown>)[field] = structuredClone(record[field]);
    const refolded = live.foldVersion !== record.foldVersion;
    live.dueAt = refolded ? this.#p.now().toISOString() : record.dueAt;
    if (record.updatedAt > live.updatedAt) live.updatedAt = record.updatedAt;
    active.put(live);
    record.version = live.version;
    await this.#p.flush();
    // Let go only once the save is durable: should it fail, the worker still holds the order and lets go of it itself.
    if (release) {
      active.due.release(record.key);
      active.due.set(record.key, live.dueAt, live.lane);
    }
    return refolded ? 'refolded' : 'saved';
  }

  /** The worker gave the order up without saving (its work failed): due again at retryAt. */
  releaseOrder(key: string, retryAt: Date): void {
    const { active } = this.#p;
    if (!active.due.isHeld(key)) return;
    active.due.release(key);
    const live = active.get(key);
    if (!live) return;
    // Memory only: the record on disk is due already, or the write that said otherwise is what failed.
    live.dueAt = retryAt.toISOString();
    active.due.set(key, live.dueAt, live.lane);
    this.#p.notify();
  }

  async updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined> {
    // A worker holding the order would write its own progress over this change: wait for it to let go.
    for (let waited = 0; this.#p.active.due.isHeld(key) && waited < WAIT_FOR_WORKER_MS; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return this.#p.serial.add(async () => {
      const record = await this.live(key, () => undefined);
      if (!record) return undefined;
      change(record);
      record.dueAt = this.#p.now().toISOString();
      this.#p.active.put(record);
      await this.#p.flush();
      this.#p.notify();
      return structuredClone(record);
    }) as Promise<OrderRecord | undefined>;
  }

  nextDueAt(skip?: SkippedShops): number | undefined {
    return this.#p.active.due.nextAt(skip);
  }

  async claimLpOrderId(lpOrderId: string, key: string, { durable = true } = {}): Promise<string> {
    const owner = await this.#p.lpOrderIds.setIfAbsent(lpOrderId, key);
    // Not durable: the same group commit as the order's next save carries it (its flush waits for both). Durable: a
    // registration made now, or one an earlier round has not yet written (its write failed), is waited for.
    if (owner === key && durable && this.#p.lpOrderIds.isPending(lpOrderId)) await this.#p.flush();
    return owner;
  }

  async list(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }> {
    const { active, settled } = this.#p;
    const wanted = (summary: OrderSummary) => matchesQuery(summary, query);
    const activeKeys = new Set<string>();
    const matches: OrderSummary[] = [];
    for (const record of active.values()) {
      activeKeys.add(record.key);
      const summary = summarise(record);
      if (wanted(summary)) matches.push(summary);
    }
    const needed = query.page * query.limit;
    const dimensions = [query.state, query.platform, query.reason].filter(Boolean).length;
    const exactCounts = !query.q && !query.since && !query.until && !query.shop && dimensions <= 1;
    const chunkMayMatch = (chunk: ChunkSummary) =>
      (!query.state || (chunk.byState[query.state] ?? 0) > 0) &&
      (!query.platform || (chunk.byPlatform[query.platform] ?? 0) > 0) &&
      (!query.reason || countWithReason(chunk, query.reason) > 0) &&
      (!query.since || (chunk.newest ?? '') >= query.since.toISOString()) &&
      (!query.until || (chunk.oldest ?? '') <= query.until.toISOString());

    let total = matches.length;
    if (exactCounts) {
      const counts = settled.counts();
      total += query.state
        ? (counts.byState[query.state] ?? 0)
        : query.platform
          ? (counts.byPlatform[query.platform] ?? 0)
          : query.reason
            ? countWithReason(counts, query.reason)
            : counts.total;
    }
    // Once the page is full, a chunk whose newest order is older than the page's last cannot enter it, and is not read.
    const settledMatches: OrderSummary[] = [];
    let boundary = '';
    for await (const record of settled.scan(
      (chunk) =>
        chunkMayMatch(chunk) && (!exactCounts || settledMatches.length < needed || (chunk.newest ?? '') >= boundary),
    )) {
      if (activeKeys.has(record.key)) continue;
      const summary = summarise(record);
      if (!wanted(summary)) continue;
      settledMatches.push(summary);
      if (!exactCounts) total++;
      if (exactCounts && settledMatches.length >= needed) {
        settledMatches.sort(newestFirst);
        settledMatches.length = needed;
        boundary = settledMatches.at(-1)?.updatedAt ?? '';
      }
    }
    const page = [...matches, ...settledMatches].sort(newestFirst);
    const start = (query.page - 1) * query.limit;
    return { total, orders: page.slice(start, start + query.limit) };
  }

  async count(): Promise<OrderCounts> {
    const counts = countOrders([...this.#p.active.values()].map(summarise));
    const settled = this.#p.settled.counts();
    // An order in both places is counted as its active self only.
    const twice = [];
    for (const key of this.#suspects) {
      if (!this.#p.active.get(key)) continue;
      const copy = await this.#p.settled.find(key);
      if (copy) twice.push(summarise(copy));
    }
    const minus = countOrders(twice);
    for (const [into, from] of [
      [settled.byState, minus.byState],
      [settled.byPlatform, minus.byPlatform],
      [settled.skipped, minus.skipped],
      [settled.attention, minus.attention],
    ] as const) {
      for (const [name, value] of Object.entries(from)) into[name] = (into[name] ?? 0) - value;
    }
    const add = (into: Record<string, number>, from: Record<string, number>) => {
      for (const [name, value] of Object.entries(from)) into[name] = (into[name] ?? 0) + value;
    };
    add(counts.byState, settled.byState);
    add(counts.byPlatform, settled.byPlatform);
    add(counts.skipped, settled.skipped);
    add(counts.attention, settled.attention);
    return counts;
  }

  /**
   * After a start that did not follow a clean stop, any active order may have
   * a settled copy too (a crash between the two writes of a move): every one
   * is looked at once.
   */
  async mendAfterCrash(): Promise<void> {
    for (const record of this.#p.active.values()) this.#suspects.add(record.key);
    await this.#p.serial.add(() => this.#mendSuspects());
  }

  /** Makes each suspect one order again: an active order loses its settled copy. */
  async #mendSuspects(): Promise<void> {
    if (this.#suspects.size === 0) return;
    const keys = [...this.#suspects];
    const settledIn = await this.#p.settled.index.getMany(keys);
    for (const key of keys) {
      if (this.#p.active.get(key) && settledIn.get(key) !== undefined) await this.#p.settled.remove(key);
      this.#suspects.delete(key);
    }
  }

  /**
   * Moves orders with nothing due, quiet for settleAfterMs and held by no
   * worker, out of memory. An order changed while it was being copied stays
   * (its version moved on), so a settle never drops a change it did not write.
   */
  settleQuiet(): Promise<number> {
    const { active, settled } = this.#p;
    if (this.#p.readOnly) return Promise.resolve(0);
    return this.#p.serial.add(async () => {
      await this.#mendSuspects();
      const now = this.#p.now().getTime();
      const quiet = [...active.values()].filter(
        (record) =>
          record.dueAt === null &&
          !active.due.isHeld(record.key) &&
          now - Date.parse(record.updatedAt) >= this.#settleAfterMs,
      );
      if (quiet.length === 0) return 0;
      const versions = new Map(quiet.map((record) => [record.key, record.version]));
      try {
        await settled.add(quiet);
      } catch (error) {
        for (const record of quiet) this.#suspects.add(record.key);
        throw error;
      }
      const unchanged = quiet.filter(
        (record) =>
          active.get(record.key) === record &&
          record.version === versions.get(record.key) &&
          record.dueAt === null &&
          !active.due.isHeld(record.key),
      );
      active.remove(unchanged.map((record) => record.key));
      await this.#p.flush();
      return unchanged.length;
    }) as Promise<number>;
  }
}
