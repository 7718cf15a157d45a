// The ledger: every mapped order with its facts, target and upstream state,
// the deliveries seen, and the dead letters. It keeps the hot part in memory
// and saves through a LedgerStore.
//
// A delivery goes through two steps. accept() puts it in the inbox and
// resolves once it is on disk: that is when the webhook may be acknowledged.
// The fold then merges its events into the orders, saves them, and only then
// drops the inbox segment; after a crash the segment is folded again, which
// changes nothing, because facts are a union and details go by event time.
import { randomUUID } from 'node:crypto';
import type { OrderEvent } from './order-event.ts';
import { orderKey } from './order-event.ts';
import { applyEvent, newOrderRecord, summarise, type OrderRecord, type OrderSummary } from './order-record.ts';
import type { Adjustment, DeadLetter, InboxEntry, LedgerStore, ReconciliationState, ShopStates } from './store/ledger-store.ts';

export interface LedgerOptions {
  store: LedgerStore;
  /** How long a delivery key is remembered for dedupe. */
  dedupeWindowMs?: number;
  now?: () => Date;
}

export type AcceptResult = 'accepted' | 'duplicate';

const MAX_INBOX_WRITES = 4;

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

export class Ledger {
  readonly #store: LedgerStore;
  readonly #now: () => Date;
  readonly #dedupeWindowMs: number;
  readonly #orders = new Map<string, OrderRecord>();
  /** Settled orders: only their summaries are in memory. */
  readonly #settled = new Map<string, OrderSummary>();
  readonly #seen = new Map<string, number>();
  #deadLetters: DeadLetter[] = [];
  #shops: ShopStates = {};
  #reconciliation: ReconciliationState = {};
  #adjustments: Adjustment[] = [];

  // Acknowledgement path: a batch forms while the previous one is written.
  #batch: InboxEntry[] = [];
  #batchWaiters: Waiter[] = [];
  #batchScheduled = false;
  /** Inbox writes under way. Each batch is a new file, so several can be written at once. */
  readonly #inboxWrites = new Set<Promise<void>>();

  // Segments on disk whose events are not folded yet.
  #unfolded: Array<{ segment: string; entries: InboxEntry[] }> = [];
  #folding: Promise<void> | undefined;
  #listeners: Array<(keys: string[]) => void> = [];
  /** Inbox files found cut short at open: never acknowledged, so only worth a warning. */
  tornSegmentsAtOpen = 0;

  private constructor(options: LedgerOptions) {
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
    this.#dedupeWindowMs = options.dedupeWindowMs ?? 7 * 24 * 60 * 60 * 1000;
  }

  static async open(options: LedgerOptions): Promise<Ledger> {
    const ledger = new Ledger(options);
    const loaded = await options.store.load();
    for (const order of loaded.activeOrders) ledger.#orders.set(order.key, order);
    for (const summary of loaded.settledSummaries) ledger.#settled.set(summary.key, summary);
    const oldest = ledger.#now().getTime() - ledger.#dedupeWindowMs;
    for (const [key, receivedAt] of loaded.seen) {
      const at = Date.parse(receivedAt);
      if (at >= oldest) ledger.#seen.set(key, at);
    }
    for (const { entries } of loaded.inbox) {
      for (const entry of entries) for (const key of [entry.key, ...(entry.aliases ?? [])]) ledger.#seen.set(key, Date.parse(entry.receivedAt));
    }
    ledger.#deadLetters = loaded.deadLetters;
    ledger.#shops = loaded.shops;
    ledger.#reconciliation = loaded.reconciliation;
    ledger.#adjustments = loaded.adjustments;
    ledger.#unfolded = loaded.inbox;
    ledger.tornSegmentsAtOpen = loaded.tornSegments ?? 0;
    await ledger.fold();
    return ledger;
  }

  /** Called with the keys of orders whose facts or details changed. */
  onOrdersChanged(listener: (keys: string[]) => void): void {
    this.#listeners.push(listener);
  }

  hasSeen(deliveryKey: string): boolean {
    return this.#seen.has(deliveryKey);
  }

  /**
   * Durably accepts a delivery. Resolves 'accepted' once it is on disk, or
   * 'duplicate' at once for a delivery key seen within the window.
   */
  accept(deliveryKey: string, events: OrderEvent[], aliases: string[] = []): Promise<AcceptResult> {
    const keys = [deliveryKey, ...aliases];
    if (keys.some((key) => this.#seen.has(key))) return Promise.resolve('duplicate');
    const receivedAt = this.#now();
    for (const key of keys) this.#seen.set(key, receivedAt.getTime());
    this.#batch.push({ key: deliveryKey, ...(aliases.length > 0 ? { aliases } : {}), receivedAt: receivedAt.toISOString(), events });
    return new Promise<void>((resolve, reject) => {
      this.#batchWaiters.push({ resolve, reject });
      this.#scheduleBatch();
    }).then(
      () => 'accepted' as const,
      (error: unknown) => {
        // Not on disk, so not seen: the platform's retry must be let in.
        for (const key of keys) this.#seen.delete(key);
        throw error;
      },
    );
  }

  /**
   * Group commit of the acknowledgement path: what arrives in one turn of the
   * event loop is one batch, one new file. Up to MAX_INBOX_WRITES batches are
   * written at once; beyond that, batches wait and grow.
   */
  #scheduleBatch(): void {
    if (this.#batchScheduled || this.#inboxWrites.size >= MAX_INBOX_WRITES) return;
    this.#batchScheduled = true;
    setImmediate(() => {
      this.#batchScheduled = false;
      if (this.#batch.length === 0) return;
      const entries = this.#batch;
      const waiters = this.#batchWaiters;
      this.#batch = [];
      this.#batchWaiters = [];
      const write = this.#store.appendInbox(entries).then(
        (segment) => {
          this.#unfolded.push({ segment, entries });
          for (const waiter of waiters) waiter.resolve();
          void this.fold().catch(() => undefined);
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error);
        },
      );
      this.#inboxWrites.add(write);
      void write.finally(() => {
        this.#inboxWrites.delete(write);
        if (this.#batch.length > 0) this.#scheduleBatch();
      });
    });
  }

  /** Folds every inbox segment on disk into its orders. One fold runs at a time. */
  fold(): Promise<void> {
    this.#folding ??= this.#foldAll().finally(() => {
      this.#folding = undefined;
    });
    return this.#folding;
  }

  async #foldAll(): Promise<void> {
    while (this.#unfolded.length > 0) {
      const segments = this.#unfolded;
      this.#unfolded = [];
      const changed = new Map<string, OrderRecord>();
      const now = this.#now().toISOString();
      for (const { entries } of segments) {
        for (const entry of entries) {
          for (const event of entry.events) {
            const record = await this.#orderForEvent(event, now);
            applyEvent(record, event, entry.key, now);
            changed.set(record.key, record);
          }
        }
      }
      try {
        await this.#store.saveActive([...changed.values()]);
        await this.#store.saveSeen(
          segments.flatMap(({ entries }) => entries.flatMap((entry) => [entry.key, ...(entry.aliases ?? [])].map((key): [string, string] => [key, entry.receivedAt]))),
        );
        await this.#store.dropInbox(segments.map(({ segment }) => segment));
      } catch (error) {
        // Still on disk in the inbox: put back, to be folded again.
        this.#unfolded.unshift(...segments);
        throw error;
      }
      const keys = [...changed.keys()];
      for (const listener of this.#listeners) listener(keys);
    }
  }

  async #orderForEvent(event: OrderEvent, now: string): Promise<OrderRecord> {
    const key = orderKey(event);
    const active = this.#orders.get(key);
    if (active) return active;
    if (this.#settled.has(key)) {
      const revived = await this.#store.unsettle(key);
      this.#settled.delete(key);
      if (revived) {
        this.#orders.set(key, revived);
        return revived;
      }
    }
    const created = newOrderRecord(event, now);
    this.#orders.set(key, created);
    return created;
  }

  /** The active orders, for the worker. */
  activeOrders(): IterableIterator<OrderRecord> {
    return this.#orders.values();
  }

  activeOrder(key: string): OrderRecord | undefined {
    return this.#orders.get(key);
  }

  /** Any order, active or settled. */
  async findOrder(key: string): Promise<OrderRecord | undefined> {
    return this.#orders.get(key) ?? (this.#settled.has(key) ? this.#store.readSettled(key) : undefined);
  }

  /** Every order, active and settled, as summaries: for listing and counting. */
  *summaries(): IterableIterator<OrderSummary> {
    for (const record of this.#orders.values()) yield summarise(record);
    yield* this.#settled.values();
  }

  get counts() {
    return { active: this.#orders.size, settled: this.#settled.size, seen: this.#seen.size, inboxBacklog: this.#unfolded.length };
  }

  save(records: OrderRecord[]): Promise<void> {
    return this.#store.saveActive(records);
  }

  /** Moves orders out of the hot files. */
  async settle(records: OrderRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#store.settle(records);
    for (const record of records) {
      this.#orders.delete(record.key);
      this.#settled.set(record.key, summarise(record));
    }
  }

  async pruneSeen(): Promise<number> {
    const oldest = this.#now().getTime() - this.#dedupeWindowMs;
    let pruned = 0;
    for (const [key, at] of this.#seen) {
      if (at < oldest) {
        this.#seen.delete(key);
        pruned++;
      }
    }
    await this.#store.pruneSeen(new Date(oldest), this.#now());
    return pruned;
  }

  isUninstalled(platform: string, shop: string): boolean {
    return Boolean(this.#shops[`${platform}:${shop}`]?.uninstalledAt);
  }

  /** The merchant removed the app from a shop (or, with installed, put it back). */
  async setShopInstalled(platform: string, shop: string, installed: boolean): Promise<void> {
    this.#shops = { ...this.#shops, [`${platform}:${shop}`]: { uninstalledAt: installed ? null : this.#now().toISOString() } };
    await this.#store.saveShops(this.#shops);
  }

  reconciliation(): Readonly<ReconciliationState> {
    return this.#reconciliation;
  }

  async saveReconciliation(platform: string, state: ReconciliationState[string]): Promise<void> {
    this.#reconciliation = { ...this.#reconciliation, [platform]: state };
    await this.#store.saveReconciliation(this.#reconciliation);
  }

  adjustments(): readonly Adjustment[] {
    return this.#adjustments;
  }

  async addAdjustment(adjustment: Omit<Adjustment, 'id' | 'at'>): Promise<Adjustment> {
    const recorded: Adjustment = { id: randomUUID(), at: this.#now().toISOString(), ...adjustment };
    this.#adjustments = [...this.#adjustments, recorded];
    await this.#store.saveAdjustments(this.#adjustments);
    return recorded;
  }

  /** Replaces a dead letter (a retry that failed again), keeping its place. */
  async updateDeadLetter(letter: DeadLetter): Promise<void> {
    this.#deadLetters = this.#deadLetters.map((candidate) => (candidate.id === letter.id ? letter : candidate));
    await this.#store.saveDeadLetters(this.#deadLetters);
  }

  deadLetters(): readonly DeadLetter[] {
    return this.#deadLetters;
  }

  async addDeadLetter(letter: Omit<DeadLetter, 'id' | 'createdAt' | 'retries'>): Promise<DeadLetter> {
    const deadLetter: DeadLetter = { id: randomUUID(), createdAt: this.#now().toISOString(), retries: 0, ...letter };
    this.#deadLetters = [...this.#deadLetters, deadLetter];
    await this.#store.saveDeadLetters(this.#deadLetters);
    return deadLetter;
  }

  async removeDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const letter = this.#deadLetters.find((candidate) => candidate.id === id);
    if (!letter) return undefined;
    this.#deadLetters = this.#deadLetters.filter((candidate) => candidate.id !== id);
    await this.#store.saveDeadLetters(this.#deadLetters);
    return letter;
  }

  /** Waits until every accepted delivery is on disk and folded into its orders. */
  async quiesce(): Promise<void> {
    while (this.#inboxWrites.size > 0 || this.#batch.length > 0 || this.#folding || this.#unfolded.length > 0) {
      await Promise.all(this.#inboxWrites);
      if (this.#batch.length > 0 && this.#inboxWrites.size === 0) await new Promise((resolve) => setImmediate(resolve));
      await this.fold();
    }
  }

  /** quiesce(), then waits for every write under way. */
  async flush(): Promise<void> {
    await this.quiesce();
    await this.#store.close();
  }
}
