// The LedgerStore contract kept in memory: for tests that run the ledger and
// worker many times over and are not about files. Copies on the way in and
// out, as a real store would, so no test can lean on shared objects.
import { summarise, type OrderRecord } from '../../src/core/order-record.ts';
import type { Adjustment, DeadLetter, InboxEntry, LedgerStore, LoadedLedger, ReconciliationState, ShopStates } from '../../src/core/store/ledger-store.ts';

const copy = <T>(value: T): T => structuredClone(value);

export class MemoryStore implements LedgerStore {
  active = new Map<string, OrderRecord>();
  settled = new Map<string, OrderRecord>();
  inbox = new Map<string, InboxEntry[]>();
  seen = new Map<string, string>();
  deadLetters: DeadLetter[] = [];
  shops: ShopStates = {};
  reconciliation: ReconciliationState = {};
  adjustments: Adjustment[] = [];
  #segment = 0;

  async load(): Promise<LoadedLedger> {
    return copy({
      activeOrders: [...this.active.values()],
      inbox: [...this.inbox].map(([segment, entries]) => ({ segment, entries })),
      seen: [...this.seen],
      settledSummaries: [...this.settled.values()].map(summarise),
      deadLetters: this.deadLetters,
      shops: this.shops,
      reconciliation: this.reconciliation,
      adjustments: this.adjustments,
    });
  }
  async appendInbox(entries: InboxEntry[]) {
    const segment = String(++this.#segment).padStart(8, '0');
    this.inbox.set(segment, copy(entries));
    return segment;
  }
  async dropInbox(segments: string[]) {
    for (const segment of segments) this.inbox.delete(segment);
  }
  async saveActive(orders: OrderRecord[]) {
    for (const order of orders) this.active.set(order.key, copy(order));
  }
  async settle(orders: OrderRecord[]) {
    for (const order of orders) {
      this.settled.set(order.key, copy(order));
      this.active.delete(order.key);
    }
  }
  async unsettle(key: string) {
    const order = this.settled.get(key);
    if (!order) return undefined;
    this.settled.delete(key);
    this.active.set(key, order);
    return copy(order);
  }
  async readSettled(key: string) {
    const order = this.settled.get(key);
    return order && copy(order);
  }
  async saveSeen(entries: Array<[string, string]>) {
    for (const [key, at] of entries) this.seen.set(key, at);
  }
  async pruneSeen(before: Date) {
    for (const [key, at] of this.seen) if (Date.parse(at) < before.getTime()) this.seen.delete(key);
  }
  async saveDeadLetters(deadLetters: DeadLetter[]) {
    this.deadLetters = copy(deadLetters);
  }
  async saveShops(shops: ShopStates) {
    this.shops = copy(shops);
  }
  async saveReconciliation(state: ReconciliationState) {
    this.reconciliation = copy(state);
  }
  async saveAdjustments(adjustments: Adjustment[]) {
    this.adjustments = copy(adjustments);
  }
  async close() {}
}
