// The store side of the kill test of reward codes (e2e/rewards-crash), one per platform: the fake store the bridge
// processes are an app of, and what the test does through it. Each starts its fake in the test's process (so it
// outlives every kill), installs the app and turns the storefront and one reward on, asks for the customer's
// points and redeems as that customer, pays with a code at the store's checkout and tells the bridge the order is
// paid, holds the store's calls the kills land in, and says which codes a customer could still pay with.
// Shopify: the fake Admin API (its GraphQL operations held by name), the storefront through the signed app proxy.
// BigCommerce: the fake store API with its Promotions, Customers and Scripts APIs (a call held by method and path,
// held-calls.ts), the storefront with the current-customer token BigCommerce signs.
// WooCommerce: the fake WordPress with its coupons (a call held by method and path, held-calls.ts), the
// store connected by the operator and the storefront through the WordPress plugin, connected with a code from the
// merchant's page and signing the customer's identity token as its PHP does. The bridge's https address (which the
// key's callback, the webhooks and the plugin's code carry) is a front in the test's process, so it outlives every
// kill too: it forwards to whichever process the test talks to.
import { expect } from 'vitest';
import { bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import { keptPageKey } from '../../src/composition/kept-page-key.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { appAt, bcOrder } from './bigcommerce.ts';
import { eventually } from './engine.ts';
import { currentCustomerJwt } from './bigcommerce-customer-jwt.ts';
import { startFakeBigCommerce } from './fake-bigcommerce.ts';
import { addCustomer, serveFakeCustomers } from './fake-bigcommerce-customers.ts';
import { withCallHooks, type HeldCall } from './held-calls.ts';
import { codeRefusal, storeCart, useCode } from './fake-bigcommerce-checkout.ts';
import { promotionsOf, withPromotions } from './fake-bigcommerce-promotions.ts';
import { addFakeScripts } from './fake-bigcommerce-scripts.ts';
import { shopifyCustomerNode, startFakeShopify, type FakeShopify } from './fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from './shopify.ts';
import { APP_KEY, APP_SECRET, asShop, type ShopifyAppBridge } from './shopify-app-bridge.ts';
import { proxiedQuery } from './shopify-proxy-signer.ts';
import { startFakeWooCommerce } from './fake-woocommerce.ts';
import { couponRefusal, couponsOf, setFreeShipping, useCoupon, withCoupons } from './fake-woocommerce-coupons.ts';
import { startHttpsFront } from './https-front.ts';
import { wooOrderJson } from './woocommerce.ts';
import { exchangeCode, identityToken, type PluginConnection } from './woocommerce-plugin.ts';
import { answerConsent } from './wordpress-merchant.ts';

/** A call held where it is, until the test lets it go on (after the process that made it is killed) or drops it. */
export interface Held {
  reached: Promise<void>;
  /** Goes on as if its caller were still there: the store or the sandbox does what it was asked. */
  go(): void;
  /** The request never arrived: nothing is done. */
  drop(): void;
}

export function holder(): Held & { arrive(): Promise<void> } {
  let reached!: () => void;
  let go!: () => void;
  let drop!: (error: Error) => void;
  const reachedP = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve, reject) => {
    go = resolve;
    drop = reject;
  });
  released.catch(() => undefined);
  return {
    reached: reachedP,
    go: () => go(),
    drop: () => drop(new Error('dropped')),
    arrive: () => {
      reached();
      return released;
    },
  };
}

export type Answer = { status: number; body: Record<string, any> };
const json = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
};

export interface KillTestCustomer {
  email: string;
}

export interface KillTestStore {
  /** The ledger's names for the store: its platform and its shop. */
  platform: string;
  shop: string;
  /** The bridge processes' settings for it: the app's keys, the fake's address, the store allowed (PLATFORM too). */
  env: Record<string, string>;
  /** What else the configuration needs to open the ledger outside a process: the app's address. */
  ledgerEnv: Record<string, string>;
  /** With the ledger, before any process starts (what the test needs from it later). */
  beforeStart(store: LedgerStore): Promise<void>;
  /** Once the processes listen (the first at `url`): the app installed, the storefront and one reward on; its id. */
  setUp(url: string, reward: Record<string, unknown>): Promise<string>;
  points(url: string): Promise<Answer>;
  redeem(url: string, rewardId: string): Promise<Answer>;
  /** The customer pays with the code at the store's checkout: whether the store applied it. */
  pay(code: string): boolean;
  /** The store tells the bridge at `url` that its `nth` order (1, 2, 3), paid with the code, is paid. */
  deliverPaid(url: string, nth: number, code: string): Promise<void>;
  /** How the `nth` order's key in the ledger ends. */
  orderId(nth: number): string;
  /** Codes a customer could still pay with: in the store, not used up, not ended. */
  liveCodes(): string[];
  /** Every code of the bridge's the store holds, used or not. */
  inStore(): string[];
  /** What the bridge made in the store that no code of its needs (a BigCommerce promotion left without its code). */
  strays(): string[];
  /** The next make: held before the store made anything, or after the code is made (its answer held). */
  holdMake(phase: 'before' | 'after'): Held;
  /**
   * Where the store makes a code in two calls (BigCommerce: its promotion, then its code on it): the next make held
   * once the first is done, its answer held.
   */
  holdFirstPartMade?(): Held;
  /** The next removal of a code: held once the store removed the code (its answer held). */
  holdRemoval(): Held;
  /** The app uninstalled (its token refused from now on), then the shop's data erased: its shop/redact sent to `url`. */
  eraseShop: ((url: string) => Promise<void>) | undefined;
  close(): Promise<void>;
}

const CUSTOMER_ID = '7001';
/** The cart a code pays for: shopifyOrderJson's subtotal, above any minimum the kill test's reward has. */
const PAID_SUBTOTAL = '120.00';

export async function shopifyKillStore({ email }: KillTestCustomer): Promise<KillTestStore> {
  const SHOP = 'kill-shop.myshopify.com';
  const fake: FakeShopify = await startFakeShopify({
    apiKey: APP_KEY,
    apiSecret: APP_SECRET,
    scopes: 'read_orders,write_app_proxy,read_customers,write_discounts',
  });
  fake.install(SHOP);
  fake.shop(SHOP).customers.set(CUSTOMER_ID, shopifyCustomerNode(CUSTOMER_ID, { email }));
  /** The fake Shopify's hook: the next call of an operation held before it runs, or after (its answer held). */
  const hold = (operation: string, phase: 'before' | 'after'): Held => {
    const held = holder();
    fake.holdAt = (name, at) => {
      if (name !== operation || at !== phase) return undefined;
      fake.holdAt = undefined;
      return held.arrive();
    };
    return held;
  };
  const signed = (extra: Array<[string, string]> = []) =>
    proxiedQuery({ shop: SHOP, customerId: CUSTOMER_ID, extra }, APP_SECRET);
  const orderId = (nth: number) => `630000000${nth}`;
  return {
    platform: 'shopify',
    shop: SHOP,
    env: {
      PLATFORM: 'shopify',
      SHOPIFY_API_KEY: APP_KEY,
      SHOPIFY_API_SECRET: APP_SECRET,
      SHOPIFY_SHOPS: SHOP,
      FAKE_SHOPIFY_URL: fake.url,
    },
    ledgerEnv: { SHOPIFY_APP_URL: 'http://127.0.0.1:1' },
    beforeStart: async () => undefined,
    async setUp(url, reward) {
      const merchant = asShop({ url } as ShopifyAppBridge, SHOP);
      const on = await merchant.put('/storefront', { on: true });
      expect(on.status, on.text).toBe(200);
      const saved = await merchant.put('/storefront/rewards', { rewards: [reward] });
      expect(saved.status).toBe(200);
      return saved.body.rewards[0].id as string;
    },
    points: async (url) => json(await fetch(`${url}/shopify/storefront/points?${signed()}`)),
    redeem: async (url, rewardId) =>
      json(
        await fetch(`${url}/shopify/storefront/points/redeem?${signed([['reward', rewardId]])}`, { method: 'POST' }),
      ),
    pay: (code) => fake.useCode(SHOP, code, CUSTOMER_ID, { subtotal: PAID_SUBTOTAL }),
    async deliverPaid(url, nth, code) {
      const body = shopifyOrderJson({
        id: orderId(nth),
        discountCodes: [{ code, amount: '1.00', type: 'fixed_amount' }],
      });
      const response = await fetch(`${url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP, secret: APP_SECRET }),
        body,
      });
      expect(response.status).toBe(200);
    },
    orderId,
    liveCodes: () =>
      fake
        .discounts(SHOP)
        .filter(
          (each) =>
            (each.usageLimit === null || each.uses < each.usageLimit) &&
            (each.endsAt === null || Date.parse(each.endsAt) > Date.now()),
        )
        .map((each) => each.code),
    inStore: () => fake.discounts(SHOP).map((each) => each.code),
    // One discount holds its one code: nothing can be left without it.
    strays: () => [],
    holdMake: (phase) => hold('LoyaltyBridgeDiscountCodeCreate', phase),
    holdRemoval: () => hold('LoyaltyBridgeDiscountCodeDelete', 'after'),
    async eraseShop(url) {
      fake.uninstall(SHOP);
      const body = JSON.stringify({ shop_id: 1, shop_domain: SHOP });
      const response = await fetch(`${url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'shop/redact', body, shop: SHOP, secret: APP_SECRET }),
        body,
      });
      expect(response.status).toBe(200);
    },
    close: () => fake.close(),
  };
}

export async function bigCommerceKillStore({ email }: KillTestCustomer): Promise<KillTestStore> {
  const STORE = 'kill1';
  const CLIENT_ID = 'bc-kill-client-id';
  const CLIENT_SECRET = 'bc-kill-client-secret-for-tests';
  // Orders, the widget's script, customers' records and promotions, all granted at the install.
  const SCOPES =
    'store_v2_orders_read_only store_v2_content store_v2_customers_read_only store_channel_settings_read_only store_v2_marketing';
  /** A page of the store: its own domain, where the widget asks from. */
  const STORE_PAGE = 'https://www.kill-store.example';
  const bc = await startFakeBigCommerce({ storeHash: 'unusedhash', accessToken: 'unused-token' });
  // Before the routes it holds.
  const hooks = withCallHooks(bc.storeApi);
  withPromotions(bc);
  serveFakeCustomers(bc);
  addFakeScripts(bc);
  /** The next call that matches held before it runs, or after (its answer held). */
  const hold = (matches: (call: HeldCall) => boolean, phase: 'before' | 'after'): Held => {
    const held = holder();
    return hooks.holdNext(matches, phase, () => held.arrive(), held);
  };
  const CODES_PATH = /^\/v3\/promotions\/\d+\/codes\/?$/;
  let pageKey = '';
  const customerToken = () =>
    currentCustomerJwt({
      storeHash: STORE,
      customerId: Number(CUSTOMER_ID),
      email,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
  /** What the widget on the store's page asks: with the token BigCommerce gave that page, from the store's origin. */
  const asCustomer = async (url: string, path: string, method = 'GET') =>
    json(
      await fetch(`${url}/bigcommerce/storefront/points${path}`, {
        method,
        headers: { authorization: `Bearer ${customerToken()}`, origin: STORE_PAGE, accept: 'application/json' },
      }),
    );
  const merchant = async (url: string, method: string, path: string, body: unknown) => {
    const token = bridgeShopTokens([pageKey], Date.now, modulePagePurpose('bigcommerce')).mint(STORE);
    return json(
      await fetch(`${url}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  };
  const codes = () => promotionsOf(bc, STORE).flatMap((promotion) => promotion.codes.map((each) => each.code));
  const orderId = (nth: number) => `630${nth}`;
  return {
    platform: 'bigcommerce',
    shop: STORE,
    env: {
      PLATFORM: 'bigcommerce',
      BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      BIGCOMMERCE_STORES: STORE,
    },
    ledgerEnv: { PUBLIC_URL: 'http://127.0.0.1:1' },
    // The merchant's page is signed with a key the bridge keeps in its ledger: made here, taken by every process.
    async beforeStart(store) {
      pageKey = await keptPageKey(store, 'bigcommerce-store-page');
    },
    async setUp(url, reward) {
      bc.registerApp(appAt(url, CLIENT_ID, CLIENT_SECRET, SCOPES));
      expect((await bc.install(STORE)).status).toBe(200);
      addCustomer(bc, STORE, { id: Number(CUSTOMER_ID), email });
      const on = await merchant(url, 'PUT', '/storefront', { on: true });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      const saved = await merchant(url, 'PUT', '/storefront/rewards', { rewards: [reward] });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      return saved.body.rewards[0].id as string;
    },
    points: (url) => asCustomer(url, ''),
    redeem: (url, rewardId) => asCustomer(url, `/redeem?reward=${encodeURIComponent(rewardId)}`, 'POST'),
    pay: (code) => useCode(bc, STORE, code, storeCart(bc, STORE, CUSTOMER_ID, PAID_SUBTOTAL)),
    async deliverPaid(url, nth, code) {
      const id = Number(orderId(nth));
      bc.stores.get(STORE)!.orders.set(id, {
        ...bcOrder(id, 11, { email, couponDiscount: '1.0000', coupons: [{ code, discount: 1 }] }),
        customer_id: Number(CUSTOMER_ID),
      });
      // The store's hook calls whichever process the test delivers to (each listens on a port of its own).
      const scope = 'store/order/statusUpdated';
      for (const hook of bc.stores.get(STORE)!.hooks.filter((each) => each.scope === scope)) {
        const at = new URL(hook.destination);
        hook.destination = new URL(`${at.pathname}${at.search}`, url).toString();
      }
      const statuses = await bc.deliver(scope, id, { store: STORE, signWith: CLIENT_SECRET });
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) expect(status).toBe(200);
    },
    orderId,
    liveCodes: () =>
      codes().filter(
        (code) => codeRefusal(bc, STORE, code, storeCart(bc, STORE, CUSTOMER_ID, PAID_SUBTOTAL)) === undefined,
      ),
    inStore: codes,
    strays: () =>
      promotionsOf(bc, STORE)
        .filter((promotion) => promotion.codes.length === 0)
        .map((promotion) => promotion.name),
    // Each code is a promotion of its own, then its code: before the promotion is asked for, or once the code is made.
    holdMake: (phase) =>
      phase === 'before'
        ? hold((call) => call.method === 'POST' && /^\/v3\/promotions\/?$/.test(call.path), 'before')
        : hold((call) => call.method === 'POST' && CODES_PATH.test(call.path), 'after'),
    holdFirstPartMade: () => hold((call) => call.method === 'POST' && /^\/v3\/promotions\/?$/.test(call.path), 'after'),
    // Its code deleted first, then its promotion: held once the code is gone, its promotion still there.
    holdRemoval: () => hold((call) => call.method === 'DELETE' && CODES_PATH.test(call.path), 'after'),
    eraseShop: undefined,
    close: () => bc.close(),
  };
}

export async function wooKillStore({ email }: KillTestCustomer): Promise<KillTestStore> {
  const ADMIN_TOKEN = 'woo-kill-admin-token-0123456789abcdef';
  /** A page of the store: its own domain, where the widget the plugin prints asks from. */
  const STORE_PAGE = 'https://www.kill-woo.example';
  const front = await startHttpsFront();
  const woo = await startFakeWooCommerce();
  // Before the routes it holds.
  const hooks = withCallHooks(woo.site.router);
  withCoupons(woo);
  // Its zone offers Free shipping to a coupon: a free-shipping reward is refused on save otherwise (shipping-zones.ts).
  setFreeShipping(woo, { requires: 'coupon', minAmount: '0.00' });
  /** The next call that matches held before it runs, or after (its answer held). */
  const hold = (matches: (call: HeldCall) => boolean, phase: 'before' | 'after'): Held => {
    const held = holder();
    return hooks.holdNext(matches, phase, () => held.arrive(), held);
  };
  const COUPONS = /^\/wp-json\/wc\/v3\/coupons\/?$/;
  const COUPON = /^\/wp-json\/wc\/v3\/coupons\/\d+\/?$/;
  const STORE = woo.host;
  let pageKey = '';
  let plugin: PluginConnection | undefined;
  const customer = { id: Number(CUSTOMER_ID), email };
  /** What the widget on the store's page asks: with the token the plugin signed for her, from the store's origin. */
  const asCustomer = async (url: string, path: string, method = 'GET') =>
    json(
      await fetch(`${url}/woocommerce/storefront/points${path}`, {
        method,
        headers: {
          authorization: `Bearer ${identityToken(plugin!, customer)}`,
          origin: STORE_PAGE,
          accept: 'application/json',
        },
      }),
    );
  /** The merchant's page, signed in to their store (its session signed with the bridge's kept key). */
  const merchant = async (url: string, method: string, path: string, body?: unknown) => {
    const token = bridgeShopTokens([pageKey], Date.now, modulePagePurpose('woocommerce')).mint(STORE);
    return json(
      await fetch(`${url}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  };
  /** WooCommerce keeps a coupon's code in lower case; the bridge's codes are upper case (BRIDGE_CODE). */
  const published = () =>
    couponsOf(woo)
      .filter((each) => each.status === 'publish')
      .map((each) => each.code.toUpperCase());
  const checkout = { billingEmail: email, accountEmail: email };
  const orderId = (nth: number) => `880${nth}`;
  return {
    platform: 'woocommerce',
    shop: STORE,
    env: { PLATFORM: 'woocommerce', PUBLIC_URL: front.url, ADMIN_TOKEN },
    ledgerEnv: {},
    // The merchant's page is signed with a key the bridge keeps in its ledger: made here, taken by every process.
    async beforeStart(store) {
      pageKey = await keptPageKey(store, 'woocommerce-store-page');
    },
    async setUp(url, reward) {
      front.forwardTo(url);
      // The operator connects the store; WooCommerce posts its key to the bridge's https callback.
      const started = await fetch(`${url}/admin/api/stores/woocommerce/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ store: woo.url }),
      });
      expect(started.status).toBe(201);
      await answerConsent(((await started.json()) as { authorizeUrl: string }).authorizeUrl, 'approve');
      await eventually(() =>
        expect(woo.webhooks.filter((each) => each.status === 'active').map((each) => each.topic)).toContain(
          'order.updated',
        ),
      );
      // The merchant asks a code on their page, and pastes it in the plugin, which exchanges it for its key.
      const code = await merchant(url, 'POST', '/storefront/plugin-code');
      expect(code.status, JSON.stringify(code.body)).toBe(200);
      const exchanged = await exchangeCode(code.body.code as string, woo.url);
      expect(exchanged.status, exchanged.body).toBe(200);
      plugin = JSON.parse(exchanged.body) as PluginConnection;
      const on = await merchant(url, 'PUT', '/storefront', { on: true });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      const saved = await merchant(url, 'PUT', '/storefront/rewards', { rewards: [reward] });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      return saved.body.rewards[0].id as string;
    },
    points: (url) => asCustomer(url, ''),
    redeem: (url, rewardId) => asCustomer(url, `/redeem?reward=${encodeURIComponent(rewardId)}`, 'POST'),
    pay: (code) => useCoupon(woo, code, checkout),
    async deliverPaid(url, nth, code) {
      const id = Number(orderId(nth));
      // The order as WooCommerce keeps it: its coupon's code in lower case.
      woo.orders.set(
        id,
        JSON.parse(
          wooOrderJson({
            id,
            status: 'processing',
            email,
            total: '10.00',
            modified: new Date().toISOString().slice(0, 19),
            coupons: [{ code: code.toLowerCase(), discount: '1.00' }],
          }),
        ) as Record<string, unknown>,
      );
      // The store's webhooks call the bridge's https address: the front sends them to the process the test names.
      front.forwardTo(url);
      const statuses = await woo.deliver('order.updated', id);
      expect(statuses.length).toBeGreaterThan(0);
      for (const status of statuses) expect(status).toBe(200);
    },
    orderId,
    liveCodes: () => published().filter((code) => couponRefusal(woo, code, checkout) === undefined),
    inStore: published,
    // One coupon is its one code: nothing can be left without it.
    strays: () => [],
    holdMake: (phase) => hold((call) => call.method === 'POST' && COUPONS.test(call.path), phase),
    // Deleted for good (force=true): held once the coupon is gone.
    holdRemoval: () => hold((call) => call.method === 'DELETE' && COUPON.test(call.path), 'after'),
    eraseShop: undefined,
    async close() {
      await woo.close();
      await front.close();
    },
  };
}
