// Writes the upgrade test's data (test/upgrade/7a1c4ad/) by running release
// 7a1c4ad itself: its bridge, its sandbox, its test fakes of Shopify,
// WooCommerce and BigCommerce, driven over HTTP as the platforms and a
// merchant drive them. Nothing here writes a ledger file or a row by hand.
//
// Run it from a worktree of that commit, with its own dependencies and the
// Node it ran on (20), and a PostgreSQL server with trust auth:
//
//   git -C <repo> worktree add --detach /work/old7a 7a1c4ad
//   (cd /work/old7a && PATH=/usr/bin:$PATH npm ci)
//   cd /work/old7a && OLD_BRIDGE=/work/old7a PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres \
//     /usr/bin/node --import tsx <this repo>/test/upgrade/write-7a1c4ad-ledgers.ts <this repo>/test/upgrade/7a1c4ad
//
// It takes about two and a half minutes (the lowdb run waits for finished
// orders to settle into the settled chunks, and each run for a BigCommerce
// read to time out).
// It needs psql and pg_dump on PATH, ports 47380 and 47381 free, and makes
// and drops a database lb_gen_7a1c4ad. The outputs are:
//   lowdb/                 DATA_DIR as the old bridge left it at a clean stop (no lock, no backup/)
//   postgres.sql           pg_dump --no-owner --no-privileges --inserts of the same story on PostgreSQL
//   sandbox-lowdb.json, sandbox-postgres.json   the loyalty sandbox's state at each stop (GET /_sandbox/state)
//   platforms.json         what BigCommerce answers for the orders whose deliveries wait in the inbox
//   expected.json          per order, what must be true once a later release has finished the work
//
// Each run tells the same story: phase 1, the old bridge runs and handles
// deliveries to the end (some refused for good, one waiting on a retry);
// phase 2a, the old engine folds two deliveries without calling (and one
// BigCommerce read times out); phase 2b, the old engine only accepts
// deliveries (and a reconciliation's events), as it would just before a stop.
// This file type-checks against the current tree, but everything it runs is
// the old tree's, imported from OLD_BRIDGE.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { raw } from '../helpers/raw-records.ts';

const OLD = resolve(process.env.OLD_BRIDGE ?? '/work/old7a');
const OUT = resolve(process.argv[2] ?? join(import.meta.dirname, '7a1c4ad'));
const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const GEN_DATABASE = 'lb_gen_7a1c4ad';
const BRIDGE_PORT = 47380;
const FRONT_PORT = 47381;
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn';

/** A module of the old tree. */
const old = (path: string): Promise<any> => import(pathToFileURL(join(OLD, path)).href);
/** A package as the old tree resolves it. */
const oldPackage = (name: string): Promise<any> =>
  import(pathToFileURL(createRequire(join(OLD, 'package.json')).resolve(name)).href);

// --- Names and secrets: all of them fake, and look it.
const APP_KEY = 'fixture-shopify-client-id';
const APP_SECRET = 'fixture-shopify-client-secret-not-real';
const SHOP = 'upgrade-fixture.myshopify.com';
const WOO_HOME = 'https://shop.upgrade-fixture.example/';
const WOO_SHOP = 'shop.upgrade-fixture.example';
const WOO_KEY = 'ck_FAKEfixture7a1c4adNotARealKey000000000';
const WOO_KEY_SECRET = 'cs_FAKEfixture7a1c4adNotARealSecret000000';
const BC_STORE = 'upgr01';
const BC_CLIENT_ID = 'fixture-bc-client-id';
const BC_CLIENT_SECRET = 'fixture-bc-client-secret-not-real';
const BC_TOKEN = 'bcFAKEfixture7a1c4adNotARealToken';
const SHOPIFY_TOKENS = {
  access: 'shpat_FAKE_fixture_7a1c4ad_not_a_real_token',
  refresh: 'shprt_FAKE_fixture_7a1c4ad_not_a_real_token',
};
const LOYALTY = { apiKey: 'fixture-loyalty-key-not-real', brandId: 'fixture-brand' };
const ADMIN_TOKEN = 'fixture-admin-token-not-a-secret';
const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

/** The merchant's rules, the same in both runs. */
const POLICY_ENV = {
  MIN_ORDER_TOTAL: '5',
  EXCLUDED_SOURCES: 'pos',
  REFERRAL_REFERRER_DISCOUNT_PATTERN: '^REF-(.+)$',
  REFERRAL_CAMPAIGN_ID: '21',
  LOYALTY_ORDER_ID_PREFIXES: `bigcommerce:${BC_STORE}=9`,
  SHOPIFY_SHOPS: SHOP,
} as const;
const SANDBOX_ACTIVITIES = { '1': 100 };

/** What must be true of an order once a later release finished its work. */
interface Expected {
  platform: string;
  orderId: string;
  /** Its lp_orderid at the sandbox. */
  lpOrderId: string;
  /** The lifecycle's target state. */
  state: 'new' | 'skipped' | 'void' | 'earned' | 'approved' | 'cancelled';
  reason?: string;
  /** Its earning at the sandbox; null: never earned. */
  points: 'pending' | 'approved' | 'cancelled' | null;
  conversion?: 'pending' | 'approved' | 'rejected';
  redeemedPoints?: number;
  /** Its earn was refused for good: a dead letter holds it. */
  heldBy?: 'earn';
  /** What was left to do when the old bridge stopped. */
  atStop: string;
  /** The calls a later release makes for it, each once: what was left to do. */
  calls: Array<'earn' | 'approve' | 'cancel' | 'redeem' | 'conversion' | 'approveConversion' | 'rejectConversion'>;
}

const expected = new Map<string, Expected>();
const expect = (
  platform: string,
  shop: string,
  orderId: string,
  spec: Omit<Expected, 'platform' | 'orderId' | 'lpOrderId' | 'calls'> & Partial<Pick<Expected, 'lpOrderId' | 'calls'>>,
) =>
  expected.set(`${platform}:${shop}:${orderId}`, {
    platform,
    orderId,
    lpOrderId: spec.lpOrderId ?? orderId,
    calls: [],
    ...spec,
  });

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  for (const started = Date.now(); !(await check()); await sleep(50)) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
  }
}
const psql = (sql: string) =>
  execFileSync('psql', [PG_ADMIN_URL, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql], { stdio: ['ignore', 'pipe', 'inherit'] });

async function run(backend: 'lowdb' | 'postgres'): Promise<void> {
  const step = (message: string) => process.stdout.write(`[${backend}] ${message}\n`);
  const { loadConfig } = await old('src/config.ts');
  const { createLogger } = await old('src/logger.ts');
  const { startBridge } = await old('src/main.ts');
  const { createSandbox } = await old('src/sandbox/app.ts');
  const { listen } = await old('src/http/listen.ts');
  const { openStore } = await old('src/core/store/open-store.ts');
  const { openEngine } = await old('src/core/engine.ts');
  const { engineOptionsFromConfig, loyaltyClientFromConfig } = await old('src/engine-from-config.ts');
  const { buildPlatforms } = await old('src/platforms.ts');
  const { webhookHandler } = await old('src/http/webhook-route.ts');
  const { admitShopifyShop } = await old('src/http/shopify-surface.ts');
  const { Reconciler } = await old('src/core/reconciler.ts');
  const { SHOPIFY_APP_URL_PATH } = await old('src/http/shopify-auth.ts');
  const { startFakeShopify, shopifyOrderNode } = await old('test/helpers/fake-shopify.ts');
  const { startFakeWooCommerce } = await old('test/helpers/fake-woocommerce.ts');
  const { startFakeBigCommerce } = await old('test/helpers/fake-bigcommerce.ts');
  const { outboundPost } = await old('test/helpers/outbound-post.ts');
  const { shopifyHeaders, shopifyOrderJson } = await old('test/helpers/shopify.ts');
  const { wooOrderJson } = await old('test/helpers/woocommerce.ts');
  const { bcOrder } = await old('test/helpers/bigcommerce.ts');
  const { appUrlQuery, mintSessionToken } = await old('test/helpers/shopify-app-links.ts');
  const { default: nock } = await oldPackage('nock');
  const logger = createLogger({ level: LOG_LEVEL });

  // --- The loyalty service: the old sandbox, on a port of its own.
  const sandbox = createSandbox({ ...LOYALTY, activities: SANDBOX_ACTIVITIES, rateLimit: 100_000 });
  const sandboxHttp = await listen(sandbox.app, 0, '127.0.0.1');

  // --- Shopify: the old fake; its token endpoint reached as https://<shop> through nock, and its tokens renamed to ones that are plainly fake.
  const shopify = await startFakeShopify({ apiKey: APP_KEY, apiSecret: APP_SECRET });
  shopify.install(SHOP);
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  nock(/\.myshopify\.com(:443)?$/)
    .persist()
    .post('/admin/oauth/access_token')
    .reply(async function (this: { req: { headers: Record<string, string> } }, uri: string, body: unknown) {
      const shopName = String(this.req.headers.host ?? '').split(':')[0] ?? '';
      const response = await fetch(`${shopify.adminUrl(shopName)}${uri}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const answer = (await response.json()) as Record<string, unknown>;
      if (response.status === 200 && typeof answer.access_token === 'string') {
        answer.access_token = SHOPIFY_TOKENS.access;
        shopify.registerToken(SHOPIFY_TOKENS.access, shopName);
        if (typeof answer.refresh_token === 'string') {
          shopify.shop(shopName).refreshTokens.add(SHOPIFY_TOKENS.refresh);
          answer.refresh_token = SHOPIFY_TOKENS.refresh;
        }
      }
      return [response.status, JSON.stringify(answer), { 'content-type': 'application/json' }];
    });

  // --- WooCommerce: the old fake, calling itself by a fixed name; the bridge reaches its REST API where it listens.
  const woo = await startFakeWooCommerce({ homeUrl: WOO_HOME });
  woo.keys.set(WOO_KEY, {
    keyId: 1,
    consumerSecret: WOO_KEY_SECRET,
    permissions: 'read_write',
    description: 'loyalty-bridge - API (created on 2026-11-23)',
  });

  // --- BigCommerce: the old fake; its token endpoint behind a small front that hands the bridge a plainly fake token in place of its random one.
  const bc = await startFakeBigCommerce({ storeHash: 'unused01', accessToken: 'bcFAKEunusedStoreToken' });
  // Its default quota (150 calls in 30 s) is BigCommerce's smallest plan's: the story's reads could wait out a window.
  bc.quota = { requests: 10_000, windowMs: 30_000 };
  const bcLogin = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const response = await fetch(`${bc.url}${req.url}`, {
          method: req.method,
          headers: { 'content-type': String(req.headers['content-type'] ?? 'application/json') },
          body: Buffer.concat(chunks),
        });
        const text = await response.text();
        let answer = text;
        if (response.status === 200 && req.url === '/oauth2/token') {
          const granted = JSON.parse(text) as { access_token: string; context: string };
          const store = bc.stores.get(granted.context.replace('stores/', ''));
          const secret = store.tokens.get(granted.access_token);
          store.tokens.delete(granted.access_token);
          store.tokens.set(BC_TOKEN, secret);
          answer = JSON.stringify({ ...granted, access_token: BC_TOKEN });
        }
        res.writeHead(response.status, { 'content-type': 'application/json' }).end(answer);
      })();
    });
  });
  await new Promise<void>((done) => bcLogin.listen(0, '127.0.0.1', done));
  const bcLoginUrl = `http://127.0.0.1:${(bcLogin.address() as AddressInfo).port}`;

  // --- The bridge's public https address (WooCommerce sends keys only to https); it forwards to whichever bridge runs.
  // Its port is fixed: its address is in the records the platforms' checks leave, the same from run to run.
  const publicFront = await fixedFront(FRONT_PORT);
  bc.registerApp({
    clientId: BC_CLIENT_ID,
    clientSecret: BC_CLIENT_SECRET,
    authCallback: `${publicFront.url}/bigcommerce/auth`,
    loadCallback: `${publicFront.url}/bigcommerce/load`,
    uninstallCallback: `${publicFront.url}/bigcommerce/uninstall`,
    scope: 'store_v2_orders_read_only store_v2_information_read_only',
  });

  // --- The ledger.
  const dataDir = mkdtempSync(join(tmpdir(), 'lb-gen-7a1c4ad-'));
  if (backend === 'postgres') {
    psql(`DROP DATABASE IF EXISTS ${GEN_DATABASE} WITH (FORCE)`);
    psql(`CREATE DATABASE ${GEN_DATABASE}`);
  }
  const databaseUrl = Object.assign(new URL(PG_ADMIN_URL), { pathname: `/${GEN_DATABASE}` }).toString();

  const env = {
    PORT: String(BRIDGE_PORT),
    HOST: '127.0.0.1',
    PUBLIC_URL: publicFront.url,
    DATA_DIR: dataDir,
    ...(backend === 'postgres' ? { DATABASE_URL: databaseUrl } : {}),
    LOG_LEVEL,
    DEMO_STORE: 'off',
    ADMIN_TOKEN,
    ADMIN_TOKEN_LABEL: 'fixture-operator',
    LOYALTY_BASE_URL: sandboxHttp.localUrl,
    LOYALTY_API_KEY: LOYALTY.apiKey,
    LOYALTY_BRAND_ID: LOYALTY.brandId,
    LOYALTY_MAX_RETRIES: '0',
    LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
    RECONCILE_INTERVAL_MINUTES: '0',
    SETTLE_AFTER_MINUTES: '1',
    SHOPIFY_API_KEY: APP_KEY,
    SHOPIFY_API_SECRET: APP_SECRET,
    BIGCOMMERCE_CLIENT_ID: BC_CLIENT_ID,
    BIGCOMMERCE_CLIENT_SECRET: BC_CLIENT_SECRET,
    BIGCOMMERCE_LOGIN_URL: bcLoginUrl,
    BIGCOMMERCE_API_URL: bc.url,
    ...POLICY_ENV,
  };
  const loaded = loadConfig({ env });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const config = loaded.config;
  const platformOverrides = {
    shopifyAdminUrl: (shop: string) => shopify.adminUrl(shop),
    wooRequestUrl: () => woo.url.replace(/\/$/, ''),
  };

  // Where deliveries go: the running bridge, through the https front.
  const shopifyDelivery = async (topic: string, body: string, copies = 1) => {
    for (let copy = 0; copy < copies; copy++) {
      const answer = await outboundPost(
        `${publicFront.url}/webhooks/shopify`,
        shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET }),
        body,
        5_000,
      );
      if (answer.status !== 200) throw new Error(`Shopify ${topic} answered ${answer.status}: ${answer.body}`);
    }
  };
  const shopifyOrder = (id: string, options: Record<string, unknown> = {}) => shopifyOrderJson({ id, ...options });
  const wooOrder = (options: Record<string, unknown>) =>
    woo.orders.set(options.id as number, JSON.parse(wooOrderJson(options)) as Record<string, unknown>);
  const wooDelivery = async (topic: string, id: number) => {
    const statuses = (await woo.deliver(topic, id)) as number[];
    if (statuses.length === 0 || statuses.some((status) => status !== 200))
      throw new Error(`WooCommerce ${topic} ${id} answered ${statuses.join(', ')}`);
  };
  const bcStore = () => bc.stores.get(BC_STORE);
  const bcDelivery = async (scope: string, id: number) => {
    const statuses = (await bc.deliver(scope, id, { store: BC_STORE })) as number[];
    if (statuses.length === 0 || statuses.some((status) => status !== 200))
      throw new Error(`BigCommerce ${scope} ${id} answered ${statuses.join(', ')}`);
  };
  /** Minutes ago, as WooCommerce writes its GMT times. */
  const wooTime = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString().slice(0, 19);

  // ===== Phase 1: the old bridge runs.
  step('phase 1: the bridge runs');
  const bridge = await startBridge(config, logger, { platformOverrides });
  publicFront.forwardTo(bridge.http.localUrl);
  const drained = () => bridge.engine.drain();
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, any>;
    if (response.status >= 300)
      throw new Error(`admin ${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };

  // Shopify: the merchant opens the embedded app on a shop Shopify installed (managed install): token exchange, an expiring offline token.
  const opened = await fetch(
    `${bridge.http.localUrl}${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: SHOP, secret: APP_SECRET, idToken: mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET }) })}`,
    {
      redirect: 'manual',
      headers: { 'user-agent': CHROME_UA },
    },
  );
  if (opened.status !== 200) throw new Error(`the App URL answered ${opened.status}`);
  await eventually(
    async () => (await bridge.engine.store.getRecord(raw('platform-health'), `shopify:${SHOP}`)) !== undefined,
    'the Shopify shop’s subscriptions checked',
  );

  // WooCommerce: connected as WooCommerce's app authentication does it; the store POSTs its new key to the callback.
  const connect = await admin('POST', '/stores/woocommerce/connect', { store: WOO_HOME });
  const authorize = new URL(connect.authorizeUrl as string);
  const callback = await outboundPost(
    authorize.searchParams.get('callback_url')!,
    { 'content-type': 'application/json;charset=UTF-8' },
    JSON.stringify({
      key_id: 1,
      user_id: authorize.searchParams.get('user_id'),
      consumer_key: WOO_KEY,
      consumer_secret: WOO_KEY_SECRET,
      key_permissions: 'read_write',
    }),
    10_000,
  );
  if (callback.status !== 200)
    throw new Error(`the WooCommerce key callback answered ${callback.status}: ${callback.body}`);
  await eventually(
    () => woo.webhooks.filter((webhook: { status: string }) => webhook.status === 'active').length === 4,
    'the WooCommerce webhooks made',
  );
  await eventually(
    async () =>
      (await bridge.engine.store.getRecord(raw('reconciliation'), `woocommerce:${WOO_SHOP}`))?.lastRun != null,
    'the WooCommerce store’s first reconciliation',
  );
  // A second store whose connect was started and never finished: its pending nonce stays in the ledger.
  await admin('POST', '/stores/woocommerce/connect', { store: 'https://never-finished.upgrade-fixture.example' });

  // BigCommerce: installed from the control panel as a single-click app.
  const installed = await bc.install(BC_STORE);
  if (installed.status !== 200)
    throw new Error(`the BigCommerce install answered ${installed.status}: ${installed.body}`);
  await eventually(() => (bcStore()?.hooks.length ?? 0) === 5, 'the BigCommerce hooks made');
  await eventually(
    async () =>
      (await bridge.engine.store.getRecord(raw('reconciliation'), `bigcommerce:${BC_STORE}`))?.lastRun != null,
    'the BigCommerce store’s first reconciliation',
  );

  // --- Shopify orders.
  const S = (n: number) => `736100000${String(n).padStart(4, '0')}`;
  const grace = { email: 'grace@example.com' };
  const at = (hour: number, minute = 0) =>
    `2026-11-20T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00-05:00`;
  await shopifyDelivery('orders/create', shopifyOrder(S(1), { financialStatus: 'pending', updatedAt: at(9) }));
  expect('shopify', SHOP, S(1), { state: 'new', points: null, atStop: 'placed, not paid: nothing to send' });
  await shopifyDelivery('orders/paid', shopifyOrder(S(2), { test: true, updatedAt: at(9) }));
  expect('shopify', SHOP, S(2), { state: 'skipped', reason: 'test_order', points: null, atStop: 'skipped' });
  await shopifyDelivery('orders/paid', shopifyOrder(S(3), { email: null, customer: null, updatedAt: at(9) }));
  expect('shopify', SHOP, S(3), { state: 'skipped', reason: 'missing_email', points: null, atStop: 'skipped' });
  await shopifyDelivery('orders/paid', shopifyOrder(S(4), { totalPrice: '2.00', updatedAt: at(9) }));
  expect('shopify', SHOP, S(4), { state: 'skipped', reason: 'below_minimum', points: null, atStop: 'skipped' });
  await shopifyDelivery('orders/paid', shopifyOrder(S(5), { sourceName: 'pos', updatedAt: at(9) }));
  expect('shopify', SHOP, S(5), { state: 'skipped', reason: 'excluded_source', points: null, atStop: 'skipped' });
  await shopifyDelivery('orders/create', shopifyOrder(S(6), { financialStatus: 'pending', updatedAt: at(9) }));
  await shopifyDelivery(
    'orders/cancelled',
    shopifyOrder(S(6), { financialStatus: 'voided', cancelledAt: at(10), updatedAt: at(10) }),
  );
  expect('shopify', SHOP, S(6), { state: 'void', points: null, atStop: 'cancelled before payment: nothing ever sent' });
  await shopifyDelivery('orders/paid', shopifyOrder(S(7), { ...grace, updatedAt: at(9) }), 2);
  await shopifyDelivery('orders/paid', shopifyOrder(S(8), { updatedAt: at(9) }));
  await drained();
  await shopifyDelivery('orders/fulfilled', shopifyOrder(S(8), { fulfillmentStatus: 'fulfilled', updatedAt: at(11) }));
  expect('shopify', SHOP, S(8), { state: 'approved', points: 'approved', atStop: 'approved' });
  await shopifyDelivery('orders/paid', shopifyOrder(S(9), { updatedAt: at(9) }));
  await drained();
  await shopifyDelivery(
    'orders/cancelled',
    shopifyOrder(S(9), { financialStatus: 'refunded', cancelledAt: at(12), updatedAt: at(12) }),
  );
  expect('shopify', SHOP, S(9), { state: 'cancelled', points: 'cancelled', atStop: 'cancelled' });
  const referred = {
    totalPrice: '89.50',
    customerPhone: '+1 212 555 0142',
    landingSite: '/products/compiler?utm_source=friend&loyalty_campaign=21&loyalty_referrer=ANNA-7',
  };
  await shopifyDelivery('orders/paid', shopifyOrder(S(10), { ...referred, updatedAt: at(9) }));
  await drained();
  await shopifyDelivery(
    'orders/fulfilled',
    shopifyOrder(S(10), { ...referred, fulfillmentStatus: 'fulfilled', updatedAt: at(11) }),
  );
  expect('shopify', SHOP, S(10), {
    state: 'approved',
    points: 'approved',
    conversion: 'approved',
    atStop: 'approved, its conversion added and approved',
  });
  const redeemer = {
    email: 'redeemer@example.com',
    customer: { id: 91, first_name: 'Rae', last_name: 'Deemer', email: 'redeemer@example.com', phone: '+12125550177' },
  };
  await shopifyDelivery(
    'orders/fulfilled',
    shopifyOrder(S(11), { ...redeemer, fulfillmentStatus: 'fulfilled', updatedAt: at(9) }),
  );
  await drained();
  expect('shopify', SHOP, S(11), {
    state: 'approved',
    points: 'approved',
    atStop: 'approved: 100 points the next order redeems half of',
  });
  await shopifyDelivery(
    'orders/paid',
    shopifyOrder(S(12), {
      ...redeemer,
      discountCodes: [{ code: 'LOYALTY-RAE', amount: '0.50', type: 'fixed_amount' }],
      updatedAt: at(10),
    }),
  );
  expect('shopify', SHOP, S(12), {
    state: 'earned',
    points: 'pending',
    redeemedPoints: 50,
    atStop: 'earned, 50 points redeemed',
  });
  const big = '9007199254740993';
  await shopifyDelivery('orders/paid', shopifyOrder(big, { updatedAt: at(9) }));
  await shopifyDelivery('orders/paid', shopifyOrder(S(14), { totalPrice: '80.00', updatedAt: at(9) }));
  await drained();
  await shopifyDelivery(
    'orders/fulfilled',
    shopifyOrder(S(14), { totalPrice: '80.00', fulfillmentStatus: 'fulfilled', updatedAt: at(11) }),
  );
  const partialRefund = [
    {
      id: 990014,
      created_at: at(13),
      transactions: [{ id: 1, kind: 'refund', status: 'success', amount: '20.00', currency: 'USD' }],
    },
  ];
  await shopifyDelivery(
    'orders/updated',
    shopifyOrder(S(14), {
      totalPrice: '80.00',
      financialStatus: 'partially_refunded',
      fulfillmentStatus: 'fulfilled',
      refunds: partialRefund,
      updatedAt: at(13),
    }),
  );
  expect('shopify', SHOP, S(14), {
    state: 'approved',
    points: 'approved',
    atStop: 'approved; a partial refund leaves its points (PARTIAL_REFUND=ignore)',
  });
  // Kept by Shopify's compliance webhook: a customer's data request.
  await shopifyDelivery(
    'customers/data_request',
    JSON.stringify({
      shop_id: 954889,
      shop_domain: SHOP,
      orders_requested: [Number(S(7))],
      customer: { id: 7001, email: 'grace@example.com', phone: null },
      data_request: { id: 9999 },
    }),
  );
  // An authentic delivery that is no order: dead-lettered as unusable.
  await shopifyDelivery(
    'orders/paid',
    shopifyOrder(S(16), { updatedAt: at(9) }).replace(`"id":${S(16)}`, '"id":"not-an-order-id"'),
  );
  await drained();
  // The service refuses an earn for good: a dead letter holds the call.
  sandbox.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
  await shopifyDelivery('orders/paid', shopifyOrder(S(15), { updatedAt: at(9) }));
  await drained();
  sandbox.faults.configure({});
  expect('shopify', SHOP, S(15), {
    state: 'earned',
    points: null,
    heldBy: 'earn',
    atStop: 'its earn refused with 400: a dead letter holds it until a person retries',
  });
  // A manual earn by the operator (an adjustment record) and a Shopify reconciliation (nothing missed).
  await admin('POST', '/adjustments/earn', {
    activityId: '1',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    mobile: '+447911123456',
    reason: 'goodwill for a late parcel',
  });
  shopify.shop(SHOP).orders.set(S(7), shopifyOrderNode(S(7)));
  await bridge.reconciler.run('shopify', SHOP);

  // --- WooCommerce orders.
  const W = (n: number) => 5200 + n;
  const referral = [
    { key: 'loyalty_campaign', value: '21' },
    { key: 'loyalty_referrer', value: 'BOB-3' },
  ];
  wooOrder({ id: W(1), status: 'processing', modified: wooTime(50) });
  await wooDelivery('order.created', W(1));
  wooOrder({ id: W(2), status: 'processing', modified: wooTime(50) });
  await wooDelivery('order.created', W(2));
  wooOrder({ id: W(3), status: 'processing', modified: wooTime(50) });
  await wooDelivery('order.created', W(3));
  wooOrder({ id: W(4), status: 'pending', modified: wooTime(50) });
  await wooDelivery('order.created', W(4));
  wooOrder({ id: W(5), status: 'processing', meta: referral, modified: wooTime(50) });
  await wooDelivery('order.created', W(5));
  wooOrder({ id: W(6), status: 'on-hold', modified: wooTime(50) });
  await wooDelivery('order.created', W(6));
  await drained();
  wooOrder({ id: W(2), status: 'completed', modified: wooTime(40) });
  await wooDelivery('order.updated', W(2));
  wooOrder({ id: W(3), status: 'completed', modified: wooTime(40) });
  await wooDelivery('order.updated', W(3));
  wooOrder({ id: W(4), status: 'cancelled', modified: wooTime(40) });
  await wooDelivery('order.updated', W(4));
  await drained();
  wooOrder({ id: W(3), status: 'refunded', refunds: [{ id: 3301, total: '-64.00' }], modified: wooTime(30) });
  await wooDelivery('order.updated', W(3));
  await drained();
  expect('woocommerce', WOO_SHOP, String(W(2)), { state: 'approved', points: 'approved', atStop: 'approved' });
  expect('woocommerce', WOO_SHOP, String(W(3)), {
    state: 'cancelled',
    points: 'cancelled',
    atStop: 'approved, then refunded in full: cancelled',
  });
  expect('woocommerce', WOO_SHOP, String(W(4)), { state: 'void', points: null, atStop: 'cancelled before payment' });
  expect('woocommerce', WOO_SHOP, String(W(5)), {
    state: 'earned',
    points: 'pending',
    conversion: 'pending',
    atStop: 'earned, its conversion added',
  });
  expect('woocommerce', WOO_SHOP, String(W(6)), { state: 'new', points: null, atStop: 'on hold: nothing to send' });

  // --- BigCommerce orders (lp_orderid 9<id>: LOYALTY_ORDER_ID_PREFIXES).
  const B = (n: number) => 6200 + n;
  const bcOrderOf = (id: number, statusId: number, options: Record<string, unknown> = {}) =>
    bcStore().orders.set(id, bcOrder(id, statusId, options));
  for (const n of [1, 2, 3]) {
    bcOrderOf(B(n), 11);
    await bcDelivery('store/order/created', B(n));
  }
  const coupons = { total: '140.0000', couponDiscount: '10.0000', coupons: [{ code: 'REF-CAROL9', discount: 10 }] };
  bcOrderOf(B(4), 11, coupons);
  await bcDelivery('store/order/created', B(4));
  bcOrderOf(B(6), 7);
  await bcDelivery('store/order/created', B(6));
  await drained();
  bcOrderOf(B(2), 10);
  await bcDelivery('store/order/statusUpdated', B(2));
  bcOrderOf(B(3), 5);
  await bcDelivery('store/order/statusUpdated', B(3));
  bcOrderOf(B(4), 2, coupons);
  await bcDelivery('store/order/statusUpdated', B(4));
  // A delivery for an order the store does not have: unusable, dead-lettered.
  await bcDelivery('store/order/created', B(99));
  await drained();
  const lp = (id: number) => `9${id}`;
  expect('bigcommerce', BC_STORE, String(B(2)), {
    lpOrderId: lp(B(2)),
    state: 'approved',
    points: 'approved',
    atStop: 'approved',
  });
  expect('bigcommerce', BC_STORE, String(B(3)), {
    lpOrderId: lp(B(3)),
    state: 'cancelled',
    points: 'cancelled',
    atStop: 'earned, then cancelled',
  });
  expect('bigcommerce', BC_STORE, String(B(4)), {
    lpOrderId: lp(B(4)),
    state: 'approved',
    points: 'approved',
    conversion: 'approved',
    atStop: 'approved, its conversion (a referrer’s coupon) added and approved',
  });
  expect('bigcommerce', BC_STORE, String(B(6)), {
    lpOrderId: lp(B(6)),
    state: 'new',
    points: null,
    atStop: 'awaiting payment: nothing to send',
  });
  // A resync the operator asked for (a resync-job record).
  const resync = await admin('POST', '/resync', { platform: 'bigcommerce', shop: BC_STORE, orderIds: [String(B(2))] });
  // On PostgreSQL, 7a1c4ad has been seen to leave this resync 'running' for good (2 runs in 7, its one order
  // fetched and accepted): what the database is doing is printed then, and the script has to be run again.
  let job: unknown;
  await eventually(
    async () =>
      ((job = (await admin('GET', `/resync/${resync.job.id}`)).job) as { status: string }).status !== 'running',
    'the resync',
    60_000,
  ).catch((error: unknown) => {
    if (backend === 'postgres')
      process.stdout.write(
        psql(
          `SELECT pid, state, wait_event_type, wait_event, left(query, 200) FROM pg_stat_activity WHERE datname = '${GEN_DATABASE}'`,
        ).toString(),
      );
    return Promise.reject(new Error(`${(error as Error).message}: ${JSON.stringify(job)}`));
  });
  await drained();

  if (backend === 'lowdb') {
    // Finished orders settle into the settled chunks after SETTLE_AFTER_MINUTES of quiet (swept every 30 s).
    step('waiting for finished orders to settle');
    await sleep(100_000);
  }
  // Last: an earn the service answers 503 with Retry-After 60: its retry is due a minute after the stop.
  sandbox.faults.configure({ forced: { status: 503, count: 1, retryAfterSeconds: 60 } });
  await shopifyDelivery('orders/paid', shopifyOrder(S(17), { updatedAt: at(9) }));
  await drained();
  await eventually(
    async () => Boolean((await bridge.engine.store.getOrder(`shopify:${SHOP}:${S(17)}`))?.work.retryAt),
    'the earn waiting on its retry',
  );
  sandbox.faults.configure({});
  expect('shopify', SHOP, S(17), {
    state: 'earned',
    points: 'pending',
    atStop: 'its earn answered 503 (Retry-After 60): waiting on a retry due after the stop',
    calls: ['earn'],
  });
  await bridge.stop();
  step('phase 1: the bridge stopped');

  // ===== Phase 2: the old engine alone, as the bridge opens it, with only its webhook routes in front.
  const openOldEngine = async () => {
    const openedStore = await openStore(config, logger);
    const client = loyaltyClientFromConfig(config, openedStore, { baseUrl: sandboxHttp.localUrl });
    const platforms = buildPlatforms(config, openedStore.store, platformOverrides);
    const engine = await openEngine({
      ...engineOptionsFromConfig(config, { store: openedStore.store, client, logger, platforms }),
    });
    await platforms.prepare(logger);
    const routes: Record<string, any> = {};
    for (const [platform, adapter] of Object.entries(platforms.adapters)) {
      routes[`/webhooks/${platform}`] = webhookHandler(adapter, engine.ingest, logger, {
        maxBodyBytes: 1_048_576,
        ...(platform === 'shopify' ? { admitShop: admitShopifyShop(platforms.shopifyAllowed) } : {}),
      });
    }
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const route = routes[(req.url ?? '').split('?')[0] ?? ''];
      if (route) void route(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    publicFront.forwardTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return {
      engine,
      platforms,
      async stop() {
        await new Promise<void>((done) => server.close(() => done()));
        await engine.stop();
        await openedStore.release();
      },
    };
  };

  // 2a: deliveries folded into their orders, the worker never started: their calls are left to do.
  step('phase 2a: folded, not sent');
  const folding = await openOldEngine();
  await shopifyDelivery(
    'orders/fulfilled',
    shopifyOrder(S(7), { ...grace, fulfillmentStatus: 'fulfilled', updatedAt: at(11) }),
  );
  expect('shopify', SHOP, S(7), {
    state: 'approved',
    points: 'approved',
    atStop: 'earned; its fulfilment folded, approve not yet sent',
    calls: ['approve'],
  });
  await shopifyDelivery('orders/paid', shopifyOrder(S(19), { updatedAt: at(14) }));
  expect('shopify', SHOP, S(19), {
    state: 'earned',
    points: 'pending',
    atStop: 'paid and folded, earn not yet sent',
    calls: ['earn'],
  });
  // BigCommerce does not answer in time (15 s): the delivery waits in the inbox with a retry time.
  bcOrderOf(B(7), 11);
  bc.hangMs = 16_000;
  await bcDelivery('store/order/created', B(7));
  await folding.engine.foldInbox();
  bc.hangMs = 0;
  expect('bigcommerce', BC_STORE, String(B(7)), {
    lpOrderId: lp(B(7)),
    state: 'earned',
    points: 'pending',
    atStop: 'in the inbox: BigCommerce did not answer its read, retried later',
    calls: ['earn'],
  });
  await folding.stop();

  // 2b: deliveries accepted and acknowledged, not folded: the inbox.
  step('phase 2b: accepted, not folded');
  const accepting = await openOldEngine();
  await shopifyDelivery('orders/paid', shopifyOrder(S(20), { updatedAt: at(15) }));
  expect('shopify', SHOP, S(20), { state: 'earned', points: 'pending', atStop: 'in the inbox', calls: ['earn'] });
  await shopifyDelivery(
    'orders/paid',
    shopifyOrder(S(21), {
      ...referred,
      landingSite: referred.landingSite.replace('ANNA-7', 'ANNA-8'),
      updatedAt: at(15),
    }),
  );
  expect('shopify', SHOP, S(21), {
    state: 'earned',
    points: 'pending',
    conversion: 'pending',
    atStop: 'in the inbox, referred',
    calls: ['earn', 'conversion'],
  });
  await shopifyDelivery(
    'orders/cancelled',
    shopifyOrder(big, { financialStatus: 'refunded', cancelledAt: at(16), updatedAt: at(16) }),
  );
  expect('shopify', SHOP, big, {
    state: 'cancelled',
    points: 'cancelled',
    atStop: 'earned; its cancellation in the inbox',
    calls: ['cancel'],
  });
  wooOrder({ id: W(1), status: 'completed', modified: wooTime(5) });
  await wooDelivery('order.updated', W(1));
  expect('woocommerce', WOO_SHOP, String(W(1)), {
    state: 'approved',
    points: 'approved',
    atStop: 'earned; its completion in the inbox',
    calls: ['approve'],
  });
  bcOrderOf(B(1), 10);
  await bcDelivery('store/order/statusUpdated', B(1));
  expect('bigcommerce', BC_STORE, String(B(1)), {
    lpOrderId: lp(B(1)),
    state: 'approved',
    points: 'approved',
    atStop: 'earned; its completion in the inbox',
    calls: ['approve'],
  });
  // An order WooCommerce never delivered: a reconciliation finds it, and its events wait in the inbox.
  wooOrder({ id: W(8), status: 'processing', email: 'missed@example.com', modified: wooTime(2) });
  const reconciler = new Reconciler({
    sources: accepting.platforms.sources,
    store: accepting.engine.store,
    ingest: accepting.engine.ingest,
    logger,
    intervalMs: 0,
    overlapMs: 10 * 60_000,
    firstLookbackMs: 24 * 60 * 60_000,
  });
  await reconciler.run('woocommerce', WOO_SHOP);
  expect('woocommerce', WOO_SHOP, String(W(8)), {
    state: 'earned',
    points: 'pending',
    atStop: 'never delivered; a reconciliation’s events for it in the inbox',
    calls: ['earn'],
  });
  const inbox = (await accepting.engine.store.stats()).inboxBacklog;
  step(`phase 2b: ${inbox} deliveries in the inbox`);
  await accepting.stop();

  // ===== What the old code left.
  const sandboxState = (await (
    await fetch(`${sandboxHttp.localUrl}/_sandbox/state`, {
      headers: { 'x-api-key': LOYALTY.apiKey, 'x-brand-id': LOYALTY.brandId },
    })
  ).json()) as unknown;
  writeFileSync(join(OUT, `sandbox-${backend}.json`), `${JSON.stringify(sandboxState, null, 2)}\n`);
  if (backend === 'lowdb') {
    const target = join(OUT, 'lowdb');
    rmSync(target, { recursive: true, force: true });
    // The DATA_DIR as it is, but for the lock (held by a process; host-specific) and backup/ (copies read only to mend damage).
    cpSync(dataDir, target, {
      recursive: true,
      filter: (source) => ![join(dataDir, 'lock'), join(dataDir, 'backup')].includes(source),
    });
  } else {
    const dump = execFileSync('pg_dump', ['--no-owner', '--no-privileges', '--inserts', databaseUrl], {
      maxBuffer: 64 * 1024 * 1024,
    });
    writeFileSync(join(OUT, 'postgres.sql'), dump);
    psql(`DROP DATABASE IF EXISTS ${GEN_DATABASE} WITH (FORCE)`);
  }
  writeFileSync(
    join(OUT, 'platforms.json'),
    `${JSON.stringify({ bigcommerce: { store: BC_STORE, accessToken: BC_TOKEN, clientSecret: BC_CLIENT_SECRET, orders: Object.fromEntries([B(1), B(7)].map((id) => [id, bcStore().orders.get(id)])) } }, null, 2)}\n`,
  );

  nock.cleanAll();
  nock.enableNetConnect();
  await publicFront.close();
  await new Promise<void>((done) => bcLogin.close(() => done()));
  await Promise.all([shopify.close(), woo.close(), bc.close(), sandboxHttp.close()]);
  rmSync(dataDir, { recursive: true, force: true });
  step('done');
}

/** The old test's https front (test/helpers/https-front.ts, its certificate too), on a fixed port. */
async function fixedFront(
  port: number,
): Promise<{ url: string; forwardTo(url: string): void; close(): Promise<void> }> {
  const { selfSignedCertificate } = await old('test/helpers/https-front.ts');
  const { createServer: createHttpsServer } = await import('node:https');
  const { request } = await import('node:http');
  let target: URL | undefined;
  const server = createHttpsServer(selfSignedCertificate(), (req, res) => {
    if (!target) return void res.writeHead(502).end('no bridge behind the front yet');
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(port, '127.0.0.1', done));
  return {
    url: `https://127.0.0.1:${port}`,
    forwardTo(url) {
      target = new URL(url);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

async function main(): Promise<void> {
  if (!existsSync(join(OLD, 'src', 'main.ts')))
    throw new Error(`OLD_BRIDGE=${OLD} is not a worktree of the old release`);
  const head = execFileSync('git', ['-C', OLD, 'rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8' }).trim();
  if (head !== '7a1c4ad') throw new Error(`OLD_BRIDGE is at ${head}, not 7a1c4ad`);
  mkdirSync(OUT, { recursive: true });
  for (const backend of ['lowdb', 'postgres'] as const) {
    expected.clear();
    await run(backend);
  }
  const orders = Object.fromEntries([...expected.entries()].sort(([a], [b]) => a.localeCompare(b)));
  const manifest = {
    writtenBy: '7a1c4ad',
    writtenAt: new Date().toISOString(),
    node: process.version,
    /** The settings both runs had (the merchant's rules, the apps' ids and secrets); the upgrade test runs the current code under them. */
    env: {
      ...POLICY_ENV,
      SHOPIFY_API_KEY: APP_KEY,
      SHOPIFY_API_SECRET: APP_SECRET,
      BIGCOMMERCE_CLIENT_ID: BC_CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: BC_CLIENT_SECRET,
    },
    sandbox: { activities: SANDBOX_ACTIVITIES },
    orders,
    /** Deliveries that made no order: each left a dead letter. */
    deadLetters: [
      { kind: 'call', orderKey: `shopify:${SHOP}:7361000000015`, operation: 'earn', httpStatus: 400 },
      { kind: 'delivery', platform: 'shopify', shop: SHOP, topic: 'orders/paid' },
      { kind: 'delivery', platform: 'bigcommerce', shop: BC_STORE, topic: 'store/order/created' },
    ],
    redemptions: [{ email: 'redeemer@example.com', points: 50 }],
    /** Earnings without an order: the operator's manual earn. */
    manualEarnings: [{ email: 'ada@example.com', activityId: '1' }],
  };
  writeFileSync(join(OUT, 'expected.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`wrote ${readdirSync(OUT).join(', ')} in ${OUT}\n`);
}

await main();
process.exit(0);
