// A small client of Shopify's Admin GraphQL API for one shop, shared by every caller (intake, resync,
// reconciliation, registration) so that they all wait on the same query cost bucket. An answer with both
// data and errors is data: protected customer data not granted comes back as null fields with
// ACCESS_DENIED errors, and the order is processed with what it has.
import { type Got, RequestError } from 'got';
import { outboundGot } from '../../src/net/outbound.ts';
import { refusalOf, refusalText } from '../../src/net/refusal.ts';
import { parseJsonLossless } from '../shared/json.ts';
import { ShopifyAccessError, type ShopifyAccess } from './access.ts';
import { BridgeError } from '../../src/errors.ts';

export class ShopifyAdminError extends BridgeError {
  /** Whether asking again later may succeed (Shopify down, throttling that did not clear). */
  readonly transient: boolean;
  /** `code` is Shopify's own error code (ACCESS_DENIED, THROTTLED, ...) where it gave one. */
  constructor(message: string, code = 'ADMIN_API_ERROR', transient = false) {
    super(code, message);
    this.transient = transient;
  }
}

interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface GraphqlError {
  message: string;
  path?: Array<string | number>;
  extensions?: { code?: string };
}

interface GraphqlResponse<T> {
  data?: T;
  errors?: GraphqlError[];
  extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: ThrottleStatus } };
}

export interface QueryResult<T> {
  data: T;
  /** Errors that came with the data: fields the app may not read. */
  partialErrors: GraphqlError[];
}

export interface ShopifyAdminOptions {
  shop: string;
  access: ShopifyAccess;
  apiVersion: string;
  /** https://<shop> by default; tests point it elsewhere. */
  baseUrl?: string;
  maxThrottleRetries?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class ShopifyAdminApi {
  readonly #http: Got;
  readonly #access: ShopifyAccess;
  readonly #maxRetries: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly shop: string;
  readonly apiVersion: string;
  /** What Shopify said of the bucket after the last call, so the next call can wait before it is refused. */
  #bucket: ThrottleStatus | undefined;

  constructor(options: ShopifyAdminOptions) {
    this.shop = options.shop;
    this.apiVersion = options.apiVersion;
    this.#access = options.access;
    this.#maxRetries = options.maxThrottleRetries ?? 10;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    // The X-Shopify-Access-Token goes to the shop's own address only: a redirect elsewhere is refused.
    this.#http = outboundGot(
      { userAddress: false },
      {
        prefixUrl: `${options.baseUrl ?? `https://${options.shop}`}/admin/api/${options.apiVersion}`,
        headers: { accept: 'application/json' },
        timeout: { request: options.timeoutMs ?? 30_000 },
        retry: { limit: 0 },
        throwHttpErrors: false,
        responseType: 'text',
      },
    );
  }

  /** The data of a query; throws when there is none (see queryPartial for answers with both). */
  async query<T>(query: string, variables: Record<string, unknown> = {}, expectedCost = 50): Promise<T> {
    const { data, partialErrors } = await this.queryPartial<T>(query, variables, expectedCost);
    void partialErrors;
    return data;
  }

  async queryPartial<T>(
    query: string,
    variables: Record<string, unknown> = {},
    expectedCost = 50,
  ): Promise<QueryResult<T>> {
    let refused: string | undefined;
    for (let attempt = 0; ; attempt++) {
      await this.#waitForBucket(expectedCost);
      let token: string;
      try {
        token = await this.#access.token(this.shop, refused ? { renew: true, refused } : {});
      } catch (error) {
        if (error instanceof ShopifyAccessError)
          throw new ShopifyAdminError(
            error.message,
            error.code === 'unavailable' ? 'UNAVAILABLE' : 'ACCESS_DENIED',
            error.code === 'unavailable',
          );
        throw error;
      }
      let response;
      try {
        response = await this.#http.post('graphql.json', {
          json: { query, variables },
          headers: { 'x-shopify-access-token': token },
        });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal)
          throw new ShopifyAdminError(
            `Shopify Admin API of ${this.shop}: ${refusalText(refusal)}`,
            refusal.kind === 'redirect' ? 'REDIRECTED' : 'ADDRESS_REFUSED',
          );
        const code = error instanceof RequestError ? error.code : 'unknown';
        throw new ShopifyAdminError(`Shopify Admin API of ${this.shop} did not answer (${code})`, 'UNAVAILABLE', true);
      }
      if (response.statusCode === 429 || response.statusCode >= 500) {
        if (attempt >= this.#maxRetries)
          throw new ShopifyAdminError(
            `Shopify Admin API answered ${response.statusCode} ${attempt + 1} times`,
            'UNAVAILABLE',
            true,
          );
        await this.#sleep(Number(response.headers['retry-after'] ?? 2) * 1000);
        continue;
      }
      if (response.statusCode === 401 && !refused) {
        // Expired or revoked: one new token, then the call once more.
        refused = token;
        continue;
      }
      if (response.statusCode === 401 || response.statusCode === 403) {
        throw new ShopifyAdminError(
          `Shopify refused the Admin API token of ${this.shop} (${response.statusCode}); check the app's installation and scopes`,
          'ACCESS_DENIED',
        );
      }
      const parsed = parseJsonLossless(response.body);
      if (!parsed.ok || response.statusCode >= 400)
        throw new ShopifyAdminError(`Shopify Admin API answered ${response.statusCode} with an unreadable body`);
      const body = parsed.value as GraphqlResponse<T>;
      this.#bucket = body.extensions?.cost?.throttleStatus ?? this.#bucket;
      const throttled = body.errors?.some((error) => error.extensions?.code === 'THROTTLED');
      if (throttled) {
        if (attempt >= this.#maxRetries)
          throw new ShopifyAdminError('Shopify kept throttling the Admin API', 'THROTTLED', true);
        const cost = body.extensions?.cost?.requestedQueryCost ?? expectedCost;
        await this.#sleep(this.#refillMs(cost));
        continue;
      }
      if (body.data !== undefined && body.data !== null) return { data: body.data, partialErrors: body.errors ?? [] };
      if (body.errors?.length) {
        const first = body.errors[0];
        throw new ShopifyAdminError(
          `Shopify Admin API: ${body.errors.map((error) => error.message).join('; ')}`,
          first?.extensions?.code,
        );
      }
      throw new ShopifyAdminError('Shopify Admin API answered without data');
    }
  }

  async #waitForBucket(cost: number): Promise<void> {
    if (this.#bucket && this.#bucket.currentlyAvailable < cost) await this.#sleep(this.#refillMs(cost));
  }

  #refillMs(cost: number): number {
    const bucket = this.#bucket ?? { currentlyAvailable: 0, restoreRate: 50, maximumAvailable: 1000 };
    const missing = Math.max(0, cost - bucket.currentlyAvailable);
    const ms = Math.ceil((missing / Math.max(1, bucket.restoreRate)) * 1000);
    // Assume the bucket refilled that much while we waited.
    this.#bucket = { ...bucket, currentlyAvailable: Math.max(bucket.currentlyAvailable, cost) };
    return Math.max(ms, 100);
  }
}

/** One client per shop, shared by every caller, so they share the shop's cost bucket. */
export class ShopifyAdminApis {
  readonly #apis = new Map<string, ShopifyAdminApi>();
  readonly #options: Omit<ShopifyAdminOptions, 'shop' | 'baseUrl'> & { baseUrl?: (shop: string) => string };
  readonly access: ShopifyAccess;

  constructor(options: Omit<ShopifyAdminOptions, 'shop' | 'baseUrl'> & { baseUrl?: (shop: string) => string }) {
    this.#options = options;
    this.access = options.access;
  }

  for(shop: string): ShopifyAdminApi {
    let api = this.#apis.get(shop);
    if (!api) {
      const { baseUrl, ...rest } = this.#options;
      api = new ShopifyAdminApi({ ...rest, shop, ...(baseUrl ? { baseUrl: baseUrl(shop) } : {}) });
      this.#apis.set(shop, api);
    }
    return api;
  }
}
