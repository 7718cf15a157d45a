// Privacy in the lowdb store: a customer's data found and erased everywhere
// the files keep it (active and settled orders, dead letters, the inbox,
// adjustments, data requests), and everything of one shop forgotten. Both
// erasures end with a fresh backup, so no copy keeps what was erased.
import type { StoredDelivery } from '../../delivery.ts';
import type { OrderRecord } from '../../order-record.ts';
import { eraseOrder, isOrderKeyOfShop, orderMatches } from '../customer-data.ts';
import {
  adjustmentIsAbout,
  dataRequestIsAbout,
  erasedAdjustment,
  erasedLetter,
  letterIsAbout,
  type DataRequest,
} from '../customer-records.ts';
import { entryIsAbout, erasedEntry } from '../entry-erasure.ts';
import type {
  Adjustment,
  CustomerData,
  CustomerMatch,
  DeadLetter,
  DeliveryRedactor,
  DeliveryTrimmer,
  ErasureReport,
} from '../ledger-store.ts';
import type { LowdbParts } from './parts.ts';

export class PrivacyOperations {
  readonly #p: LowdbParts;
  /** Keeps a copy of the ledger as it is now: erasures reach the backups too. */
  readonly #backUp: () => Promise<void>;

  constructor(parts: LowdbParts, backUp: () => Promise<void>) {
    this.#p = parts;
    this.#backUp = backUp;
  }

  async exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData> {
    const { active, settled, inbox, records, deadLetters } = this.#p;
    const orders: OrderRecord[] = [];
    for (const record of active.values()) if (orderMatches(record, match)) orders.push(structuredClone(record));
    for await (const record of settled.scan())
      if (!active.get(record.key) && orderMatches(record, match)) orders.push(structuredClone(record));
    const keys = new Set(orders.map((order) => order.key));
    const letters: DeadLetter[] = [];
    for await (const letter of deadLetters.all())
      if (letterIsAbout(letter, keys, match, redactor)) letters.push(letter);
    const entries = [...inbox.all()]
      .filter((entry) => entryIsAbout(entry, match, redactor))
      .map((entry) => structuredClone(entry));
    const adjustments = records
      .list<Adjustment>('adjustment')
      .map(({ value }) => value)
      .filter((adjustment) => adjustmentIsAbout(adjustment, match));
    const dataRequests = records
      .list<DataRequest>('data-request')
      .map(({ value }) => value)
      .filter((request) => dataRequestIsAbout(request, match));
    return { orders, deadLetters: letters, inbox: entries, adjustments, dataRequests };
  }

  eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport> {
    const { active, settled, inbox, records, deadLetters } = this.#p;
    return this.#p.serial.add(async () => {
      const report: ErasureReport = { orders: 0, deadLetters: 0, inbox: 0, records: 0, adjustments: 0 };
      const erased = new Set<string>();
      const theirs: Array<string | null> = [];
      for (const record of [...active.values()]) {
        if (!orderMatches(record, match)) continue;
        theirs.push(record.snapshot.customer.email, record.snapshot.customer.mobile);
        eraseOrder(record, at);
        active.put(record);
        erased.add(record.key);
      }
      // The journal's earlier entries may hold what is erased (of settled orders too): it starts afresh.
      if (active.journal.holdsChanges) active.journal.compactSoon();
      report.orders += erased.size;
      report.orders += await settled.rewrite((record) => {
        if (!orderMatches(record, match)) return 'keep';
        theirs.push(record.snapshot.customer.email, record.snapshot.customer.mobile);
        eraseOrder(record, at);
        erased.add(record.key);
        return 'changed';
      });
      report.deadLetters = await deadLetters.rewrite((letter) =>
        letterIsAbout(letter, erased, match, redactor) ? erasedLetter(letter, match, theirs, redactor) : undefined,
      );
      // An entry intake holds may be folded from its copy read before: the reach recorded on it erases what it folds.
      report.inbox = await inbox.rewrite((entry) => erasedEntry(entry, match, redactor, at));
      for (const { id, value } of records.list<Adjustment>('adjustment')) {
        if (!adjustmentIsAbout(value, match)) continue;
        records.put('adjustment', id, erasedAdjustment(value, match));
        report.records++;
        report.adjustments++;
      }
      for (const { id, value } of records.list<DataRequest>('data-request')) {
        if (!dataRequestIsAbout(value, match)) continue;
        records.delete('data-request', id);
        report.records++;
      }
      await this.#p.flush();
      await this.#backUp();
      return report;
    }) as Promise<ErasureReport>;
  }

  trimDeliveries(trim: DeliveryTrimmer): Promise<{ inbox: number; deadLetters: number }> {
    const { inbox, deadLetters } = this.#p;
    return this.#p.serial.add(async () => {
      const trimmed = (delivery: StoredDelivery | undefined) => (delivery ? trim(delivery) : undefined);
      const letters = await deadLetters.rewrite((letter) => {
        const delivery = trimmed(letter.delivery);
        return delivery ? { ...letter, delivery } : undefined;
      });
      const entries = await inbox.rewrite((entry) => {
        const delivery = trimmed(entry.delivery);
        return delivery ? { ...entry, delivery } : undefined;
      });
      await this.#p.flush();
      // The backups held the whole bodies too: they are taken again.
      if (letters + entries > 0) await this.#backUp();
      return { inbox: entries, deadLetters: letters };
    }) as Promise<{ inbox: number; deadLetters: number }>;
  }

  eraseShop(platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport> {
    const { active, settled, inbox, records, deadLetters, lpOrderIds } = this.#p;
    return this.#p.serial.add(async () => {
      const report: ErasureReport = { orders: 0, deadLetters: 0, inbox: 0, records: 0, adjustments: 0 };
      const ofShop = (candidate: { platform?: string | undefined; shop?: string | undefined }) =>
        candidate.platform === platform && candidate.shop === shop;
      const keys = [...active.values()].filter(ofShop).map((record) => record.key);
      active.remove(keys);
      if (active.journal.holdsChanges) active.journal.compactSoon();
      report.orders = keys.length + (await settled.rewrite((record) => (ofShop(record) ? 'delete' : 'keep')));
      const keyOfShop = (key: string | undefined) => key !== undefined && isOrderKeyOfShop(key, platform, shop);
      await lpOrderIds.deleteWhere((_lpOrderId, owner) => keyOfShop(owner));
      // The registry's journal names the shop's orders too.
      lpOrderIds.journal?.compactSoon();
      report.deadLetters = await deadLetters.rewrite((letter) =>
        ofShop(letter) || keyOfShop(letter.orderKey) || (letter.delivery && ofShop(letter.delivery)) ? null : undefined,
      );
      report.inbox = await inbox.rewrite((entry) =>
        (entry.delivery ? ofShop(entry.delivery) : (entry.events ?? []).some(ofShop)) ? null : undefined,
      );
      // The keys that name the shop; those of entries still waiting went with them above.
      if (keyPrefix) await inbox.forgetSeen(keyPrefix);
      for (const kind of records.kinds()) {
        for (const { id, value } of records.list<{ platform?: string; shop?: string }>(kind)) {
          if (typeof value !== 'object' || value === null || !ofShop(value)) continue;
          records.delete(kind, id);
          report.records++;
          if (kind === 'adjustment') report.adjustments++;
        }
      }
      await this.#p.flush();
      await this.#backUp();
      return report;
    }) as Promise<ErasureReport>;
  }
}
