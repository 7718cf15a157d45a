// The fake Shopify's shapes (fake-shopify.ts serves them) and the context its parts share, apart from the server so
// that each part (fake-shopify-oauth.ts, -graphql.ts, -deliver.ts) can name them without importing the server that
// imports it.
import type { Request } from 'express';
import type {
  FakeBulkOperation,
  FakeCodeDiscount,
  FakeSubscription,
  ProtectedDataGrant,
} from './fake-shopify-admin.ts';
import { countUses, type Checkout } from './fake-shopify-checkout.ts';

export interface FakeShopifyOptions {
  apiKey: string;
  apiSecret: string;
  /** The scopes the app is granted, comma-separated as Shopify writes them. */
  scopes?: string;
  /** The app's configured webhook API version (Dev Dashboard, or [webhooks] api_version in shopify.app.toml). */
  webhookApiVersion?: string;
  /** Seconds an expiring offline token lives. */
  accessTokenTtlS?: number;
  /** A TLS key and certificate, for a browser to reach the consent page at https://<shop>. */
  tls?: { key: string; cert: string };
}

export interface Token {
  shop: string;
  expiresAt: number | null;
  /** The refresh token this access token replaced: that one dies when this one is first used. */
  replacedRefresh?: string;
}

export interface FakeShop {
  orders: Map<string, Record<string, unknown>>;
  /** Customer records by numeric id, in the Admin API's shapes (shopifyCustomerNode). */
  customers: Map<string, Record<string, unknown>>;
  subscriptions: FakeSubscription[];
  bulkOperations: Map<string, FakeBulkOperation>;
  mostBulkAtOnce: number;
  /** Code discounts (discountCodeBasicCreate's and discountCodeFreeShippingCreate's) by their number. */
  codeDiscounts: Map<string, FakeCodeDiscount>;
  /** What its checkout charges to ship a cart: one flat rate, which a free shipping code takes off. */
  shippingRate: string;
  /** A use lands in asyncUsageCount at once (the best case); by default only when countUses() runs. */
  usesCountedAtOnce?: boolean;
  /** Codes handed out by the consent page, not yet exchanged. */
  codes: Set<string>;
  /** Refresh tokens still valid. */
  refreshTokens: Set<string>;
  /** The app is installed on the shop: by Shopify itself (managed installation) or an approved consent screen. */
  installed: boolean;
  /** The merchant removed the app (uninstall()): the client credentials grant is refused, app_not_installed, until it is installed again. */
  uninstalled?: boolean;
}

export interface FakeShopify {
  url: string;
  /** The HTTPS port, when started with TLS. */
  httpsPort: number | undefined;
  adminUrl(shop: string): string;
  shop(shop: string): FakeShop;
  /** Every request to the API or token endpoint, in order: what, for which shop, with which token. */
  requests: Array<{ shop: string; what: string; token?: string | undefined; status: number }>;
  /** The body of every token request, as received (client secret included: this is Shopify's side). */
  tokenRequests: Array<{ shop: string; body: Record<string, string> }>;
  /** Now, as the fake sees it: tests move it forward to expire tokens; a move lets Shopify's late counts land. */
  clock: { offsetMs: number };
  /** Contact details withheld: protected customer data not granted (false), or granted for the fields named. */
  protectedDataGranted: ProtectedDataGrant;
  /** Orders older than 60 days are refused without read_all_orders. */
  readAllOrders: boolean;
  /** A token Shopify issued some other way (a legacy custom app's, shown once in its admin). */
  registerToken(token: string, shop: string): void;
  /** Shopify installs the app on the shop by itself (managed installation, from the app's configured scopes). */
  install(shop: string): void;
  /** The merchant removes the app: Shopify revokes every token it issued for the shop (access and refresh). */
  uninstall(shop: string): void;
  /**
   * A customer's cart pays with a discount code, as Shopify's checkout takes it (fake-shopify-checkout.ts): refused
   * (false) when the code is expired or not started, used up, not for that customer (its context), above the cart's
   * subtotal (its minimum), free shipping to some countries only, or with another code when either does not combine
   * with the other's class; otherwise its use is counted, in asyncUsageCount only once countUses() runs or the clock
   * moves (unless the shop counts at once), and what it took off is kept in the discount's `taken`.
   */
  useCode(shop: string, code: string, customerId: string, cart: Omit<Checkout, 'customerId'>): boolean;
  /** Shopify's asynchronous count of code uses runs: asyncUsageCount catches up, in every shop. */
  countUses(): void;
  /** The shop's code discounts, as it holds them. */
  discounts(shop: string): FakeCodeDiscount[];
  /** The next n API calls are throttled. */
  throttleNext(n: number): void;
  /** The next n API calls answer this status. */
  failNext(status: number, n: number): void;
  /** API calls hang for this long (0: answer at once). */
  hangMs: number;
  /**
   * Called for each Admin API operation (by its name) before it runs and after it ran, before the answer goes:
   * a promise it answers holds the call there (kill tests stop the caller while a call is held).
   */
  holdAt: ((operation: string, phase: 'before' | 'after') => Promise<void> | undefined) | undefined;
  /** The scopes granted now (the token answers and currentAppInstallation tell them). */
  scopes: string;
  /** The app's configured webhook API version, which every subscription gets. */
  webhookApiVersion: string;
  /** Status answers a bulk operation stays RUNNING for. */
  bulkPolls: number;
  /** The next bulk operation ends FAILED with this BulkOperationErrorCode. */
  bulkFailNext: string | undefined;
  /** A pause between the result's lines, for a slow download. */
  bulkChunkDelayMs: number;
  /** The storage answers a result's URL with a 302 to this origin, same path (a misbehaving storage or proxy). */
  bulkResultsRedirectTo: string | undefined;
  /** App-scoped subscriptions (declared in shopify.app.toml): they deliver, but the webhookSubscriptions query does not list them; a named one sends its name (X-Shopify-Name). */
  appSubscriptions: Array<{
    topic: string;
    uri: string;
    includeFields?: readonly string[] | undefined;
    name?: string | undefined;
  }>;
  /**
   * An event on a shop, as Shopify sends it: one delivery per subscription
   * to the topic (the shop's and the app's), each with its own webhook id,
   * all with the same event id. Answers each delivery's HTTP status and result.
   */
  deliver(shop: string, topic: string, body: string): Promise<Array<{ status: number; result: string | undefined }>>;
  close(): Promise<void>;
}

/** What a test sets on the handle (fake.scopes = ...) and the routes read on each call. */
export type FakeShopifySettings = Pick<
  FakeShopify,
  | 'protectedDataGranted'
  | 'hangMs'
  | 'holdAt'
  | 'readAllOrders'
  | 'scopes'
  | 'webhookApiVersion'
  | 'bulkPolls'
  | 'bulkFailNext'
  | 'bulkChunkDelayMs'
  | 'bulkResultsRedirectTo'
>;

/** What the fake keeps between calls, handed to each of its parts. */
export interface FakeShopifyContext {
  options: FakeShopifyOptions;
  /** The fake's own origin (a bulk result's URL names it): known once it listens. */
  url: string;
  shops: Map<string, FakeShop>;
  tokens: Map<string, Token>;
  requests: FakeShopify['requests'];
  tokenRequests: FakeShopify['tokenRequests'];
  settings: FakeShopifySettings;
  appSubscriptions: FakeShopify['appSubscriptions'];
  clock: FakeShopify['clock'];
  /** The clock's offset, which clock.offsetMs reads and moves. */
  offsetMs: number;
  /** API calls still to throttle (throttleNext), and to fail with a status (failNext). */
  throttled: number;
  failing: { status: number; count: number };
  /** The last id handed out for a new object of the Admin API. */
  lastId: number;
  now(): number;
  /** The shop of that name, made empty if it is new. */
  shop(name: string): FakeShop;
}

/** Requests name their shop by a path prefix (/shop/<shop>/...) or, for a browser sent here by host resolver rules, by their Host header. */
export const shopOf = (req: Request): string => {
  const prefixed = /^\/shop\/([^/]+)\//.exec(req.originalUrl)?.[1];
  return (prefixed ?? String(req.headers.host ?? '').split(':')[0] ?? '').toLowerCase();
};

const emptyShop = (): FakeShop => ({
  orders: new Map(),
  customers: new Map(),
  subscriptions: [],
  bulkOperations: new Map(),
  mostBulkAtOnce: 0,
  codeDiscounts: new Map(),
  shippingRate: '8.00',
  codes: new Set(),
  refreshTokens: new Set(),
  installed: false,
});

export function newFakeShopifyContext(options: FakeShopifyOptions): FakeShopifyContext {
  const context: FakeShopifyContext = {
    options,
    url: '',
    shops: new Map(),
    tokens: new Map(),
    requests: [],
    tokenRequests: [],
    settings: {
      protectedDataGranted: true,
      hangMs: 0,
      holdAt: undefined,
      readAllOrders: false,
      scopes: options.scopes ?? 'read_orders',
      webhookApiVersion: options.webhookApiVersion ?? '2026-10',
      bulkPolls: 2,
      bulkFailNext: undefined,
      bulkChunkDelayMs: 0,
      bulkResultsRedirectTo: undefined,
    },
    appSubscriptions: [],
    clock: {
      get offsetMs() {
        return context.offsetMs;
      },
      set offsetMs(value: number) {
        // Time passes: Shopify's asynchronous count of code uses has run.
        if (value !== context.offsetMs) for (const each of context.shops.values()) countUses(each);
        context.offsetMs = value;
      },
    },
    offsetMs: 0,
    throttled: 0,
    failing: { status: 0, count: 0 },
    lastId: 1000,
    now: () => Date.now() + context.offsetMs,
    shop: (name) => context.shops.get(name) ?? context.shops.set(name, emptyShop()).get(name)!,
  };
  return context;
}
