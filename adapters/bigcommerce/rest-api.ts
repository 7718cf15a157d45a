// BigCommerce's V2 orders API, for the customer and totals a webhook lacks and
// for resync. An empty page is HTTP 204 with no body.
import got, { type Got } from 'got';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { asRecord, parseJsonLossless } from '../shared/json.ts';
import { bigCommerceOrderToEvent } from './order-events.ts';

export interface BigCommerceApiOptions {
  storeHash: string;
  accessToken: string;
  /** https://api.bigcommerce.com by default. */
  baseUrl?: string;
}

export class BigCommerceApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BigCommerceApiError';
  }
}

const PAGE_SIZE = 250;

/** The same order in the same state gets the same id: a second resync is all duplicates. */
const resyncId = (order: unknown) => {
  const record = asRecord(order);
  return `bigcommerce-resync:${String(record.id)}:${String(record.date_modified)}:${String(record.status_id)}`;
};

export class BigCommerceApi {
  readonly #http: Got;
  readonly shop: string;

  constructor(options: BigCommerceApiOptions) {
    this.shop = options.storeHash;
    this.#http = got.extend({
      prefixUrl: `${options.baseUrl ?? 'https://api.bigcommerce.com'}/stores/${options.storeHash}/v2`,
      headers: { 'x-auth-token': options.accessToken, accept: 'application/json' },
      timeout: { request: 30_000 },
      retry: { limit: 2, statusCodes: [429, 500, 502, 503, 504] },
      throwHttpErrors: false,
      responseType: 'text',
    });
  }

  /** The JSON of a GET, or undefined for 204 and 404. */
  async get(path: string, searchParams: Record<string, string> = {}): Promise<unknown> {
    const response = await this.#http.get(path, { searchParams });
    if (response.statusCode === 204 || response.statusCode === 404) return undefined;
    if (response.statusCode === 401 || response.statusCode === 403) {
      throw new BigCommerceApiError(`BigCommerce refused the access token (${response.statusCode}); check BIGCOMMERCE_ACCESS_TOKEN and its Orders scope`);
    }
    if (response.statusCode !== 200) throw new BigCommerceApiError(`BigCommerce answered ${response.statusCode} for ${path}`);
    const parsed = parseJsonLossless(response.body);
    if (!parsed.ok) throw new BigCommerceApiError(`BigCommerce answered ${path} with a body that is not JSON`);
    return parsed.value;
  }

  /** One order; its delivery id says its state, unless the caller names the delivery it answers. */
  async orderEvent(orderId: string, deliveryId?: string, now = new Date()): Promise<OrderEvent | undefined> {
    const order = await this.get(`orders/${orderId}`);
    if (order === undefined) return undefined;
    return bigCommerceOrderToEvent(order, await this.#coupons(order), this.shop, deliveryId ?? resyncId(order), now);
  }

  async *orders({ since, until }: { since: Date; until?: Date }, now = new Date()): AsyncGenerator<OrderEvent> {
    for (let page = 1; ; page++) {
      const list = await this.get('orders', {
        min_date_modified: since.toISOString(),
        ...(until ? { max_date_modified: until.toISOString() } : {}),
        sort: 'date_modified:asc',
        page: String(page),
        limit: String(PAGE_SIZE),
      });
      if (!Array.isArray(list) || list.length === 0) return;
      for (const order of list) {
        const event = bigCommerceOrderToEvent(order, await this.#coupons(order), this.shop, resyncId(order), now);
        if (event) yield event;
      }
      if (list.length < PAGE_SIZE) return;
    }
  }

  /** Coupons are a sub-resource; asked for only when the order has a coupon discount. */
  async #coupons(order: unknown): Promise<unknown[]> {
    const record = asRecord(order);
    if (!(Number(record.coupon_discount ?? 0) > 0)) return [];
    const coupons = await this.get(`orders/${String(record.id)}/coupons`);
    return Array.isArray(coupons) ? coupons : [];
  }
}
