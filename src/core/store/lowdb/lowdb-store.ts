// The embedded store: lowdb files under DATA_DIR, for one bridge.
//
//   inbox/, seen/              the acknowledgement path and dedupe (inbox.ts)
//   orders/active-*.json       orders still moving, cached in memory (active-orders.ts)
//   orders/settled-*.json,     orders with nothing left to do, out of memory
//   orders/index/, chunks.json (settled-orders.ts)
//   lp-order-ids/              which order each lp_orderid belongs to (a HashedMap)
//   dead-letters.json,         small state (record-files.ts)
//   records/<kind>.json
//   backup/                    the last good copy of every file rewritten in place
//   lock                       held with a kernel lock while a process uses the ledger
//
// Every write is fdatasynced, with its directory, before it resolves. The
// folder is readable by its owner only: it holds customers' contact details
// and platform access tokens.
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import PQueue from 'p-queue';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import { applyEvent, countOrders, newOrderRecord, PROGRESS_FIELDS, summarise, type OrderCounts, type OrderRecord, type OrderSummary } from '../../order-record.ts';
import { orderKey } from '../../order-event.ts';
import { contactMatches, eraseOrder, inScope, orderMatches, scrubText } from '../customer-data.ts';
import type {
  Adjustment,
  CustomerData,
  CustomerMatch,
  DeadLetter,
  DeliveryRedactor,
  ErasureReport,
  IntakeCommit,
  LedgerItem,
  LedgerStore,
  NewDeadLetter,
  OpenReport,
  OrderQuery,
  RecordKind,
  SaveResult,
  ShopState,
  StoreStats,
} from '../ledger-store.ts';
import { matchesQuery, newestFirst } from '../order-query.ts';
import { ActiveOrders } from './active-orders.ts';
import { GroupCommit } from './group-commit.ts';
import { HashedMap } from './hashed-map.ts';
import { Inbox } from './inbox.ts';
import { RecordFiles } from './record-files.ts';
import { SettledOrders, type ChunkSummary } from './settled-orders.ts';

export interface LowdbStoreOptions {
  dataDir: string;
  /** For status and listing by the CLI while a bridge runs: reads, never writes or deletes. */
  readOnly?: boolean;
  dedupeWindowMs?: number;
  /** An order with nothing due, quiet this long, leaves memory for the settled chunks. */
  settleAfterMs?: number;
  activePartitionSize?: number;
  settledChunkSize?: number;
  /** Off only for a bulk load that acknowledges nothing (seeding a benchmark). */
  fsync?: boolean;
  now?: () => Date;
}

const BACKUP = 'backup';
/** Folders whose files are rewritten in place, and so are backed up. */
const BACKED_UP = ['orders', join('orders', 'index'), 'lp-order-ids', 'records'];

export class LowdbStore implements LedgerStore {
  readonly kind = 'lowdb' as const;
  readonly #dir: string;
  readonly #readOnly: boolean;
  readonly #dedupeWindowMs: number;
  readonly #settleAfterMs: number;
  readonly #now: () => Date;
  readonly #commit: GroupCommit;
  readonly #inbox: Inbox;
  readonly #active: ActiveOrders;
  readonly #settled: SettledOrders;
  readonly #lpOrderIds: HashedMap;
  readonly #records: RecordFiles;
  /** Changes that touch several files in an order that matters (fold, settle, erase) run one at a time. */
  readonly #serial = new PQueue({ concurrency: 1 });
  readonly #exclusive = new Set<string>();
  readonly #listeners: Array<() => void> = [];
  #sweeper: NodeJS.Timeout | undefined;

  constructor({ dataDir, readOnly = false, dedupeWindowMs = 7 * 24 * 60 * 60_000, settleAfterMs = 2 * 60_000, activePartitionSize, settledChunkSize, fsync = true, now = () => new Date() }: LowdbStoreOptions) {
    this.#dir = dataDir;
    this.#commit = new GroupCommit({ sync: fsync });
    this.#readOnly = readOnly;
    this.#dedupeWindowMs = dedupeWindowMs;
    this.#settleAfterMs = settleAfterMs;
    this.#now = now;
    const backupOf = this.#backupOf;
    this.#inbox = new Inbox(dataDir, this.#commit, { readOnly, now });
    this.#inbox.onAccepted = () => this.#notify();
    this.#active = new ActiveOrders(join(dataDir, 'orders'), this.#commit, { ...(activePartitionSize ? { partitionSize: activePartitionSize } : {}), backupOf });
    this.#settled = new SettledOrders(join(dataDir, 'orders'), this.#commit, { ...(settledChunkSize ? { chunkSize: settledChunkSize } : {}), readOnly, backupOf });
    this.#lpOrderIds = new HashedMap(join(dataDir, 'lp-order-ids'), this.#commit, { readOnly });
    this.#records = new RecordFiles(dataDir, this.#commit, backupOf);
  }

  #path(...parts: string[]) {
    return join(this.#dir, ...parts);
  }

  /** The backup of a ledger file, when one exists. */
  #backupOf = (path: string): string | undefined => {
    const backup = join(this.#dir, BACKUP, relative(this.#dir, path));
    return existsSync(backup) ? backup : undefined;
  };

  async open(): Promise<OpenReport> {
    if (!this.#readOnly) {
      for (const sub of ['', 'inbox', 'orders', 'seen']) await mkdir(this.#path(sub), { recursive: true, mode: 0o700 });
      await chmod(this.#dir, 0o700);
      await this.#removeStrayTemporaries();
    } else if (!existsSync(this.#path('orders'))) {
      throw new Error(`${this.#dir} holds no loyalty-bridge ledger`);
    }
    const tornInboxFiles = await this.#inbox.open(this.#dedupeWindowMs);
    await this.#active.open();
    const upgraded = [await this.#settled.open()];
    await this.#lpOrderIds.init();
    await this.#records.open(this.#readOnly);
    if (!this.#readOnly) {
      const moved = await this.#records.upgradeOldFiles();
      if (moved.length > 0) upgraded.push(`moved ${moved.join(', ')} into records/`);
      this.#sweeper = setInterval(() => void this.settleQuiet().catch(() => undefined), Math.max(1_000, Math.min(30_000, this.#settleAfterMs)));
      this.#sweeper.unref();
    }
    const notes = upgraded.filter(Boolean);
    return { tornInboxFiles, ...(notes.length > 0 ? { upgraded: notes.join('; ') } : {}) };
  }

  /** A write cut short leaves a temporary file with what it was writing: none may outlive a crash (they may hold erased data). */
  async #removeStrayTemporaries(): Promise<void> {
    for (const sub of ['', 'inbox', 'orders', join('orders', 'index'), 'lp-order-ids', 'records', 'seen']) {
      const names = await readdir(this.#path(sub)).catch(() => [] as string[]);
      for (const name of names.filter((file) => /^\..+\.tmp$/.test(file))) await rm(this.#path(sub, name), { force: true });
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    if (this.#readOnly) return;
    await this.#inbox.settled();
    await this.#serial.onIdle();
    await this.#commit.flush();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  onWork(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async #flush(): Promise<void> {
    await this.#commit.flush();
    this.#lpOrderIds.flushed();
    this.#settled.index.flushed();
    await this.#active.flushed();
  }

  // --- The acknowledgement path.

  accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'> {
    return this.#inbox.accept(entry);
  }

  async hasSeen(key: string): Promise<boolean> {
    return this.#inbox.hasSeen(key);
  }

  async pruneSeen(before: Date): Promise<void> {
    await this.#inbox.pruneSeen(before);
  }

  // --- Intake.

  async claimInbox(_owner: string, limit: number, _leaseMs?: number): Promise<InboxEntry[]> {
    return this.#inbox.claim(limit).map((entry) => structuredClone(entry));
  }

  async inboxEntry(key: string): Promise<InboxEntry | undefined> {
    const entry = this.#inbox.entry(key);
    return entry && structuredClone(entry);
  }

  async nextInboxAt(): Promise<number | undefined> {
    return this.#inbox.nextRetryAt();
  }

  async deferInbox(key: string, retry: EntryRetry): Promise<void> {
    this.#inbox.defer(key, retry);
    await this.#flush();
    this.#inbox.release(key);
  }

  commitIntake(commits: IntakeCommit[]): Promise<string[]> {
    return this.#serial.add(async () => {
      const now = this.#now().toISOString();
      const changed = new Set<string>();
      for (const commit of commits) {
        for (const event of commit.events ?? []) {
          const record = await this.#orderForEvent(orderKey(event), () => newOrderRecord(event, now));
          applyEvent(record, event, commit.entryKey, now);
          this.#active.put(record);
          changed.add(record.key);
        }
        if (commit.deadLetter) this.#upsertDeadLetter(commit.deadLetter);
        if (commit.shop) this.#records.put('shop', `${commit.shop.platform}:${commit.shop.shop}`, commit.shop);
      }
      const keys = commits.map((commit) => commit.entryKey);
      try {
        await this.#inbox.recordConsumed(keys);
        await this.#flush();
      } catch (error) {
        // Still in the inbox, to be taken again.
        for (const key of keys) this.#inbox.release(key);
        throw error;
      }
      // Only now that what they became is durable do the entries go.
      await this.#inbox.drop(keys);
      if (changed.size > 0) this.#notify();
      return [...changed];
    }) as Promise<string[]>;
  }

  /** The live record for an order: active, brought back from the settled chunks, or new. */
  async #orderForEvent(key: string, create: () => OrderRecord): Promise<OrderRecord> {
    const active = this.#active.get(key);
    if (active) return active;
    const settled = await this.#settled.find(key);
    if (settled) {
      // Hot copy first, durable, then out of the cold chunk: a crash between leaves two copies, never none.
      this.#active.put(settled);
      await this.#flush();
      await this.#settled.remove(key);
      return settled;
    }
    return create();
  }

  // --- Orders.

  async getOrder(key: string): Promise<OrderRecord | undefined> {
    const record = this.#active.get(key) ?? (await this.#settled.find(key));
    return record && structuredClone(record);
  }

  async claimDue(_owner: string, limit: number, _leaseMs?: number): Promise<OrderRecord[]> {
    const keys = this.#active.due.claim(limit, this.#now().getTime());
    return keys.flatMap((key) => {
      const record = this.#active.get(key);
      return record ? [structuredClone(record)] : [];
    });
  }

  async saveProgress(record: OrderRecord, { release }: { owner: string; release: boolean; leaseMs: number }): Promise<SaveResult> {
    const live = this.#active.get(record.key);
    if (!live || !this.#active.due.isHeld(record.key)) return 'lost';
    for (const field of PROGRESS_FIELDS) (live as unknown as Record<string, unknown>)[field] = structuredClone(record[field]);
    const refolded = live.foldVersion !== record.foldVersion;
    live.dueAt = refolded ? this.#now().toISOString() : record.dueAt;
    if (record.updatedAt > live.updatedAt) live.updatedAt = record.updatedAt;
    if (release) this.#active.due.release(record.key);
    this.#active.put(live);
    record.version = live.version;
    await this.#flush();
    return refolded ? 'refolded' : 'saved';
  }

  async updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined> {
    // A worker holding the order would write its own progress over this change: wait for it to let go.
    for (let waited = 0; this.#active.due.isHeld(key) && waited < 30_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.#serial.add(async () => {
      const record = this.#active.get(key) ?? (await this.#settled.find(key));
      if (!record) return undefined;
      if (!this.#active.get(key)) {
        this.#active.put(record);
        await this.#flush();
        await this.#settled.remove(key);
      }
      change(record);
      record.dueAt = this.#now().toISOString();
      this.#active.put(record);
      await this.#flush();
      this.#notify();
      return structuredClone(record);
    }) as Promise<OrderRecord | undefined>;
  }

  async nextDueAt(): Promise<number | undefined> {
    return this.#active.due.nextAt();
  }

  async claimLpOrderId(lpOrderId: string, key: string): Promise<string> {
    const owner = await this.#lpOrderIds.setIfAbsent(lpOrderId, key);
    if (owner === key) await this.#flush();
    return owner;
  }

  async listOrders(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }> {
    const wanted = (summary: OrderSummary) => matchesQuery(summary, query);
    const activeKeys = new Set<string>();
    const matches: OrderSummary[] = [];
    for (const record of this.#active.values()) {
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
      (!query.reason || (chunk.skipped[query.reason] ?? 0) > 0) &&
      (!query.since || (chunk.newest ?? '') >= query.since.toISOString()) &&
      (!query.until || (chunk.oldest ?? '') <= query.until.toISOString());

    let total = matches.length;
    if (exactCounts) {
      const counts = this.#settled.counts();
      total += query.state ? (counts.byState[query.state] ?? 0) : query.platform ? (counts.byPlatform[query.platform] ?? 0) : query.reason ? (counts.skipped[query.reason] ?? 0) : counts.total;
    }
    // Once the page is full, a chunk whose newest order is older than the page's last cannot enter it, and is not read.
    const settledMatches: OrderSummary[] = [];
    let boundary = '';
    for await (const record of this.#settled.scan((chunk) => chunkMayMatch(chunk) && (!exactCounts || settledMatches.length < needed || (chunk.newest ?? '') >= boundary))) {
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

  async countOrders(): Promise<OrderCounts> {
    const active = countOrders([...this.#active.values()].map(summarise));
    const settled = this.#settled.counts();
    const add = (into: Record<string, number>, from: Record<string, number>) => {
      for (const [name, value] of Object.entries(from)) into[name] = (into[name] ?? 0) + value;
    };
    add(active.byState, settled.byState);
    add(active.byPlatform, settled.byPlatform);
    add(active.skipped, settled.skipped);
    return active;
  }

  /**
   * Moves orders with nothing due, quiet for settleAfterMs and held by no
   * worker, out of memory. An order changed while it was being copied stays
   * (its version moved on), so a settle never drops a change it did not write.
   */
  settleQuiet(): Promise<number> {
    if (this.#readOnly) return Promise.resolve(0);
    return this.#serial.add(async () => {
      const now = this.#now().getTime();
      const quiet = [...this.#active.values()].filter(
        (record) => record.dueAt === null && !this.#active.due.isHeld(record.key) && now - Date.parse(record.updatedAt) >= this.#settleAfterMs,
      );
      if (quiet.length === 0) return 0;
      const versions = new Map(quiet.map((record) => [record.key, record.version]));
      await this.#settled.add(quiet);
      const unchanged = quiet.filter(
        (record) => this.#active.get(record.key) === record && record.version === versions.get(record.key) && record.dueAt === null && !this.#active.due.isHeld(record.key),
      );
      this.#active.remove(unchanged.map((record) => record.key));
      await this.#flush();
      return unchanged.length;
    }) as Promise<number>;
  }

  // --- Dead letters.

  #upsertDeadLetter(letter: NewDeadLetter): DeadLetter {
    const list = this.#records.deadLetters.data.deadLetters;
    const existing = list.find((candidate) => candidate.id === letter.id);
    if (existing) return existing;
    const created: DeadLetter = { retries: 0, ...letter, createdAt: letter.createdAt ?? this.#now().toISOString() };
    list.push(created);
    this.#records.markDeadLettersDirty();
    return created;
  }

  async addDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    const created = this.#upsertDeadLetter(letter);
    await this.#flush();
    return structuredClone(created);
  }

  async updateDeadLetter(letter: DeadLetter): Promise<void> {
    const list = this.#records.deadLetters.data.deadLetters;
    const index = list.findIndex((candidate) => candidate.id === letter.id);
    if (index < 0) return;
    list[index] = structuredClone(letter);
    this.#records.markDeadLettersDirty();
    await this.#flush();
  }

  async removeDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const data = this.#records.deadLetters.data;
    const letter = data.deadLetters.find((candidate) => candidate.id === id);
    if (!letter) return undefined;
    data.deadLetters = data.deadLetters.filter((candidate) => candidate.id !== id);
    this.#records.markDeadLettersDirty();
    await this.#flush();
    return letter;
  }

  async getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const letter = this.#records.deadLetters.data.deadLetters.find((candidate) => candidate.id === id);
    return letter && structuredClone(letter);
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    return structuredClone(this.#records.deadLetters.data.deadLetters);
  }

  async countDeadLetters(): Promise<number> {
    return this.#records.deadLetters.data.deadLetters.length;
  }

  // --- Records.

  async getRecord<T>(kind: RecordKind, id: string): Promise<T | undefined> {
    return this.#records.get<T>(kind, id);
  }

  async putRecord<T>(kind: RecordKind, id: string, value: T): Promise<void> {
    this.#records.put(kind, id, value);
    await this.#flush();
  }

  async deleteRecord(kind: RecordKind, id: string): Promise<void> {
    this.#records.delete(kind, id);
    await this.#flush();
  }

  async listRecords<T>(kind: RecordKind): Promise<Array<{ id: string; value: T }>> {
    return this.#records.list<T>(kind);
  }

  // --- Privacy.

  async exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData> {
    const orders: OrderRecord[] = [];
    for (const record of this.#active.values()) if (orderMatches(record, match)) orders.push(structuredClone(record));
    for await (const record of this.#settled.scan()) if (!this.#active.get(record.key) && orderMatches(record, match)) orders.push(structuredClone(record));
    const keys = new Set(orders.map((order) => order.key));
    const deadLetters = (await this.listDeadLetters()).filter((letter) => this.#letterIsAbout(letter, keys, match, redactor));
    const inbox = [...this.#inbox.all()].filter((entry) => this.#entryIsAbout(entry, match, redactor)).map((entry) => structuredClone(entry));
    const adjustments = this.#records.list<Adjustment>('adjustment').map(({ value }) => value).filter((adjustment) => contactMatches(adjustment.customer, match));
    const dataRequests = this.#records.list<{ platform: string; shop: string; customer: { email?: string; phone?: string } }>('data-request').map(({ value }) => value).filter((request) => inScope(request.platform, request.shop, match) && contactMatches(request.customer, match));
    return { orders, deadLetters, inbox, adjustments, dataRequests };
  }

  #letterIsAbout(letter: DeadLetter, orderKeys: Set<string>, match: CustomerMatch, redactor: DeliveryRedactor): boolean {
    if (letter.orderKey && orderKeys.has(letter.orderKey)) return true;
    return Boolean(letter.delivery && inScope(letter.delivery.platform, letter.delivery.shop, match) && redactor(letter.delivery).about);
  }

  #entryIsAbout(entry: InboxEntry, match: CustomerMatch, redactor: DeliveryRedactor): boolean {
    if (entry.events?.some((event) => orderMatches({ ...event, snapshot: { customer: event.customer } } as unknown as OrderRecord, match))) return true;
    return Boolean(entry.delivery && inScope(entry.delivery.platform, entry.delivery.shop, match) && redactor(entry.delivery).about);
  }

  eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport> {
    return this.#serial.add(async () => {
      const report: ErasureReport = { orders: 0, deadLetters: 0, inbox: 0, records: 0 };
      const erased = new Set<string>();
      for (const record of [...this.#active.values()]) {
        if (!orderMatches(record, match)) continue;
        eraseOrder(record, at);
        this.#active.put(record);
        erased.add(record.key);
      }
      report.orders += erased.size;
      report.orders += await this.#settled.rewrite((record) => {
        if (!orderMatches(record, match)) return 'keep';
        eraseOrder(record, at);
        erased.add(record.key);
        return 'changed';
      });
      const letters = this.#records.deadLetters.data.deadLetters;
      for (const [index, letter] of letters.entries()) {
        const about = this.#letterIsAbout(letter, erased, match, redactor);
        if (!about) continue;
        letters[index] = { ...letter, reason: scrubText(letter.reason, match), ...(letter.delivery ? { delivery: redactor(letter.delivery).redacted } : {}) };
        report.deadLetters++;
      }
      if (report.deadLetters > 0) this.#records.markDeadLettersDirty();
      report.inbox = await this.#inbox.rewrite((entry) => {
        if (!this.#entryIsAbout(entry, match, redactor)) return undefined;
        return {
          ...entry,
          ...(entry.delivery ? { delivery: redactor(entry.delivery).redacted } : {}),
          ...(entry.events
            ? { events: entry.events.map((event) => (orderMatches({ ...event, snapshot: { customer: event.customer } } as unknown as OrderRecord, match) ? { ...event, customer: { name: null, email: null, mobile: null }, attributes: {}, landingSite: null } : event)) }
            : {}),
        };
      });
      for (const { id, value } of this.#records.list<Adjustment>('adjustment')) {
        if (!contactMatches(value.customer, match)) continue;
        // The request kept for a resend names the customer too: it goes, and with it the resend.
        this.#records.put('adjustment', id, { ...value, customer: {}, reason: scrubText(value.reason, match), request: undefined });
        report.records++;
      }
      for (const { id, value } of this.#records.list<{ platform: string; shop: string; customer: { email?: string; phone?: string } }>('data-request')) {
        if (!inScope(value.platform, value.shop, match) || !contactMatches(value.customer, match)) continue;
        this.#records.delete('data-request', id);
        report.records++;
      }
      await this.#flush();
      await this.backUp();
      return report;
    }) as Promise<ErasureReport>;
  }

  eraseShop(platform: string, shop: string): Promise<ErasureReport> {
    return this.#serial.add(async () => {
      const report: ErasureReport = { orders: 0, deadLetters: 0, inbox: 0, records: 0 };
      const ofShop = (candidate: { platform?: string | undefined; shop?: string | undefined }) => candidate.platform === platform && candidate.shop === shop;
      const active = [...this.#active.values()].filter(ofShop).map((record) => record.key);
      this.#active.remove(active);
      report.orders = active.length + (await this.#settled.rewrite((record) => (ofShop(record) ? 'delete' : 'keep')));
      const prefix = `${platform}:${shop}:`;
      await this.#lpOrderIds.deleteWhere((_lpOrderId, owner) => owner.startsWith(prefix));
      const letters = this.#records.deadLetters.data.deadLetters;
      const kept = letters.filter((letter) => !ofShop(letter) && !letter.orderKey?.startsWith(prefix) && !(letter.delivery && ofShop(letter.delivery)));
      report.deadLetters = letters.length - kept.length;
      this.#records.deadLetters.data.deadLetters = kept;
      this.#records.markDeadLettersDirty();
      report.inbox = await this.#inbox.rewrite((entry) => (entry.delivery ? ofShop(entry.delivery) : (entry.events ?? []).some(ofShop)) ? null : undefined);
      for (const kind of this.#records.kinds()) {
        for (const { id, value } of this.#records.list<{ platform?: string; shop?: string }>(kind)) {
          if (typeof value !== 'object' || value === null || !ofShop(value)) continue;
          this.#records.delete(kind, id);
          report.records++;
        }
      }
      await this.#flush();
      await this.backUp();
      return report;
    }) as Promise<ErasureReport>;
  }

  // --- Coordination.

  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (this.#exclusive.has(name)) return { ran: false };
    this.#exclusive.add(name);
    try {
      return { ran: true, value: await fn() };
    } finally {
      this.#exclusive.delete(name);
    }
  }

  async stats(): Promise<StoreStats> {
    return { inboxBacklog: this.#inbox.size, activeOrders: this.#active.size };
  }

  // --- Moving a ledger.

  async *exportAll(): AsyncGenerator<LedgerItem> {
    for (const record of this.#active.values()) yield { type: 'order', record: structuredClone(record) };
    for await (const record of this.#settled.scan(() => true, false)) if (!this.#active.get(record.key)) yield { type: 'order', record };
    for (const entry of this.#inbox.all()) yield { type: 'inbox', entry: structuredClone(entry) };
    for (const [key, receivedAt] of this.#inbox.seenKeys()) yield { type: 'seen', key, receivedAt };
    for (const letter of await this.listDeadLetters()) yield { type: 'dead-letter', letter };
    for (const kind of this.#records.kinds()) for (const { id, value } of this.#records.list(kind)) yield { type: 'record', kind, id, value };
    for await (const [lpOrderId, key] of this.#lpOrderIds.entries()) yield { type: 'lp-order-id', lpOrderId, orderKey: key };
  }

  importItems(items: LedgerItem[]): Promise<void> {
    return this.#serial.add(async () => {
      const seen: Array<[string, string]> = [];
      const entries: InboxEntry[] = [];
      for (const item of items) {
        if (item.type === 'order') this.#active.put(structuredClone(item.record));
        else if (item.type === 'inbox') entries.push(item.entry);
        else if (item.type === 'seen') seen.push([item.key, item.receivedAt]);
        else if (item.type === 'dead-letter') this.#upsertDeadLetter(item.letter);
        else if (item.type === 'record') this.#records.put(item.kind, item.id, item.value);
        else await this.#lpOrderIds.setIfAbsent(item.lpOrderId, item.orderKey);
      }
      await this.#inbox.importEntries(entries);
      if (seen.length > 0) await this.#inbox.importSeen(seen);
      await this.#flush();
      this.#notify();
    }) as Promise<void>;
  }

  /**
   * Copies every file rewritten in place to DATA_DIR/backup: the last good
   * copy, for a person to restore if a crash or a full disk ever damages one.
   * Files that did not change since the last backup are not copied again;
   * files that are gone are removed from it, so the backup is one picture.
   */
  async backUp(): Promise<void> {
    if (this.#readOnly) return;
    const targets = new Set<string>();
    for (const folder of ['', ...BACKED_UP]) {
      for (const name of await readdir(this.#path(folder)).catch(() => [] as string[])) {
        if (/^[^.].*\.json$/.test(name)) targets.add(join(folder, name));
      }
    }
    targets.add(join('inbox', 'retries.json'));
    for (const target of targets) {
      const source = this.#path(target);
      const copy = this.#path(BACKUP, target);
      try {
        const [from, to] = await Promise.all([stat(source), stat(copy).catch(() => undefined)]);
        if (to && to.mtimeMs >= from.mtimeMs && to.size === from.size) continue;
        await mkdir(dirname(copy), { recursive: true, mode: 0o700 });
        await copyFile(source, `${copy}.tmp`);
        await rename(`${copy}.tmp`, copy);
      } catch (error) {
        // A file that went away meanwhile (a partition emptied) is simply not copied.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    for (const folder of ['', ...BACKED_UP, 'inbox']) {
      for (const name of await readdir(this.#path(BACKUP, folder)).catch(() => [] as string[])) {
        const relativePath = join(folder, name);
        if (name.endsWith('.json') && !targets.has(relativePath)) await rm(this.#path(BACKUP, relativePath), { force: true });
        if (name.endsWith('.tmp')) await rm(this.#path(BACKUP, relativePath), { force: true });
      }
    }
  }
}

export type { ShopState };
