// The embedded store: lowdb files under DATA_DIR, for one bridge (the layout: docs/ledger.md). Every write
// is fdatasynced, with its directory, before it resolves; the folder is its owner's only, since it holds
// customers' contact details and platform access tokens. Each kind's operations live in their own files;
// this one puts the parts together. What keeps it right under concurrency: one object per file, the writes
// of a file in order, and every claim released in the worker's or intake's `finally`.
import { TypedRecordStore, type RawRecords } from '../roles/record-types.ts';
import type { Lane, LaneCounts, ShopLaneCounts, SkippedShops } from '../../lanes.ts';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import type { OrderRecord } from '../../order-record.ts';
import type { OrderCounts, OrderSummary } from '../../order-summary.ts';
import type {
  Claim,
  ClaimKind,
  CustomerData,
  CustomerMatch,
  DeadLetter,
  DeliveryRedactor,
  DeliveryTrimmer,
  ErasureReport,
  IntakeCommit,
  LedgerItem,
  LedgerStore,
  NewDeadLetter,
  OpenReport,
  OrderQuery,
  SaveResult,
  SecretsStatus,
  ShopState,
  StoreStats,
  WaitingMatch,
} from '../ledger-store.ts';
import { noSecrets, RecordSecrets } from '../record-secrets.ts';
import { backUp } from './backup.ts';
import { buildParts, type LowdbStoreOptions } from './build-parts.ts';
import { customerOrders } from './customer-orders.ts';
import { closeLedger, openLedger } from './opening.ts';
import { rawRecords } from './raw-records.ts';
import { IntakeOperations } from './intake-operations.ts';
import { exportAll, importItems } from './ledger-transfer.ts';
import { OrderOperations } from './order-operations.ts';
import type { LowdbParts } from './parts.ts';
import { PrivacyOperations } from './privacy-operations.ts';

export type { LowdbStoreOptions } from './build-parts.ts';

export class LowdbStore extends TypedRecordStore implements LedgerStore {
  readonly kind = 'lowdb' as const;
  readonly #p: LowdbParts;
  readonly #dedupeWindowMs: number;
  readonly #settleAfterMs: number;
  readonly #orders: OrderOperations;
  readonly #intake: IntakeOperations;
  readonly #privacy: PrivacyOperations;
  readonly #secrets: RecordSecrets;
  readonly #exclusive = new Set<string>();
  readonly #listeners: Array<() => void> = [];
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: LowdbStoreOptions) {
    super();
    this.#dedupeWindowMs = options.dedupeWindowMs ?? 7 * 24 * 60 * 60_000;
    this.#settleAfterMs = options.settleAfterMs ?? 2 * 60_000;
    this.#secrets = options.secrets ?? RecordSecrets.plain();
    this.#p = buildParts({ ...options, secrets: this.#secrets }, () => this.#notify());
    this.#orders = new OrderOperations(this.#p, this.#settleAfterMs);
    this.#intake = new IntakeOperations(this.#p, this.#orders);
    this.#privacy = new PrivacyOperations(this.#p, () => this.backUp());
  }

  async open(): Promise<OpenReport> {
    const report = await openLedger(this.#p, {
      dedupeWindowMs: this.#dedupeWindowMs,
      secrets: this.#secrets,
      mendAfterCrash: () => this.#orders.mendAfterCrash(),
    });
    if (!this.#p.readOnly) {
      this.#sweeper = setInterval(
        () => void this.settleQuiet().catch(() => undefined),
        Math.max(1_000, Math.min(30_000, this.#settleAfterMs)),
      );
      this.#sweeper.unref();
    }
    return report;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await closeLedger(this.#p);
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  onWork(listener: () => void): void {
    this.#listeners.push(listener);
  }

  // --- The acknowledgement path.

  accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'> {
    return this.#p.inbox.accept(entry);
  }

  async hasSeen(key: string): Promise<boolean> {
    return this.#p.inbox.hasSeen(key);
  }

  pruneSeen(before: Date): Promise<void> {
    return this.#p.inbox.pruneSeen(before);
  }

  // --- Intake.

  async claimInbox(owner: string, limit: number, _leaseMs?: number): Promise<InboxEntry[]> {
    return this.#intake.claim(limit, owner);
  }

  async inboxEntry(key: string): Promise<InboxEntry | undefined> {
    const entry = this.#p.inbox.entry(key);
    return entry && structuredClone(entry);
  }

  async nextInboxAt(): Promise<number | undefined> {
    return this.#p.inbox.nextRetryAt();
  }

  deferInbox(owner: string, key: string, retry: EntryRetry): Promise<void> {
    return this.#intake.defer(owner, key, retry);
  }

  async releaseEntry(owner: string, key: string, retryAt: Date): Promise<void> {
    this.#intake.releaseEntry(owner, key, retryAt);
  }

  commitIntake(commits: IntakeCommit[]): Promise<string[]> {
    return this.#intake.commit(commits);
  }

  // --- Orders.

  getOrder(key: string): Promise<OrderRecord | undefined> {
    return this.#orders.get(key);
  }

  async claimDue(
    _owner: string,
    limit: number,
    _leaseMs?: number,
    lane?: Lane,
    skipShops?: ReadonlySet<string>,
  ): Promise<OrderRecord[]> {
    return this.#orders.claimDue(limit, lane, skipShops);
  }

  // --- Leases (the heartbeat of the shared worker loop). This store's claims
  // live in this process until saved with release or let go, and do not
  // expire: a claim is held while the due queue holds its order, or the
  // inbox holds its entry for this claim's token.
  async renewClaims(kind: ClaimKind, claims: Claim[], _leaseMs: number): Promise<Claim[]> {
    return claims.filter((claim) =>
      kind === 'orders' ? this.#p.active.due.isHeld(claim.key) : this.#p.inbox.holds(claim.key, claim.owner),
    );
  }

  saveProgress(
    record: OrderRecord,
    { release }: { owner: string; release: boolean; leaseMs: number },
  ): Promise<SaveResult> {
    return this.#orders.saveProgress(record, release);
  }

  async releaseOrder(_owner: string, key: string, retryAt: Date): Promise<void> {
    this.#orders.releaseOrder(key, retryAt);
  }

  updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined> {
    return this.#orders.updateProgress(key, change);
  }

  async hasWorkFor(account: string): Promise<boolean> {
    // An order with work left stays active (in memory); settled ones have none.
    for (const order of this.#p.active.values())
      if (order.dueAt !== null && order.upstream.account === account) return true;
    return false;
  }

  async shopsWithUnfixedOrders(): Promise<Array<{ platform: string; shop: string }>> {
    const shops = new Map<string, { platform: string; shop: string }>();
    for (const { platform, shop, upstream } of this.#p.active.values())
      if (upstream.account === undefined) shops.set(`${platform}:${shop}`, { platform, shop });
    return [...shops.values()];
  }

  async wakeWaiting({ waitingFor, platform, shop }: WaitingMatch): Promise<number> {
    // Orders waiting keep a due time (a late look), so they stay active, in memory.
    const keys = [...this.#p.active.values()]
      .filter(
        (order) =>
          (order.work.waitingFor === waitingFor || (shop !== undefined && this.#p.active.due.isHeld(order.key))) &&
          (platform === undefined || order.platform === platform) &&
          (shop === undefined || order.shop === shop),
      )
      .map((order) => order.key);
    for (const key of keys) await this.updateProgress(key, () => undefined);
    return keys.length;
  }

  async laneCounts(): Promise<Record<Lane, LaneCounts>> {
    return this.#p.active.due.counts(this.#p.now().getTime());
  }

  async laneCountsByShop(): Promise<ShopLaneCounts[]> {
    return this.#p.active.due.countsByShop(this.#p.now().getTime());
  }

  async nextDueAt(skip?: SkippedShops): Promise<number | undefined> {
    return this.#orders.nextDueAt(skip);
  }

  claimLpOrderId(lpOrderId: string, key: string, options?: { durable?: boolean }): Promise<string> {
    return this.#orders.claimLpOrderId(lpOrderId, key, options);
  }

  listOrders(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }> {
    return this.#orders.list(query);
  }

  countOrders(): Promise<OrderCounts> {
    return this.#orders.count();
  }

  settleQuiet(): Promise<number> {
    return this.#orders.settleQuiet();
  }

  // --- Dead letters.

  async addDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    const created = await this.#p.deadLetters.upsert(letter);
    await this.#p.flush();
    return created;
  }

  async updateDeadLetter(letter: DeadLetter): Promise<void> {
    await this.#p.deadLetters.update(letter);
    await this.#p.flush();
  }

  async removeDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const letter = await this.#p.deadLetters.remove(id);
    if (letter) await this.#p.flush();
    return letter;
  }

  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.#p.deadLetters.get(id);
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    return this.#p.deadLetters.list();
  }

  async countDeadLetters(): Promise<number> {
    return this.#p.deadLetters.size;
  }

  // --- Records: the methods are TypedRecordStore's, over the files' raw values.

  protected rawRecords(): RawRecords {
    return rawRecords(this.#p);
  }

  async secretsStatus(): Promise<SecretsStatus> {
    return this.#secrets.status(this.#p.records.countSecrets(noSecrets()));
  }

  customerOrders(customer: { email: string } | { mobile: string }): Promise<OrderRecord[]> {
    return customerOrders(this.#p, customer);
  }

  // --- Privacy.

  exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData> {
    return this.#privacy.exportCustomer(match, redactor);
  }

  eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport> {
    return this.#privacy.eraseCustomer(match, redactor, at);
  }

  trimDeliveries(trim: DeliveryTrimmer): Promise<{ inbox: number; deadLetters: number }> {
    return this.#privacy.trimDeliveries(trim);
  }

  eraseShop(platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport> {
    return this.#privacy.eraseShop(platform, shop, keyPrefix);
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
    return { inboxBacklog: this.#p.inbox.size, activeOrders: this.#p.active.size };
  }

  // --- Moving a ledger.

  exportAll(): AsyncIterable<LedgerItem> {
    return exportAll(this.#p);
  }

  importItems(items: LedgerItem[]): Promise<void> {
    return importItems(this.#p, items);
  }

  /** The files hold what was imported as they are: nothing to bring up to date. */
  finishImport(): Promise<void> {
    return Promise.resolve();
  }

  /** Copies every file rewritten in place to DATA_DIR/backup (see backup.ts). */
  async backUp(): Promise<void> {
    if (!this.#p.readOnly) await backUp(this.#p.dir);
  }
}

export type { ShopState };
