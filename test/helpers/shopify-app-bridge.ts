// A bridge set up as a Shopify app (client id, secret, public address), in
// process, beside the fake Shopify: the library's calls to
// https://<shop>/admin/oauth/access_token reach the fake through nock, the
// Admin API calls through the platform override. Its address is known
// before it starts, as Shopify must be told it (SHOPIFY_APP_URL).
import nock from 'nock';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startBridge, type BridgeOptions, type RunningBridge } from '../../src/composition/main.ts';
import { eventually, tempDataDir } from './engine.ts';
import { shopifyHeaders, shopifyOrderJson } from './shopify.ts';
import { routeTokenEndpointToFake, startFakeShopify, stopRoutingTo, type FakeShopify } from './fake-shopify.ts';
import { mintSessionToken } from './shopify-app-links.ts';

export const APP_KEY = 'dev-dashboard-client-id';
export const APP_SECRET = 'dev-dashboard-client-secret-0123';
export const APP_PREVIOUS_SECRET = 'dev-dashboard-old-client-secret-4567';
/** A browser's user agent: @shopify/shopify-api answers 410 to ones it takes for bots. */
export const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

export interface ShopifyAppBridge {
  bridge: RunningBridge;
  url: string;
  stop(): Promise<void>;
}

/** The fake Shopify, with its token endpoint reachable as https://<shop>. */
export async function startFakeShopifyForApp(): Promise<FakeShopify> {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  const fake = await startFakeShopify({ apiKey: APP_KEY, apiSecret: APP_SECRET });
  await routeTokenEndpointToFake(fake);
  return fake;
}

export async function stopFakeShopifyForApp(fake: FakeShopify | undefined): Promise<void> {
  await fake?.close();
  // A stop that comes after the next file started its own fake leaves that file's route and rules alone.
  if (!stopRoutingTo(fake)) return;
  nock.cleanAll();
  nock.enableNetConnect();
}

export async function startShopifyAppBridge(
  fake: FakeShopify,
  env: Record<string, string> = {},
  logger: Logger = createLogger({ level: 'silent' }),
  /** The bridge's own options beside the fake Shopify's addresses (tests hurry its timers). */
  options: Omit<BridgeOptions, 'platformOverrides'> = {},
): Promise<ShopifyAppBridge> {
  const port = await freePort();
  const loaded = loadConfig({
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: tempDataDir(),
      LOG_LEVEL: 'silent',
      DEMO_STORE: 'off',
      RECONCILE_INTERVAL_MINUTES: '0',
      SANDBOX_RATE_LIMIT_PER_MINUTE: '100000',
      LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
      SHOPIFY_API_KEY: APP_KEY,
      SHOPIFY_API_SECRET: APP_SECRET,
      SHOPIFY_APP_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const bridge = await startBridge(loaded.config, logger, {
    ...options,
    platformOverrides: { apiUrls: { shopify: (shop) => fake.adminUrl(shop) } },
  });
  return { bridge, url: bridge.http.localUrl, stop: () => bridge.stop() };
}

/** A suite that starts a fresh bridge in each test (`start`), beside one fake Shopify for the whole file. */
export function shopifyAppSuite(defaults: Record<string, string>) {
  const state: { fake?: FakeShopify; running?: ShopifyAppBridge } = {};
  beforeAll(async () => {
    state.fake = await startFakeShopifyForApp();
  });
  afterAll(() => stopFakeShopifyForApp(state.fake));
  afterEach(async () => {
    await state.running?.stop();
    delete state.running;
  });
  return {
    get fake(): FakeShopify {
      return state.fake!;
    },
    get running(): ShopifyAppBridge {
      return state.running!;
    },
    start: async (env: Record<string, string> = {}) =>
      (state.running = await startShopifyAppBridge(state.fake!, { ...defaults, ...env })),
  };
}

/**
 * The code grant's install, from the bridge's redirect to Shopify's consent
 * screen (`consentRedirect`, the answer to the first App URL): the merchant
 * approves at the fake Shopify, which sends them back to the bridge's
 * callback with a code, in the same browser (its cookies). The callback's
 * answer.
 */
export async function approveInstall(
  suite: { fake: FakeShopify; running: ShopifyAppBridge },
  shop: string,
  consentRedirect: Response,
): Promise<Response> {
  const consent = new URL(consentRedirect.headers.get('location')!);
  const cookies = consentRedirect.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
  const approved = await fetch(`${suite.fake.adminUrl(shop)}/admin/oauth/approve?${consent.searchParams}`, {
    redirect: 'manual',
  });
  const callback = new URL(approved.headers.get('location')!);
  return fetch(`${suite.running.url}${callback.pathname}${callback.search}`, {
    redirect: 'manual',
    headers: { cookie: cookies, 'user-agent': CHROME_UA },
  });
}

/** orders/paid for each [shop, order id], signed as Shopify signs them; resolves once every order is in the ledger. */
export async function deliverPaidOrders(
  running: ShopifyAppBridge,
  orders: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  for (const [shop, id] of orders) {
    const body = shopifyOrderJson({ id });
    const response = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body, shop, secret: APP_SECRET }),
      body,
    });
    if (response.status !== 200) throw new Error(`the delivery of ${shop} ${id} got ${response.status}`);
  }
  await eventually(async () => {
    const { total } = await running.bridge.engine.store.listOrders({ page: 1, limit: 1 });
    if (total < orders.length) throw new Error(`${total} of ${orders.length} orders in the ledger`);
  });
}

/** Shopify's customers/data_request for a shop, signed as Shopify signs it; throws unless it is taken. */
export async function postDataRequest(
  running: ShopifyAppBridge,
  shop: string,
  request: { id: number; email: string; orderIds?: number[] },
): Promise<void> {
  const body = JSON.stringify({
    shop_id: 1,
    shop_domain: shop,
    orders_requested: request.orderIds ?? [],
    customer: { id: 55, email: request.email, phone: null },
    data_request: { id: request.id },
  });
  const response = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'customers/data_request', body, shop, secret: APP_SECRET }),
    body,
  });
  if (response.status !== 200) throw new Error(`the data request of ${shop} got ${response.status}`);
}

/** The admin API as a shop's own page calls it: with an App Bridge session token of that shop, no ADMIN_TOKEN. */
export function asShop(running: ShopifyAppBridge, shop: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${running.url}/admin/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET })}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as any };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
    patch: (path: string, body?: unknown) => call('PATCH', path, body),
    put: (path: string, body?: unknown) => call('PUT', path, body),
    delete: (path: string) => call('DELETE', path),
  };
}

/** The admin API as the operator calls it, with ADMIN_TOKEN: each answer's status and body. */
export function asOperator(running: () => ShopifyAppBridge, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${running().url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, any> };
  };
}
