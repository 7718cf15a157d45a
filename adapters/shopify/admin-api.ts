// A small client of Shopify's Admin GraphQL API for a custom app (shop
// domain + Admin API access token), honouring Shopify's throttling: the
// query cost bucket in extensions.cost, THROTTLED errors and HTTP 429.
import got, { type Got } from 'got';
import { parseJsonLossless } from '../shared/json.ts';

export const SHOPIFY_ADMIN_API_VERSION = '2026-04';

export class ShopifyAdminError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'ShopifyAdminError';
    this.code = code;
  }
}

interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

interface GraphqlResponse<T> {
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
  extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: ThrottleStatus } };
}

export interface ShopifyAdminOptions {
  shop: string;
  accessToken: string;
  /** https://<shop> by default; tests point it elsewhere. */
  baseUrl?: string;
  maxThrottleRetries?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class ShopifyAdminApi {
  readonly #http: Got;
  readonly #maxRetries: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly shop: string;
  /** What Shopify said of the bucket after the last call, so the next call can wait before it is refused. */
  #bucket: ThrottleStatus | undefined;

  constructor(options: ShopifyAdminOptions) {
    this.shop = options.shop;
    this.#maxRetries = options.maxThrottleRetries ?? 10;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#http = got.extend({
      prefixUrl: `${options.baseUrl ?? `https://${options.shop}`}/admin/api/${SHOPIFY_ADMIN_API_VERSION}`,
      headers: { 'x-shopify-access-token': options.accessToken, accept: 'application/json' },
      timeout: { request: 30_000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
      responseType: 'text',
    });
  }

  async query<T>(query: string, variables: Record<string, unknown> = {}, expectedCost = 50): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      await this.#waitForBucket(expectedCost);
      const response = await this.#http.post('graphql.json', { json: { query, variables } });
      if (response.statusCode === 429 || response.statusCode >= 500) {
        if (attempt >= this.#maxRetries) throw new ShopifyAdminError(`Shopify Admin API answered ${response.statusCode} ${attempt + 1} times`);
        await this.#sleep(Number(response.headers['retry-after'] ?? 2) * 1000);
        continue;
      }
      if (response.statusCode === 401 || response.statusCode === 403) {
        throw new ShopifyAdminError(`Shopify refused the Admin API token (${response.statusCode}); check SHOPIFY_ADMIN_TOKEN and the app's scopes`, 'ACCESS_DENIED');
      }
      const parsed = parseJsonLossless(response.body);
      if (!parsed.ok || response.statusCode >= 400) throw new ShopifyAdminError(`Shopify Admin API answered ${response.statusCode} with an unreadable body`);
      const body = parsed.value as GraphqlResponse<T>;
      this.#bucket = body.extensions?.cost?.throttleStatus ?? this.#bucket;
      const throttled = body.errors?.some((error) => error.extensions?.code === 'THROTTLED');
      if (throttled) {
        if (attempt >= this.#maxRetries) throw new ShopifyAdminError('Shopify kept throttling the Admin API', 'THROTTLED');
        const cost = body.extensions?.cost?.requestedQueryCost ?? expectedCost;
        await this.#sleep(this.#refillMs(cost));
        continue;
      }
      if (body.errors?.length) {
        const first = body.errors[0];
        throw new ShopifyAdminError(`Shopify Admin API: ${body.errors.map((error) => error.message).join('; ')}`, first?.extensions?.code);
      }
      if (body.data === undefined) throw new ShopifyAdminError('Shopify Admin API answered without data');
      return body.data;
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
