// One bridge that serves two strangers on each platform, for the tests of
// what one merchant can do to another: Shopify shops through the app (open
// installs, App Bridge session tokens), BigCommerce stores through the
// single-click app (installed and loaded at the fake BigCommerce), WooCommerce
// stores connected by the operator for their merchants. Each merchant makes
// its own trial account on the bridge's sandbox, as a stranger would.
import { keptPageKey } from '../../src/composition/kept-page-key.ts';
import { bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import { appAt } from './bigcommerce.ts';
import { tempDataDir } from './engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from './fake-bigcommerce.ts';
import { serveFakeCustomers } from './fake-bigcommerce-customers.ts';
import { withPromotions } from './fake-bigcommerce-promotions.ts';
import { addFakeScripts } from './fake-bigcommerce-scripts.ts';
import type { FakeShopify } from './fake-shopify.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from './fake-woocommerce.ts';
import { startHttpsFront, type HttpsFront } from './https-front.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';
import { APP_KEY, APP_SECRET, startFakeShopifyForApp, stopFakeShopifyForApp } from './shopify-app-bridge.ts';
import { mintSessionToken } from './shopify-app-links.ts';
import { answerConsent } from './wordpress-merchant.ts';
import { signInPath, startFakeTinyShop } from '../platforms/tinyshop/fake-tinyshop.ts';
import { tinyShop } from '../platforms/tinyshop/module.ts';
import { raw } from './raw-records.ts';

export const WORLD_ADMIN_TOKEN = 'tenant-world-admin-token-0123456789';
export const BC_CLIENT_ID = 'tenant-world-bc-client';
/** Signs BigCommerce's current-customer tokens for the app, as BigCommerce would. */
export const BC_CLIENT_SECRET = 'tenant-world-bc-client-secret-0123';
/** What the BigCommerce stores approved: orders, and what the storefront and its rewards need. */
const BC_SCOPES =
  'store_v2_orders_read_only store_v2_information_read_only store_v2_content store_v2_customers_read_only store_channel_settings_read_only store_v2_marketing';

export type Platform = 'shopify' | 'woocommerce' | 'bigcommerce';
/** A platform registered at start, as a module of its own (test/platforms/tinyshop/): one store, one merchant. */
export type Registered = 'tinyshop';
export const TINY_STORE = 'tiny-sweep';
export const TINY_SECRET = 'tiny-sweep-webhook-secret-0123456789';
const TINY_TOKEN = 'tiny-sweep-api-token-0123456789';
/** TinyShop as a platform whose store is its merchant's, not the operator's (as open installs are): it makes its own account. */
const merchantsTinyShop: typeof tinyShop = {
  ...tinyShop,
  build(settings, wiring) {
    const parts = tinyShop.build(settings, wiring);
    // Configured with its API here, so it has shops: a module dropped instead would leave the sweeps nothing to try.
    if (!parts?.shops) throw new Error('TinyShop built without its shops: the tenant world configures its API');
    return { ...parts, shops: { ...parts.shops, chosenByOperator: async () => false } };
  },
};

export interface Answer {
  status: number;
  text: string;
  body: any;
}

export interface Merchant {
  platform: Platform | Registered;
  shop: string;
  /** A fresh session of this merchant's own page, as its platform's door takes it. */
  session(): Promise<string>;
  /** The admin API as this merchant's page calls it. */
  call(method: string, path: string, body?: unknown): Promise<Answer>;
}

export interface TenantWorld {
  bridge: RunningBridge;
  merchants: Record<Platform, { a: Merchant; b: Merchant }>;
  /** The one merchant of a platform registered at start. */
  registered: Record<Registered, Merchant>;
  /** The WooCommerce stores behind merchants a and b, and the BigCommerce fake. */
  woo: { a: FakeWooCommerce; b: FakeWooCommerce };
  bc: FakeBigCommerce;
  /** The operator's admin API. */
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
  stop(): Promise<void>;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  const parsed = (() => {
    try {
      return text ? (JSON.parse(text) as unknown) : {};
    } catch {
      return { text };
    }
  })();
  return { status: response.status, text, body: parsed };
}

export async function startTenantWorld(backend: 'lowdb' | 'postgres'): Promise<TenantWorld> {
  const database: TestDatabase | undefined = backend === 'postgres' ? await freshDatabase() : undefined;
  const front: HttpsFront = await startHttpsFront();
  const shopify: FakeShopify = await startFakeShopifyForApp();
  const bc = await startFakeBigCommerce({ storeHash: 'sweephandmade', accessToken: 'sweep-handmade-token' });
  // Its customers, scripts and promotions too: the storefront and its rewards are swept.
  withPromotions(bc);
  serveFakeCustomers(bc);
  addFakeScripts(bc);
  bc.registerApp(appAt(front.url, BC_CLIENT_ID, BC_CLIENT_SECRET, BC_SCOPES));
  const woo = { a: await startFakeWooCommerce(), b: await startFakeWooCommerce() };
  const tiny = await startFakeTinyShop(TINY_TOKEN);
  const loaded = loadConfig({
    modules: [merchantsTinyShop],
    env: {
      TINYSHOP_STORE: TINY_STORE,
      TINYSHOP_WEBHOOK_SECRET: TINY_SECRET,
      TINYSHOP_API_URL: tiny.url,
      TINYSHOP_API_TOKEN: TINY_TOKEN,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: tempDataDir(),
      ...(database ? { DATABASE_URL: database.url } : {}),
      LOG_LEVEL: 'silent',
      DEMO_STORE: 'off',
      RECONCILE_INTERVAL_MINUTES: '0',
      SANDBOX_RATE_LIMIT_PER_MINUTE: '100000',
      LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      ADMIN_TOKEN: WORLD_ADMIN_TOKEN,
      PUBLIC_URL: front.url,
      SHOPIFY_API_KEY: APP_KEY,
      SHOPIFY_API_SECRET: APP_SECRET,
      SHOPIFY_OPEN_INSTALLS: 'true',
      BIGCOMMERCE_CLIENT_ID: BC_CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: BC_CLIENT_SECRET,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      BIGCOMMERCE_OPEN_INSTALLS: 'true',
    },
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }), {
    platformOverrides: { apiUrls: { shopify: (shop) => shopify.adminUrl(shop) } },
    modules: [merchantsTinyShop],
  });
  front.forwardTo(bridge.http.localUrl);
  const url = bridge.http.localUrl;

  const admin = async (method: string, path: string, body?: unknown) =>
    answer(
      await fetch(`${url}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${WORLD_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const merchant = (platform: Platform | Registered, shop: string, session: () => Promise<string>): Merchant => ({
    platform,
    shop,
    session,
    call: async (method, path, body) =>
      answer(
        await fetch(`${url}/admin/api${path}`, {
          method,
          headers: { authorization: `Bearer ${await session()}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      ),
  });

  // Shopify: open installs; the first session token gets the bridge its access by token exchange.
  const shopifyShops = { a: 'alpha-sweep.myshopify.com', b: 'beta-sweep.myshopify.com' };
  for (const shop of Object.values(shopifyShops)) shopify.install(shop);
  const shopifyMerchant = (shop: string) =>
    merchant('shopify', shop, async () => mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET }));

  // BigCommerce: installed from the control panel, the page's session taken from the load callback's page.
  // One load per store: a session lives an hour, longer than any test here.
  const bcSessions = new Map<string, Promise<string>>();
  const bcSession = (hash: string) => {
    const known = bcSessions.get(hash);
    if (known) return known;
    const made = bc.load(hash).then((loaded) => {
      const session = /name="loyalty-bridge-session" content="([^"]+)"/.exec(loaded.body)?.[1];
      if (!session) throw new Error(`no session at the load of ${hash}: ${loaded.status}`);
      return session;
    });
    bcSessions.set(hash, made);
    return made;
  };
  const bcHashes = { a: 'alphasweep1', b: 'betasweep2' };
  for (const hash of Object.values(bcHashes)) {
    const installed = await bc.install(hash);
    if (installed.status !== 200) throw new Error(`the install of ${hash} got ${installed.status}`);
  }

  // WooCommerce: the operator connects each store for its merchant; the page's session as the bridge mints it.
  for (const store of [woo.a, woo.b]) {
    const started = await admin('POST', '/stores/woocommerce/connect', { store: store.url, landing: 'store-page' });
    if (started.status !== 201) throw new Error(`the connect of ${store.url} got ${started.status}: ${started.text}`);
    await answerConsent((started.body as { authorizeUrl: string }).authorizeUrl, 'approve');
  }
  const wooTokens = bridgeShopTokens(
    [await keptPageKey(bridge.engine.store, 'woocommerce-store-page')],
    Date.now,
    modulePagePurpose('woocommerce'),
  );
  const wooShop = async (store: FakeWooCommerce) => {
    const connections = await bridge.engine.store.listRecords(raw<WooConnection>('session'));
    const found = connections.find(({ value }) => value.platform === 'woocommerce' && value.url === store.url);
    if (!found) throw new Error(`${store.url} is not connected`);
    return found.value.shop;
  };
  const [wooA, wooB] = [await wooShop(woo.a), await wooShop(woo.b)];

  // TinyShop: its merchant opens the page from a link TinyShop signs; the session is in the page it answers.
  const tinySession = fetch(`${url}${signInPath(TINY_SECRET, TINY_STORE)}`).then(async (page) => {
    const session = /name="loyalty-bridge-session" content="([^"]+)"/.exec(await page.text())?.[1];
    if (!session) throw new Error(`no session at TinyShop's sign-in: ${page.status}`);
    return session;
  });

  return {
    bridge,
    woo,
    bc,
    admin,
    merchants: {
      shopify: { a: shopifyMerchant(shopifyShops.a), b: shopifyMerchant(shopifyShops.b) },
      woocommerce: {
        a: merchant('woocommerce', wooA, async () => wooTokens.mint(wooA)),
        b: merchant('woocommerce', wooB, async () => wooTokens.mint(wooB)),
      },
      bigcommerce: {
        a: merchant('bigcommerce', bcHashes.a, () => bcSession(bcHashes.a)),
        b: merchant('bigcommerce', bcHashes.b, () => bcSession(bcHashes.b)),
      },
    },
    registered: { tinyshop: merchant('tinyshop', TINY_STORE, () => tinySession) },
    async stop() {
      // Whatever fails to stop, the fake Shopify's route goes: the next file in this worker routes to its own.
      try {
        await bridge.stop();
        await front.close();
        await Promise.all([woo.a.close(), woo.b.close(), bc.close(), tiny.stop()]);
      } finally {
        await stopFakeShopifyForApp(shopify);
        await database?.drop();
      }
    },
  };
}
