// Moves what the ledger keeps under a WooCommerce store's older names to its one name (shop-identity.ts),
// once, at start-up: releases that named a store by its host as each side gave it kept every order twice
// when "www." was on one side only. Orders kept under both are merged, their dead letters and records
// follow, and their lp_orderids are claimed for the new keys. Each step is written down in a 'migration'
// record as it finishes, so a crash resumes where it stopped.
import type { Logger } from '../../src/logger.ts';
import { FACTS, type Fact } from '../../src/core/order-event.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { z } from 'zod';
import type { DeadLetter } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { PlatformStore } from '../../src/core/platform-module.ts';
import { legacyWooShopNames, wooShopOf } from './shop-identity.ts';

const PLATFORM = 'woocommerce';
const PAGE = 200;
/** How many of the latest orders are looked at for names a webhook-only setup gave ("www." ones). */
const SAMPLE = 500;

interface Journal {
  platform: 'woocommerce-identity';
  from: string;
  to: string;
  step: 'copy' | 'erase' | 'claim';
  /** [lp_orderid, new order key] for every order that had one. */
  lpOrderIds: Array<[string, string]>;
  startedAt: string;
}

export interface RenameReport {
  from: string;
  to: string;
  orders: number;
  merged: number;
  deadLetters: number;
}

/** Which stores' old names were looked for, and whether the latest orders were. */
interface Checked {
  shops: string[];
  sampled: boolean;
}
const CHECKED_ID = 'woocommerce-identity-checked';
const CHECKED = recordType<Checked>(
  'migration',
  z.looseObject({ shops: z.array(z.string()), sampled: z.boolean() }),
  CHECKED_ID,
);

const journalId = (from: string) => `woocommerce-shop:${from}`;
const JOURNAL = recordType<Journal>(
  'migration',
  z.looseObject({
    platform: z.literal('woocommerce-identity'),
    from: z.string(),
    to: z.string(),
    step: z.enum(['copy', 'erase', 'claim']),
    lpOrderIds: z.array(z.tuple([z.string(), z.string()])),
    startedAt: z.string(),
  }),
  journalId(''),
);
/** A shop's record the move carries to its new name as it is, without reading it. */
const movedRecord = (kind: 'reconciliation' | 'shop') =>
  recordType<Record<string, unknown>>(kind, z.looseObject({}), `${PLATFORM}:`);
const keyOf = (shop: string, orderId: string) => `${PLATFORM}:${shop}:${orderId}`;

/** The newer of two snapshot details by the sort key of the event each was taken from. */
function mergeRecords(old: OrderRecord, current: OrderRecord, to: string, now: string): OrderRecord {
  // The copy that talked to the loyalty service keeps its progress: its lp_orderid is the one the service knows.
  const talked = (record: OrderRecord) =>
    (record.upstream.lpOrderId ? 2 : 0) + (record.upstream.points !== 'none' ? 1 : 0);
  const keeper = talked(old) >= talked(current) ? old : current;
  const other = keeper === old ? current : old;
  const snapshot = { ...keeper.snapshot };
  const snapshotFrom = { ...keeper.snapshotFrom };
  for (const [detail, at] of Object.entries(other.snapshotFrom)) {
    if ((snapshotFrom[detail] ?? '') >= at) continue;
    snapshotFrom[detail] = at;
    if (detail.startsWith('customer.')) {
      const field = detail.slice('customer.'.length) as keyof OrderRecord['snapshot']['customer'];
      snapshot.customer = { ...snapshot.customer, [field]: other.snapshot.customer[field] };
    } else {
      (snapshot as unknown as Record<string, unknown>)[detail] = (other.snapshot as unknown as Record<string, unknown>)[
        detail
      ];
    }
  }
  snapshot.test = keeper.snapshot.test || other.snapshot.test;
  const facts = new Set<Fact>([...keeper.facts, ...other.facts]);
  return {
    ...keeper,
    key: keyOf(to, keeper.orderId),
    shop: to,
    facts: FACTS.filter((fact) => facts.has(fact)),
    snapshot,
    snapshotFrom,
    refunds: { ...other.refunds, ...keeper.refunds },
    firstSeenAt: old.firstSeenAt < current.firstSeenAt ? old.firstSeenAt : current.firstSeenAt,
    deliveries: [...new Set([...other.deliveries, ...keeper.deliveries])].slice(-20),
    erasedAt: keeper.erasedAt ?? other.erasedAt ?? null,
    // Only the keeper's own holds: the other copy's were the collisions this merge ends.
    work: { ...keeper.work, held: { ...keeper.work.held } },
    updatedAt: now,
    // Above both, so that a store that keeps the newer version of a key takes this one.
    version: Math.max(old.version, current.version) + 1,
    foldVersion: Math.max(old.foldVersion, current.foldVersion) + 1,
    dueAt: now,
  };
}

const rekeyed = (record: OrderRecord, to: string, now: string): OrderRecord => ({
  ...record,
  key: keyOf(to, record.orderId),
  shop: to,
  version: record.version + 1,
  dueAt: record.dueAt ?? null,
  updatedAt: record.updatedAt ?? now,
});

export class WooIdentityMigration {
  readonly #store: PlatformStore;
  readonly #logger: Logger;
  readonly #now: () => Date;

  constructor(store: PlatformStore, logger: Logger, now: () => Date = () => new Date()) {
    this.#store = store;
    this.#logger = logger;
    this.#now = now;
  }

  /**
   * Old names to move: those of the stores the bridge serves (checked once per
   * store, since looking for a shop's orders can read the whole ledger), and,
   * once, any non-canonical name among the latest orders (a setup that had
   * only webhooks, named "www.").
   */
  async pending(knownShops: string[]): Promise<{ moves: Array<{ from: string; to: string }>; checked: Checked }> {
    const moves = new Map<string, string>();
    for (const { value } of await this.#store.listRecords(JOURNAL)) moves.set(value.from, value.to);
    const checked = (await this.#store.getRecord(CHECKED, CHECKED_ID)) ?? { shops: [], sampled: false };
    const known = new Set(knownShops);
    const hasOrders = async (shop: string) =>
      (await this.#store.listOrders({ platform: PLATFORM, shop, page: 1, limit: 1 })).total > 0;
    for (const shop of knownShops.filter((each) => !checked.shops.includes(each))) {
      // A name that is itself a store the bridge serves (a root install beside a subdirectory one) is not an old name.
      for (const old of legacyWooShopNames(shop))
        if (!known.has(old) && !moves.has(old) && (await hasOrders(old))) moves.set(old, shop);
    }
    if (!checked.sampled) {
      const latest = await this.#store.listOrders({ platform: PLATFORM, page: 1, limit: SAMPLE });
      for (const order of latest.orders) {
        const canonical = safeShopOf(order.shop);
        if (canonical && canonical !== order.shop && !known.has(order.shop) && !moves.has(order.shop))
          moves.set(order.shop, canonical);
      }
    }
    return {
      moves: [...moves].map(([from, to]) => ({ from, to })),
      checked: { shops: [...new Set([...checked.shops, ...knownShops])].sort(), sampled: true },
    };
  }

  /** Moves every old name found, each logged; `beforeMove` runs first when there is one to move. */
  async run(knownShops: string[], beforeMove?: () => Promise<void>): Promise<RenameReport[]> {
    const reports: RenameReport[] = [];
    const { moves, checked } = await this.pending(knownShops);
    if (moves.length > 0) await beforeMove?.();
    for (const { from, to } of moves) {
      const ran = await this.#store.exclusive(journalId(from), () => this.rename(from, to));
      if (!ran.ran) continue;
      reports.push(ran.value);
      this.#logger.warn(
        {
          platform: PLATFORM,
          from,
          to,
          orders: ran.value.orders,
          merged: ran.value.merged,
          deadLetters: ran.value.deadLetters,
        },
        `WooCommerce orders kept under "${from}" now belong to "${to}", the one name of that store`,
      );
    }
    await this.#store.putRecord(CHECKED, CHECKED_ID, checked);
    return reports;
  }

  async rename(from: string, to: string): Promise<RenameReport> {
    const report: RenameReport = { from, to, orders: 0, merged: 0, deadLetters: 0 };
    let journal: Journal = (await this.#store.getRecord(JOURNAL, journalId(from))) ?? {
      platform: 'woocommerce-identity',
      from,
      to,
      step: 'copy',
      lpOrderIds: [],
      startedAt: this.#now().toISOString(),
    };
    if (journal.step === 'copy') {
      journal = { ...journal, lpOrderIds: await this.#copy(from, to, report) };
      journal.step = 'erase';
      await this.#store.putRecord(JOURNAL, journalId(from), journal);
    }
    if (journal.step === 'erase') {
      await this.#store.eraseShop(PLATFORM, from);
      journal.step = 'claim';
      await this.#store.putRecord(JOURNAL, journalId(from), journal);
    }
    for (const [lpOrderId, key] of journal.lpOrderIds) {
      const owner = await this.#store.claimLpOrderId(lpOrderId, key);
      if (owner !== key)
        this.#logger.error(
          { lpOrderId, order: key, owner },
          'an lp_orderid of a renamed WooCommerce order is claimed by another order',
        );
    }
    await this.#store.deleteRecord(JOURNAL, journalId(from));
    return report;
  }

  async #copy(from: string, to: string, report: RenameReport): Promise<Array<[string, string]>> {
    const now = this.#now().toISOString();
    const lpOrderIds: Array<[string, string]> = [];
    const merged = new Set<string>();
    for (let page = 1; ; page++) {
      const { orders } = await this.#store.listOrders({ platform: PLATFORM, shop: from, page, limit: PAGE });
      const records: OrderRecord[] = [];
      for (const summary of orders) {
        const old = await this.#store.getOrder(summary.key);
        if (!old) continue;
        const current = await this.#store.getOrder(keyOf(to, old.orderId));
        const record = current ? mergeRecords(old, current, to, now) : rekeyed(old, to, now);
        if (current) {
          report.merged++;
          merged.add(current.key).add(old.key);
        }
        if (record.upstream.lpOrderId) lpOrderIds.push([record.upstream.lpOrderId, record.key]);
        records.push(record);
      }
      if (records.length > 0)
        await this.#store.importItems(records.map((record) => ({ type: 'order' as const, record })));
      report.orders += records.length;
      if (orders.length < PAGE) break;
    }
    report.deadLetters = await this.#moveDeadLetters(from, to, merged);
    await this.#moveRecords(from, to);
    return lpOrderIds;
  }

  /**
   * An old name's dead letters move with their orders (same id, so a held
   * call still finds its letter). The lp_orderid collisions of orders that
   * existed under both names were the double naming itself: dropped.
   */
  async #moveDeadLetters(from: string, to: string, merged: Set<string>): Promise<number> {
    const oldPrefix = `${PLATFORM}:${from}:`;
    const newPrefix = `${PLATFORM}:${to}:`;
    let moved = 0;
    for (const listed of await this.#store.listDeadLetters()) {
      // Listed letters may leave their delivery out: read each whole, so that moving it keeps the body.
      const letter = await this.#store.getDeadLetter(listed.id);
      if (!letter) continue;
      // A collision between the two copies of one order: the letter of either names the other.
      if (
        letter.orderKey &&
        merged.has(letter.orderKey) &&
        letter.reason.includes(letter.orderKey.startsWith(oldPrefix) ? newPrefix : oldPrefix)
      ) {
        await this.#store.removeDeadLetter(letter.id);
        continue;
      }
      const ofOld =
        (letter.platform === PLATFORM && letter.shop === from) ||
        letter.orderKey?.startsWith(oldPrefix) ||
        (letter.delivery?.platform === PLATFORM && letter.delivery.shop === from);
      if (!ofOld) continue;
      const renamed: DeadLetter = {
        ...letter,
        ...(letter.shop === from ? { shop: to } : {}),
        ...(letter.orderKey?.startsWith(oldPrefix)
          ? { orderKey: `${PLATFORM}:${to}:${letter.orderKey.slice(oldPrefix.length)}` }
          : {}),
        ...(letter.delivery && letter.delivery.shop === from ? { delivery: { ...letter.delivery, shop: to } } : {}),
      };
      // Removed and added again, rather than updated: a store may index the letter by its shop.
      await this.#store.removeDeadLetter(letter.id);
      await this.#store.addDeadLetter(renamed);
      moved++;
    }
    return moved;
  }

  /** The reconciliation mark and install state follow, unless the new name has its own already. */
  async #moveRecords(from: string, to: string): Promise<void> {
    for (const kind of ['reconciliation', 'shop'] as const) {
      const type = movedRecord(kind);
      const old = await this.#store.getRecord(type, `${PLATFORM}:${from}`);
      if (!old || (await this.#store.getRecord(type, `${PLATFORM}:${to}`))) continue;
      await this.#store.putRecord(type, `${PLATFORM}:${to}`, { ...old, shop: to });
    }
  }
}

function safeShopOf(shop: string): string | undefined {
  try {
    return wooShopOf(shop);
  } catch {
    return undefined;
  }
}
