// BigCommerce's store API: V2 orders (what a thin webhook lacks; resync) and V3 hooks. One client per
// store, shared by every caller, because the rate limit is the store's: each answer says how many requests
// are left in the window (X-Rate-Limit-Requests-Left) and when it resets, and with none left calls wait.
// tokenCheck asks whether BigCommerce still accepts the store's token, which an uninstall revokes.
import { type Got, RequestError } from 'got';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { outboundGot } from '../../src/net/outbound.ts';
import { refusalOf, refusalText } from '../../src/net/refusal.ts';
import { asRecord, parseJsonLossless } from '../shared/json.ts';
import { ordersModifiedSince } from '../shared/modified-since.ts';
import { bigCommerceOrderToEvent } from './order-events.ts';
import { BridgeError } from '../../src/errors.ts';

export interface BigCommerceApiOptions {
  storeHash: string;
  accessToken: string;
  /** https://api.bigcommerce.com by default. */
  baseUrl?: string;
  timeoutMs?: number;
  maxRateLimitWaits?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** What a person checks when the token is refused. */
  tokenSettings?: string | undefined;
}

export class BigCommerceApiError extends BridgeError<'bigcommerce_unavailable' | 'bigcommerce_refused'> {
  readonly status: number | undefined;
  /** Asking again later may succeed: BigCommerce was down, slow, or kept refusing for the rate limit. */
  readonly transient: boolean;
  constructor(message: string, status: number | undefined, transient: boolean) {
    super(transient ? 'bigcommerce_unavailable' : 'bigcommerce_refused', message);
    this.status = status;
    this.transient = transient;
  }
}

export interface BigCommerceHook {
  id: number;
  scope: string;
  destination: string;
  is_active: boolean;
  headers?: Record<string, string> | null;
}

/** Whether BigCommerce accepts a token: refused (revoked, or never good), accepted, or unknown (no answer, or one that does not tell). */
export type TokenCheck = { kind: 'works' } | { kind: 'refused'; status: number } | { kind: 'unknown'; reason: string };

const PAGE_SIZE = 250;

/** The same order in the same state gets the same id: a second resync is all duplicates. */
const resyncId = (order: unknown) => {
  const record = asRecord(order);
  return `bigcommerce-resync:${String(record.id)}:${String(record.date_modified)}:${String(record.status_id)}`;
};

export class BigCommerceApi {
  readonly #http: Got;
  readonly #maxWaits: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #tokenSettings: string;
  readonly shop: string;
  /** The rate-limit window as BigCommerce last described it. */
  #left: number | undefined;
  #resetAt = 0;

  constructor(options: BigCommerceApiOptions) {
    this.shop = options.storeHash;
    this.#maxWaits = options.maxRateLimitWaits ?? 5;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#now = options.now ?? Date.now;
    this.#tokenSettings =
      options.tokenSettings ??
      'BIGCOMMERCE_ACCESS_TOKEN and its scopes (Orders read-only; Information & settings for hooks)';
    // BigCommerce's own address (BIGCOMMERCE_API_URL), never a user's.
    this.#http = outboundGot(
      { userAddress: false },
      {
        prefixUrl: `${options.baseUrl ?? 'https://api.bigcommerce.com'}/stores/${options.storeHash}`,
        headers: { 'x-auth-token': options.accessToken, accept: 'application/json' },
        timeout: { request: options.timeoutMs ?? 15_000 },
        retry: { limit: 0 },
        throwHttpErrors: false,
        responseType: 'text',
      },
    );
  }

  async #request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { searchParams?: Record<string, string>; json?: unknown } = {},
  ) {
    for (let waits = 0; ; waits++) {
      if (this.#left !== undefined && this.#left <= 0 && this.#resetAt > this.#now())
        await this.#sleep(this.#resetAt - this.#now());
      let response;
      try {
        response = await this.#http(path, {
          method,
          ...(options.searchParams ? { searchParams: options.searchParams } : {}),
          ...(options.json !== undefined ? { json: options.json } : {}),
        });
      } catch (error) {
        const refusal = refusalOf(error);
        // Not transient: the address is wrong until a person changes it.
        if (refusal)
          throw new BigCommerceApiError(
            `BigCommerce's API ${refusalText(refusal)}; check BIGCOMMERCE_API_URL (https://api.bigcommerce.com)`,
            refusal.kind === 'redirect' ? refusal.status : undefined,
            false,
          );
        throw new BigCommerceApiError(
          `BigCommerce did not answer ${method} ${path} (${error instanceof RequestError ? error.code : 'error'})`,
          undefined,
          true,
        );
      }
      const left = Number(response.headers['x-rate-limit-requests-left']);
      const resetMs = Number(response.headers['x-rate-limit-time-reset-ms']);
      if (Number.isFinite(left)) this.#left = left;
      if (Number.isFinite(resetMs)) this.#resetAt = this.#now() + resetMs;
      if (response.statusCode === 429) {
        if (waits >= this.#maxWaits)
          throw new BigCommerceApiError(`BigCommerce kept refusing for its rate limit (${path})`, 429, true);
        this.#left = 0;
        this.#resetAt = this.#now() + (Number.isFinite(resetMs) ? resetMs : 1_000);
        continue;
      }
      if (response.statusCode >= 500)
        throw new BigCommerceApiError(
          `BigCommerce answered ${response.statusCode} for ${path}`,
          response.statusCode,
          true,
        );
      if (response.statusCode === 401 || response.statusCode === 403) {
        throw new BigCommerceApiError(
          `BigCommerce refused the access token (${response.statusCode}); check ${this.#tokenSettings}`,
          response.statusCode,
          false,
        );
      }
      return response;
    }
  }

  /**
   * One call as BigCommerce answers it, for the storefront's own endpoints (scripts, promotions, customers): its
   * status and its JSON (undefined for an empty or non-JSON body). Throws as every call does for no answer, the
   * rate limit, a 5xx, or a refused token (401, 403: a scope the install lacks among them).
   */
  async send(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { searchParams?: Record<string, string>; json?: unknown } = {},
  ): Promise<{ status: number; body: unknown }> {
    const response = await this.#request(method, path, options);
    const parsed = response.body ? parseJsonLossless(response.body) : undefined;
    return { status: response.statusCode, body: parsed?.ok ? parsed.value : undefined };
  }

  /** The JSON of a GET, or undefined for 204 and 404. */
  async get(path: string, searchParams: Record<string, string> = {}): Promise<unknown> {
    const response = await this.#request('GET', path, { searchParams });
    if (response.statusCode === 204 || response.statusCode === 404) return undefined;
    if (response.statusCode !== 200)
      throw new BigCommerceApiError(
        `BigCommerce answered ${response.statusCode} for ${path}`,
        response.statusCode,
        false,
      );
    const parsed = parseJsonLossless(response.body);
    if (!parsed.ok)
      throw new BigCommerceApiError(`BigCommerce answered ${path} with a body that is not JSON`, 200, true);
    return parsed.value;
  }

  /** One order; undefined when BigCommerce says it does not exist. Its delivery id says its state, unless the caller names the delivery it answers. */
  async orderEvent(orderId: string, deliveryId?: string, now = new Date()): Promise<OrderEvent | undefined> {
    const order = await this.get(`v2/orders/${orderId}`);
    if (order === undefined) return undefined;
    return bigCommerceOrderToEvent(order, await this.#coupons(order), this.shop, deliveryId ?? resyncId(order), now);
  }

  async *orders({ since, until }: { since: Date; until?: Date }, now = new Date()): AsyncGenerator<OrderEvent> {
    const pages = ordersModifiedSince(
      async (after, page) => {
        const list = await this.get('v2/orders', {
          min_date_modified: after.toISOString(),
          ...(until ? { max_date_modified: until.toISOString() } : {}),
          sort: 'date_modified:asc',
          page: String(page),
          limit: String(PAGE_SIZE),
        });
        return Array.isArray(list) ? list : [];
      },
      (order) => {
        const record = asRecord(order);
        const at = Date.parse(String(record.date_modified ?? ''));
        return { id: String(record.id), modified: Number.isNaN(at) ? undefined : new Date(at) };
      },
      since,
      PAGE_SIZE,
    );
    for await (const order of pages) {
      const event = bigCommerceOrderToEvent(order, await this.#coupons(order), this.shop, resyncId(order), now);
      if (event) yield event;
    }
  }

  /**
   * Coupons are a sub-resource; asked for only where the order may hold one: it has a coupon discount, or it ships.
   * A free-shipping promotion gives the customer a free shipping method rather than a discount
   * (docs/store-operations/promotions, "Free shipping"), BigCommerce documents no coupon_discount for it, and the
   * customer may still pick a paid method with the code applied: its single use is spent all the same. Any shipped
   * order is read, so that a reward's free-shipping code never goes unseen, its points held for nothing.
   */
  async #coupons(order: unknown): Promise<unknown[]> {
    const record = asRecord(order);
    const shipped = Number(record.shipping_address_count ?? 0) > 0;
    if (!(Number(record.coupon_discount ?? 0) > 0) && !shipped) return [];
    const coupons = await this.get(`v2/orders/${String(record.id)}/coupons`);
    return Array.isArray(coupons) ? coupons : [];
  }

  /**
   * One cheap read with the token. It lists hooks, which BigCommerce serves
   * to every API account whatever its scopes (its scopes reference: webhooks
   * are in the default scope), so a 401 or 403 says the token itself is
   * refused, never that it lacks a scope. The store information and time
   * endpoints need Information & settings, which the app does not ask for.
   */
  async tokenCheck(): Promise<TokenCheck> {
    try {
      await this.get('v3/hooks', { page: '1', limit: '1' });
      return { kind: 'works' };
    } catch (error) {
      if (!(error instanceof BigCommerceApiError)) throw error;
      if (error.status === 401 || error.status === 403) return { kind: 'refused', status: error.status };
      return { kind: 'unknown', reason: error.message };
    }
  }

  /** Every hook of the store, page by page. */
  async hooks(): Promise<BigCommerceHook[]> {
    const hooks: BigCommerceHook[] = [];
    for (let page = 1; ; page++) {
      const body = asRecord(await this.get('v3/hooks', { page: String(page), limit: '250' }));
      const data = Array.isArray(body.data) ? (body.data as BigCommerceHook[]) : [];
      hooks.push(...data);
      const pagination = asRecord(asRecord(body.meta).pagination);
      if (data.length === 0 || Number(pagination.current_page ?? page) >= Number(pagination.total_pages ?? page))
        return hooks;
    }
  }

  async createHook(hook: Omit<BigCommerceHook, 'id'>): Promise<BigCommerceHook> {
    const response = await this.#request('POST', 'v3/hooks', { json: hook });
    return this.#hookFrom(response.statusCode, response.body, 'create');
  }

  async updateHook(id: number, change: Partial<Omit<BigCommerceHook, 'id'>>): Promise<BigCommerceHook> {
    const response = await this.#request('PUT', `v3/hooks/${id}`, { json: change });
    return this.#hookFrom(response.statusCode, response.body, 'update');
  }

  #hookFrom(status: number, text: string, what: string): BigCommerceHook {
    const parsed = parseJsonLossless(text);
    const hook = parsed.ok ? (asRecord(asRecord(parsed.value).data) as unknown as BigCommerceHook) : undefined;
    if (status >= 300 || !hook?.id) {
      const title = parsed.ok ? String(asRecord(parsed.value).title ?? '') : '';
      throw new BigCommerceApiError(
        `BigCommerce refused to ${what} a hook (${status}${title ? `: ${title}` : ''})`,
        status,
        false,
      );
    }
    return hook;
  }
}
