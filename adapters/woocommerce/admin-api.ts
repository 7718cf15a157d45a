// WooCommerce REST API v3, one client per store: orders modified in a window, one order, the webhooks.
// Some servers drop the Authorization header, and WooCommerce then answers 401 as if no key was sent: as
// WooCommerce documents for those hosts, such a 401 is tried once with the key in the query string (https
// only), and what worked is remembered. Every request goes through the outbound policy (src/net/outbound.ts):
// the key goes to the store's own origin only, never across a redirect.
import { RequestError, type Got, type Response } from 'got';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { outboundGot, type OutboundPolicy } from '../../src/net/outbound.ts';
import { refusalOf } from '../../src/net/refusal.ts';
import { asRecord, parseJsonLossless } from '../shared/json.ts';
import { ordersModifiedSince } from '../shared/modified-since.ts';
import { wooIdentity, wooOrderToEvent } from './order-events.ts';
import { wooRefusalError, WooRestError } from './rest-errors.ts';
import { wooShopOf } from './shop-identity.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

export { WooRestError, type WooRestErrorCode } from './rest-errors.ts';

export type WooAuthMode = 'basic' | 'query';

export interface WooRestOptions {
  /** The store's address (its home URL). */
  url: string;
  consumerKey: string;
  consumerSecret: string;
  /** How the key got through last time; Basic auth first when unknown. */
  authMode?: WooAuthMode | undefined;
  /** Told when the query string turned out to be the way (or Basic auth again), to keep it for the store. */
  onAuthMode?: ((mode: WooAuthMode) => void) | undefined;
  /** Where the requests go instead of the store's address (tests serve the store locally). */
  requestUrl?: string | undefined;
  /** The settings a person checks when the key is refused. */
  keySettings?: string | undefined;
  /** The setting that holds the store's address (WOOCOMMERCE_URL), for a store configured by environment; a connected store is connected again instead. */
  addressSetting?: string | undefined;
  /** Where requests may go: a connected store's address came from a user. */
  outbound: OutboundPolicy;
}

export interface FetchWindow {
  since: Date;
  until?: Date | undefined;
}

export interface WooWebhook {
  id: number;
  name: string;
  /** active delivers; paused was set by a person; disabled was set by WooCommerce after failed deliveries. */
  status: 'active' | 'paused' | 'disabled' | string;
  topic: string;
  delivery_url: string;
}

const PAGE_SIZE = 100;
/** WooCommerce takes ISO 8601 without a zone; with dates_are_gmt=true it is read as GMT. */
const wooTime = (date: Date) => date.toISOString().slice(0, 19);

/** WooCommerce's error code and message from a JSON error body, when it has them. */
function wooError(response: Response<string>): { code: string; message: string } {
  const parsed = parseJsonLossless(response.body);
  const body = parsed.ok ? asRecord(parsed.value) : {};
  return {
    code: typeof body.code === 'string' ? body.code : '',
    message: typeof body.message === 'string' ? body.message : '',
  };
}

/** An authentication error means the key reached WooCommerce; anything else on a 401 means it did not. */
const keyArrived = (response: Response<string>) =>
  wooError(response).code.startsWith('woocommerce_rest_authentication');

const describe401 = (response: Response<string>) => {
  const { code, message } = wooError(response);
  return `${response.statusCode}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
};

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export class WooRestClient {
  readonly shop: string;
  readonly url: string;
  readonly #o: WooRestOptions;
  readonly #http: Got;
  #mode: WooAuthMode;

  constructor(options: WooRestOptions) {
    this.#o = options;
    this.url = trimTrailing(options.url, '/');
    this.shop = wooShopOf(options.url);
    this.#mode = options.authMode ?? 'basic';
    this.#http = outboundGot(options.outbound, {
      timeout: { request: 30_000 },
      throwHttpErrors: false,
      responseType: 'text',
    });
  }

  get authMode(): WooAuthMode {
    return this.#mode;
  }

  #send(
    method: Method,
    path: string,
    mode: WooAuthMode,
    searchParams: Record<string, string>,
    json: unknown,
  ): Promise<Response<string>> {
    const base = trimTrailing(this.#o.requestUrl ?? this.url, '/');
    const credentials =
      mode === 'query' ? { consumer_key: this.#o.consumerKey, consumer_secret: this.#o.consumerSecret } : {};
    return this.#http(`${base}/wp-json/wc/v3/${path}`, {
      method,
      searchParams: { ...searchParams, ...credentials },
      ...(mode === 'basic' ? { username: this.#o.consumerKey, password: this.#o.consumerSecret } : {}),
      ...(json === undefined ? {} : { json }),
      retry: { limit: method === 'POST' ? 0 : 2 },
    }) as Promise<Response<string>>;
  }

  /** One request, with the key as this store takes it; a refusal names what was tried and which settings to check. */
  async request(
    method: Method,
    path: string,
    { searchParams = {}, json }: { searchParams?: Record<string, string>; json?: unknown } = {},
  ): Promise<Response<string>> {
    const attempt = async (mode: WooAuthMode) => {
      try {
        return await this.#send(method, path, mode, searchParams, json);
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal) throw wooRefusalError(refusal, this.url, this.#o.addressSetting);
        throw new WooRestError(
          `WooCommerce at ${this.url} did not answer ${method} ${path} (${error instanceof RequestError ? error.code : 'error'})`,
          'unavailable',
        );
      }
    };
    const first = this.#mode;
    let response = await attempt(first);
    const tried = [`${first === 'basic' ? 'as Basic auth' : 'in the query string'} (${describe401(response)})`];
    if (response.statusCode === 401 && first === 'basic' && !keyArrived(response)) {
      // The header may have been dropped on the way: the query string, once.
      const again = await attempt('query');
      if (again.statusCode !== 401) this.#remember('query');
      else tried.push(`in the query string (${describe401(again)})`);
      response = again;
    }
    if (response.statusCode === 401 || response.statusCode === 403) {
      const readOnly = /write permission/i.test(wooError(response).message);
      const settings = this.#o.keySettings ?? 'WOOCOMMERCE_CONSUMER_KEY and WOOCOMMERCE_CONSUMER_SECRET';
      if (readOnly)
        throw new WooRestError(
          `WooCommerce at ${this.url} refused to let the consumer key write (${describe401(response)}): it is a read-only key; give it Read/Write access, or connect the store again`,
          'read_only',
          response.statusCode,
        );
      throw new WooRestError(
        `WooCommerce at ${this.url} refused the consumer key, sent ${tried.join(' and then ')}; check ${settings}`,
        'refused',
        response.statusCode,
      );
    }
    return response;
  }

  #remember(mode: WooAuthMode): void {
    if (this.#mode === mode) return;
    this.#mode = mode;
    this.#o.onAuthMode?.(mode);
  }

  async json(
    method: Method,
    path: string,
    options: { searchParams?: Record<string, string>; json?: unknown } = {},
  ): Promise<{ status: number; body: unknown; totalPages: number }> {
    const response = await this.request(method, path, options);
    const parsed = parseJsonLossless(response.body);
    return {
      status: response.statusCode,
      body: parsed.ok ? parsed.value : undefined,
      totalPages: Math.max(1, Number(response.headers['x-wp-totalpages'] ?? 1) || 1),
    };
  }
}

/** An order read from the API: the same order in the same state gets the same delivery id, so a second resync is all duplicates. */
function resyncEvent(order: unknown, shop: string, now: Date): OrderEvent | undefined {
  const { orderId, modified, status } = wooIdentity(order);
  const result = wooOrderToEvent(order, shop, `woocommerce-resync:${orderId}:${modified}:${status}`, now);
  return result.ok ? result.event : undefined;
}

export async function* fetchWooOrders(
  client: WooRestClient,
  { since, until }: FetchWindow,
  now = new Date(),
): AsyncGenerator<OrderEvent> {
  const pages = ordersModifiedSince(
    async (after, page) => {
      const { status, body } = await client.json('GET', 'orders', {
        searchParams: {
          modified_after: wooTime(after),
          ...(until ? { modified_before: wooTime(until) } : {}),
          dates_are_gmt: 'true',
          orderby: 'modified',
          order: 'asc',
          per_page: String(PAGE_SIZE),
          page: String(page),
        },
      });
      if (status !== 200)
        throw new WooRestError(
          `WooCommerce answered ${status} for page ${page} of orders`,
          status >= 500 ? 'unavailable' : 'answer',
          status,
        );
      if (!Array.isArray(body))
        throw new WooRestError(
          `WooCommerce answered page ${page} with something that is not a list of orders`,
          'answer',
          status,
        );
      return body;
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
    const event = resyncEvent(order, client.shop, now);
    if (event) yield event;
  }
}

/** One order by id, for a resync of chosen orders. */
export async function fetchWooOrder(
  client: WooRestClient,
  orderId: string,
  now = new Date(),
): Promise<OrderEvent | undefined> {
  const { status, body } = await client.json('GET', `orders/${orderId}`);
  if (status === 404) return undefined;
  if (status !== 200)
    throw new WooRestError(
      `WooCommerce answered ${status} for order ${orderId}`,
      status >= 500 ? 'unavailable' : 'answer',
      status,
    );
  if (body === undefined)
    throw new WooRestError(`WooCommerce answered order ${orderId} with a body that is not JSON`, 'answer', status);
  return resyncEvent(body, client.shop, now);
}

/** Every webhook of the store, page by page. */
export async function fetchWooWebhooks(client: WooRestClient): Promise<WooWebhook[]> {
  const webhooks: WooWebhook[] = [];
  let totalPages = 1;
  for (let page = 1; page <= totalPages; page++) {
    const answer = await client.json('GET', 'webhooks', { searchParams: { per_page: '100', page: String(page) } });
    if (answer.status !== 200)
      throw new WooRestError(
        `WooCommerce answered ${answer.status} for its webhooks`,
        answer.status >= 500 ? 'unavailable' : 'answer',
        answer.status,
      );
    if (!Array.isArray(answer.body))
      throw new WooRestError(
        'WooCommerce answered its webhooks with something that is not a list',
        'answer',
        answer.status,
      );
    totalPages = answer.totalPages;
    webhooks.push(...(answer.body as WooWebhook[]));
  }
  return webhooks;
}

export interface NewWooWebhook {
  name: string;
  topic: string;
  delivery_url: string;
  secret: string;
  status: 'active';
}

async function writeWebhook(
  client: WooRestClient,
  method: 'POST' | 'PUT',
  path: string,
  body: Partial<NewWooWebhook>,
): Promise<WooWebhook> {
  const answer = await client.json(method, path, { json: body });
  const webhook = asRecord(answer.body);
  if (answer.status >= 300 || typeof webhook.id !== 'number') {
    const message = typeof webhook.message === 'string' ? `: ${webhook.message}` : '';
    throw new WooRestError(
      `WooCommerce refused to ${method === 'POST' ? 'create' : 'change'} a webhook (${answer.status}${message})`,
      answer.status >= 500 ? 'unavailable' : 'answer',
      answer.status,
    );
  }
  return webhook as unknown as WooWebhook;
}

/** Creates a webhook; WooCommerce pings its delivery URL right away (a form body "webhook_id=N"). */
export const createWooWebhook = (client: WooRestClient, webhook: NewWooWebhook) =>
  writeWebhook(client, 'POST', 'webhooks', webhook);

export const updateWooWebhook = (client: WooRestClient, id: number, change: Partial<NewWooWebhook>) =>
  writeWebhook(client, 'PUT', `webhooks/${id}`, change);
