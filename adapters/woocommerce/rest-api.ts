// WooCommerce REST API v3, for resync: orders modified in a window, oldest
// first, 100 a page, as many pages as X-WP-TotalPages says. Consumer key and
// secret go as HTTP basic auth, which WooCommerce accepts only over HTTPS.
import got from 'got';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { parseJsonLossless } from '../shared/json.ts';
import { ordersModifiedSince } from '../shared/modified-since.ts';
import { wooIdentity, wooOrderToEvent } from './order-events.ts';

export interface WooRestOptions {
  url: string;
  consumerKey: string;
  consumerSecret: string;
}

export interface FetchWindow {
  since: Date;
  until?: Date;
}

export class WooRestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WooRestError';
  }
}

const PAGE_SIZE = 100;
/** WooCommerce takes ISO 8601 without a zone; with dates_are_gmt=true it is read as GMT. */
const wooTime = (date: Date) => date.toISOString().slice(0, 19);

export function shopOfUrl(url: string): string {
  return new URL(url).host.toLowerCase();
}

/** The key and secret go in the clear over http, so only https, or this very machine. */
export const isLoopback = (url: URL) => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

/** A GET of the REST API, over HTTPS, with the consumer key as basic auth; a refused key says which settings to check. */
async function wooGet(options: WooRestOptions, path: string, searchParams: Record<string, string> = {}) {
  const base = new URL(options.url);
  if (base.protocol !== 'https:' && !isLoopback(base)) throw new WooRestError(`WOOCOMMERCE_URL must be https: WooCommerce accepts the consumer key and secret only over HTTPS (got ${base.protocol})`);
  const response = await got(`${options.url.replace(/\/+$/, '')}/wp-json/wc/v3/${path}`, {
    searchParams,
    username: options.consumerKey,
    password: options.consumerSecret,
    timeout: { request: 30_000 },
    retry: { limit: 2 },
    throwHttpErrors: false,
    responseType: 'text',
  });
  if (response.statusCode === 401 || response.statusCode === 403) {
    throw new WooRestError(`WooCommerce refused the consumer key (${response.statusCode}); check WOOCOMMERCE_CONSUMER_KEY and WOOCOMMERCE_CONSUMER_SECRET (read access)`);
  }
  return response;
}

/** An order read from the API: the same order in the same state gets the same delivery id, so a second resync is all duplicates. */
function resyncEvent(order: unknown, shop: string, now: Date): OrderEvent | undefined {
  const { orderId, modified, status } = wooIdentity(order);
  const result = wooOrderToEvent(order, shop, `woocommerce-resync:${orderId}:${modified}:${status}`, now);
  return result.ok ? result.event : undefined;
}

export async function* fetchWooOrders(options: WooRestOptions, { since, until }: FetchWindow, now = new Date()): AsyncGenerator<OrderEvent> {
  const shop = shopOfUrl(options.url);
  const pages = ordersModifiedSince(
    async (after, page) => {
      const response = await wooGet(options, 'orders', {
        modified_after: wooTime(after),
        ...(until ? { modified_before: wooTime(until) } : {}),
        dates_are_gmt: 'true',
        orderby: 'modified',
        order: 'asc',
        per_page: String(PAGE_SIZE),
        page: String(page),
      });
      if (response.statusCode !== 200) throw new WooRestError(`WooCommerce answered ${response.statusCode} for page ${page} of orders`);
      const parsed = parseJsonLossless(response.body);
      if (!parsed.ok || !Array.isArray(parsed.value)) throw new WooRestError(`WooCommerce answered page ${page} with something that is not a list of orders`);
      return parsed.value;
    },
    (order) => {
      const { orderId, modified } = wooIdentity(order);
      const at = modified ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(modified) ? modified : `${modified}Z`) : NaN;
      return { id: orderId ?? '', modified: Number.isNaN(at) ? undefined : new Date(at) };
    },
    since,
    PAGE_SIZE,
  );
  for await (const order of pages) {
    const event = resyncEvent(order, shop, now);
    if (event) yield event;
  }
}

/** One order by id, for a resync of chosen orders. */
export async function fetchWooOrder(options: WooRestOptions, orderId: string, now = new Date()): Promise<OrderEvent | undefined> {
  const response = await wooGet(options, `orders/${orderId}`);
  if (response.statusCode === 404) return undefined;
  if (response.statusCode !== 200) throw new WooRestError(`WooCommerce answered ${response.statusCode} for order ${orderId}`);
  const parsed = parseJsonLossless(response.body);
  if (!parsed.ok) throw new WooRestError(`WooCommerce answered order ${orderId} with a body that is not JSON`);
  return resyncEvent(parsed.value, shopOfUrl(options.url), now);
}

export interface WooWebhook {
  id: number;
  name: string;
  /** active delivers; paused was set by a person; disabled was set by WooCommerce after failed deliveries. */
  status: 'active' | 'paused' | 'disabled' | string;
  topic: string;
  delivery_url: string;
}

/** The store's webhooks, to notice one WooCommerce disabled after failed deliveries. */
export async function fetchWooWebhooks(options: WooRestOptions): Promise<WooWebhook[]> {
  const webhooks: WooWebhook[] = [];
  let totalPages = 1;
  for (let page = 1; page <= totalPages; page++) {
    const response = await wooGet(options, 'webhooks', { per_page: '100', page: String(page) });
    if (response.statusCode !== 200) throw new WooRestError(`WooCommerce answered ${response.statusCode} for its webhooks`);
    const parsed = parseJsonLossless(response.body);
    if (!parsed.ok || !Array.isArray(parsed.value)) throw new WooRestError('WooCommerce answered its webhooks with something that is not a list');
    totalPages = Math.max(1, Number(response.headers['x-wp-totalpages'] ?? 1) || 1);
    webhooks.push(...(parsed.value as WooWebhook[]));
  }
  return webhooks;
}
