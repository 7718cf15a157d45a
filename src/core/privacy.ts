// Customers' and shops' privacy requests (export a customer's data, erase it, erase a shop), the same for
// every platform and every way they come: a platform's compliance webhooks, the admin API, the dashboard, the
// CLI. The store finds and erases; adapters read raw delivery bodies, which only they understand; this
// module records what was asked and done, without the personal data itself.
import { randomUUID } from 'node:crypto';
import type { PlatformAdapter } from './platform-adapter.ts';
import type { Logger } from '../logger.ts';
import { matchOf, type PrivacyRequest } from './privacy-request.ts';
import { recordType } from './store/roles/record-types.ts';
import { ACCESS_KIND } from './store/roles/core-kinds.ts';
import { STOREFRONT_KIND } from './storefront/storefront-switch.ts';
import { z } from 'zod';
import { normalEmail, wholeEmails } from './store/customer-data.ts';
import type {
  CustomerData,
  CustomerMatch,
  DeliveryRedactor,
  ErasureReport,
  RecordRole,
  PrivacyRole,
} from './store/ledger-store.ts';
import { DEFAULT_ACCOUNT, type Accounts } from './accounts.ts';
import type { OrderRecord } from './order-record.ts';

/** What the merchant sees of a request: never the customer's e-mail or phone once it is done. */
export interface PrivacyLogEntry {
  id: string;
  at: string;
  type: PrivacyRequest['type'] | 'customer-export';
  /** Where it came from; a shop's own page (the merchant, in their store's admin) is 'shop'. */
  via: 'platform' | 'admin' | 'cli' | 'shop';
  platform: string | null;
  shop: string | null;
  report?: ErasureReport | undefined;
}

/** A customer's request to see their data, kept until the merchant has answered it (and erased with the customer). */
export interface DataRequestRecord {
  id: string;
  receivedAt: string;
  platform: string;
  shop: string;
  customer: { id?: string | undefined; email?: string | undefined; phone?: string | undefined };
  orderIds: string[];
  requestId?: string | undefined;
}

const maybe = <T extends z.ZodType>(schema: T) => schema.optional();

const PRIVACY_LOG_KIND = recordType<PrivacyLogEntry>(
  'privacy-log',
  z.looseObject({
    id: z.string(),
    at: z.string(),
    type: z.enum(['customer-redact', 'data-request', 'shop-redact', 'customer-export']),
    via: z.enum(['platform', 'admin', 'cli', 'shop']),
    platform: z.string().nullable(),
    shop: z.string().nullable(),
    report: maybe(
      z.looseObject({
        orders: z.number(),
        deadLetters: z.number(),
        inbox: z.number(),
        records: z.number(),
        adjustments: z.number(),
      }),
    ),
  }),
);

export const DATA_REQUEST_KIND = recordType<DataRequestRecord>(
  'data-request',
  z.looseObject({
    id: z.string(),
    receivedAt: z.string(),
    platform: z.string(),
    shop: z.string(),
    customer: z.looseObject({ id: maybe(z.string()), email: maybe(z.string()), phone: maybe(z.string()) }),
    orderIds: z.array(z.string()),
    requestId: maybe(z.string()),
  }),
);

export interface PrivacyOptions {
  store: RecordRole & PrivacyRole;
  adapterFor: (platform: string) => PlatformAdapter<unknown> | undefined;
  logger: Logger;
  /** Which loyalty account an order belongs to, for requests limited to one account. */
  accounts?: Pick<Accounts, 'forShop' | 'forgetShop'> | undefined;
  now?: () => Date;
}

/**
 * What the bridge keeps of customers outside the ledger, in this process's memory alone (the storefront's contacts
 * and balances, read briefly): in a customer's export and erasure, and gone with their shop.
 */
export interface KeptInMemory {
  /** Under this name in an export. */
  name: string;
  /** With an account, only what belongs to it (its balances, the contacts read in its shops). */
  exportCustomer(match: CustomerMatch, account?: InAccount): Promise<unknown>;
  eraseCustomer(match: CustomerMatch): void;
  eraseShop(platform: string, shop: string): void;
}

/**
 * What the ledger keeps of a customer outside their orders (their reward codes and reservations): in their export
 * (under `kept.<name>`) and erasure, and ended by a shop's uninstall and erasure.
 */
export interface KeptRecords {
  name: string;
  /** With an account, only what belongs to it. */
  exportCustomer(match: CustomerMatch, account?: string): Promise<unknown>;
  /** Returns how many things were erased. */
  eraseCustomer(match: CustomerMatch, account?: string): Promise<number>;
  eraseShop(platform: string, shop: string): Promise<void>;
  shopUninstalled(platform: string, shop: string): Promise<void>;
}

/** One account, for an export limited to it. */
export interface InAccount {
  id: string;
  /** Whether the shop's data belongs to the account. */
  owns(platform: string, shop: string): Promise<boolean>;
}

export class Privacy {
  /** Told of each export and erasure (storefront-reader.ts). */
  readonly inMemory = new Set<KeptInMemory>();
  /** Told of each export and erasure, and of a shop's uninstall (reward-privacy.ts). */
  readonly kept = new Set<KeptRecords>();
  readonly #o: PrivacyOptions;
  readonly #now: () => Date;

  constructor(options: PrivacyOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** Reads raw deliveries with their own adapters; one with no adapter configured is judged by its text. */
  #redactor(match: CustomerMatch): DeliveryRedactor {
    return (delivery) => {
      const adapter = this.#o.adapterFor(delivery.platform);
      if (adapter) return adapter.redact(delivery, match);
      const found = wholeEmails(delivery.body);
      const about = match.emails.some((email) => email.trim() !== '' && found.includes(normalEmail(email)));
      // Without its adapter the body cannot be taken apart: all of it goes.
      return { about, redacted: about ? { ...delivery, body: '', bodyEncoding: 'utf8' } : delivery };
    };
  }

  /**
   * What the bridge holds about a customer; with an account, only what
   * belongs to it: the orders of that account (the one of their first call,
   * or their shop's), and the dead letters and deliveries of its shops.
   */
  async exportCustomer(match: CustomerMatch, account?: string): Promise<CustomerData> {
    const stored = await this.#o.store.exportCustomer(match, this.#redactor(match));
    const shops = account === undefined ? new Set<string>() : await this.#shopsOf(stored, account);
    const inAccount: InAccount | undefined =
      account === undefined
        ? undefined
        : {
            id: account,
            // A shop of the account's orders, or one it is linked to now (a storefront customer with no order yet).
            owns: async (platform, shop) =>
              shops.has(`${platform}:${shop}`) || (await this.#o.accounts?.forShop(platform, shop)) === account,
          };
    const kept: Record<string, unknown> = {};
    for (const memory of this.inMemory) kept[memory.name] = await memory.exportCustomer(match, inAccount);
    const records: Record<string, unknown> = {};
    for (const each of this.kept) records[each.name] = await each.exportCustomer(match, account);
    const data = {
      ...stored,
      ...(this.inMemory.size > 0 ? { inMemory: kept } : {}),
      ...(this.kept.size > 0 ? { kept: records } : {}),
    };
    if (account === undefined) return data;
    const ofAccount = ({ platform, shop }: { platform?: string | undefined; shop?: string | undefined }) =>
      platform !== undefined && shop !== undefined && shops.has(`${platform}:${shop}`);
    return {
      ...data,
      orders: data.orders.filter(
        (order) => shops.has(`${order.platform}:${order.shop}`) && this.#orderOf(order, account, shops),
      ),
      deadLetters: data.deadLetters.filter(ofAccount),
      inbox: data.inbox.filter((entry) => ofAccount(entry.delivery ?? entry.events?.[0] ?? {})),
      // Adjustments of earlier releases went to the default account.
      adjustments: data.adjustments.filter((adjustment) => (adjustment.account ?? DEFAULT_ACCOUNT) === account),
    };
  }

  /** The shops whose data about the customer belongs to the account (a shop that moved counts where each order went). */
  async #shopsOf(data: CustomerData, account: string): Promise<Set<string>> {
    const shops = new Set<string>();
    type Place = { platform?: string | undefined; shop?: string | undefined; account?: string | undefined };
    const places: Place[] = [
      ...data.orders.map((order) => ({ platform: order.platform, shop: order.shop, account: order.upstream.account })),
      ...data.deadLetters.map((letter) => ({ platform: letter.platform, shop: letter.shop })),
      ...data.inbox.map((entry) => {
        const from = entry.delivery ?? entry.events?.[0];
        return { platform: from?.platform, shop: from?.shop };
      }),
    ];
    for (const place of places) {
      if (place.platform === undefined || place.shop === undefined) continue;
      const owner = place.account ?? (await this.#o.accounts?.forShop(place.platform, place.shop));
      if (owner === account) shops.add(`${place.platform}:${place.shop}`);
    }
    return shops;
  }

  #orderOf(order: OrderRecord, account: string, shops: Set<string>): boolean {
    return order.upstream.account === undefined
      ? shops.has(`${order.platform}:${order.shop}`)
      : order.upstream.account === account;
  }

  /** Erases what the bridge holds about a customer; with an account, in the shops whose data belongs to it only. */
  async eraseCustomer(match: CustomerMatch, via: PrivacyLogEntry['via'], account?: string): Promise<ErasureReport> {
    if (account !== undefined) {
      // What is kept in memory goes whole, whatever the account: it is only a copy read briefly, and the customer
      // may have no order of the account's shops in the ledger yet (the loop below would not reach it).
      for (const memory of this.inMemory) memory.eraseCustomer(match);
      for (const each of this.kept) await each.eraseCustomer(match, account);
      const data = await this.#o.store.exportCustomer(match, this.#redactor(match));
      const shops = await this.#shopsOf(data, account);
      // A shop that moved holds orders of two accounts: the other account's stay.
      const exceptOrderKeys = data.orders
        .filter((order) => !this.#orderOf(order, account, shops))
        .map((order) => order.key);
      const total: ErasureReport = { orders: 0, deadLetters: 0, inbox: 0, records: 0, adjustments: 0 };
      for (const place of shops) {
        const at = place.indexOf(':');
        const scoped = { ...match, platform: place.slice(0, at), shop: place.slice(at + 1), exceptOrderKeys };
        const report = await this.eraseCustomer(scoped, via);
        for (const key of Object.keys(total) as Array<keyof ErasureReport>) total[key] += report[key];
      }
      return total;
    }
    const at = this.#now().toISOString();
    for (const memory of this.inMemory) memory.eraseCustomer(match);
    let keptErased = 0;
    for (const each of this.kept) keptErased += await each.eraseCustomer(match);
    const stored = await this.#o.store.eraseCustomer(match, this.#redactor(match), at);
    const report = { ...stored, records: stored.records + keptErased };
    await this.#log({
      type: 'customer-redact',
      via,
      platform: match.platform ?? null,
      shop: match.shop ?? null,
      report,
    });
    this.#o.logger.info(
      { platform: match.platform, shop: match.shop, ...report },
      "a customer's personal data was erased",
    );
    return report;
  }

  async eraseShop(platform: string, shop: string, via: PrivacyLogEntry['via']): Promise<ErasureReport> {
    for (const memory of this.inMemory) memory.eraseShop(platform, shop);
    for (const each of this.kept) await each.eraseShop(platform, shop);
    const report = await this.#o.store.eraseShop(platform, shop, this.#o.adapterFor(platform)?.shopKeyPrefix?.(shop));
    // Again: a worker's step for one of the shop's orders, under way meanwhile, may have taken back what the first
    // pass kept (an erased reward code revived for its order), and the ledger has just erased that order.
    for (const each of this.kept) await each.eraseShop(platform, shop);
    await this.#o.store.deleteRecord(ACCESS_KIND, `${platform}:${shop}`);
    await this.#o.accounts?.forgetShop?.(platform, shop);
    await this.#log({ type: 'shop-redact', via, platform, shop, report });
    this.#o.logger.info({ platform, shop, ...report }, "a shop's data was erased");
    return report;
  }

  /**
   * The app was uninstalled from the shop: what is kept of its customers in memory goes, and its storefront is off
   * (a new install approves what the storefront needs again). Its ledger stays until the shop's erasure.
   */
  async shopUninstalled(platform: string, shop: string): Promise<void> {
    for (const memory of this.inMemory) memory.eraseShop(platform, shop);
    for (const each of this.kept) await each.shopUninstalled(platform, shop);
    await this.#o.store.deleteRecord(STOREFRONT_KIND, `${platform}:${shop}`);
  }

  /** A request as a platform sent it. */
  async handle(request: PrivacyRequest, via: PrivacyLogEntry['via']): Promise<void> {
    switch (request.type) {
      case 'customer-redact':
        await this.eraseCustomer(matchOf(request), via);
        return;
      case 'shop-redact':
        await this.eraseShop(request.platform, request.shop, via);
        return;
      case 'data-request': {
        const id = request.requestId ? `${request.platform}:${request.shop}:${request.requestId}` : randomUUID();
        const record: DataRequestRecord = {
          id,
          receivedAt: this.#now().toISOString(),
          platform: request.platform,
          shop: request.shop,
          customer: request.customer,
          orderIds: request.orderIds,
          requestId: request.requestId,
        };
        await this.#o.store.putRecord(DATA_REQUEST_KIND, id, record);
        await this.#log({ type: 'data-request', via, platform: request.platform, shop: request.shop });
        this.#o.logger.info(
          { platform: request.platform, shop: request.shop, request: id },
          'a customer asked for their data: export it from the admin API',
        );
      }
    }
  }

  /** An export was given (the customer's data itself is in the answer, never in the log). */
  async noteExport(match: CustomerMatch, via: PrivacyLogEntry['via']): Promise<void> {
    await this.#log({ type: 'customer-export', via, platform: match.platform ?? null, shop: match.shop ?? null });
  }

  /** The merchant answered a data request: it is forgotten, with the contact details it held. */
  async closeDataRequest(id: string): Promise<boolean> {
    if (!(await this.#o.store.getRecord(DATA_REQUEST_KIND, id))) return false;
    await this.#o.store.deleteRecord(DATA_REQUEST_KIND, id);
    return true;
  }

  async dataRequests(): Promise<DataRequestRecord[]> {
    return (await this.#o.store.listRecords(DATA_REQUEST_KIND))
      .map(({ value }) => value)
      .sort((a, b) => b.receivedAt.localeCompare(a.receivedAt));
  }

  async log(): Promise<PrivacyLogEntry[]> {
    return (await this.#o.store.listRecords(PRIVACY_LOG_KIND))
      .map(({ value }) => value)
      .sort((a, b) => b.at.localeCompare(a.at));
  }

  async #log(entry: Omit<PrivacyLogEntry, 'id' | 'at'>): Promise<void> {
    const id = randomUUID();
    await this.#o.store.putRecord(PRIVACY_LOG_KIND, id, { id, at: this.#now().toISOString(), ...entry });
  }
}
