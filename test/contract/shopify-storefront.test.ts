// The storefront's Shopify side against the fake Shopify over HTTP (Admin GraphQL executed on Shopify's
// published 2026-10 schema): a signed-in customer's e-mail and phone read from the shop's customer record,
// 'not-allowed' while the install lacks read_customers, and whether each kind of install is ready (write_app_proxy
// for its app proxy first, then read_customers).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ShopifyAccess, sessionId, type SessionMode, type ShopifySession } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { forgetScopes } from '../../adapters/shopify/scopes.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import type { Storefront } from '../../src/core/platform-module.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { shopifyCustomerNode, startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const API_KEY = 'storefront-client-id';
const API_SECRET = 'storefront-client-secret';
const SHOP = 'storefront-store.myshopify.com';
const OWN = 'own-store.myshopify.com';
const app = shopifyApp({ apiKey: API_KEY, apiSecretKey: API_SECRET, scopes: ['read_orders'], apiVersion: '2026-10' });

let fake: FakeShopify;
let store: LowdbStore;
let apis: ShopifyAdminApis;
let storefront: Storefront;

beforeAll(async () => {
  fake = await startFakeShopify({ apiKey: API_KEY, apiSecret: API_SECRET });
});
afterAll(() => fake.close());

/** An install of that kind, with a token Shopify issued for it. */
async function installed(shop: string, mode: SessionMode, options: { legacyToken?: string } = {}) {
  const access = new ShopifyAccess({ store, app, ownShop: OWN, ...options });
  if (mode !== 'legacy') {
    const token = `token-${mode}-${shop}`;
    fake.registerToken(token, shop);
    await store.putRecord(raw<ShopifySession>('session'), sessionId(shop), {
      platform: 'shopify',
      shop,
      mode,
      accessToken: token,
      expiresAt: null,
      updatedAt: new Date().toISOString(),
    });
  } else fake.registerToken(options.legacyToken ?? '', shop);
  apis = new ShopifyAdminApis({ access, apiVersion: '2026-10', baseUrl: (name) => fake.adminUrl(name) });
  ({ storefront } = shopifyStorefront({
    apps: [app],
    allowed: new AllowedShops({ store, listed: [SHOP] }),
    access,
    apis,
  }));
  forgetScopes(apis.for(shop));
}

beforeEach(async () => {
  store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  fake.scopes = 'read_orders,write_app_proxy,read_customers';
  fake.protectedDataGranted = true;
  fake
    .shop(SHOP)
    .customers.set('7001', shopifyCustomerNode('7001', { email: 'ada@example.com', phone: '+14155550101' }));
  fake.shop(SHOP).customers.set('7002', shopifyCustomerNode('7002', { email: null, phone: null }));
  return () => store.close();
});

describe('the contact', () => {
  beforeEach(() => installed(SHOP, 'token_exchange'));

  it('is the customer record’s e-mail and phone', async () => {
    expect(await storefront.contact(SHOP, '7001')).toEqual({ email: 'ada@example.com', phone: '+14155550101' });
  });

  it('is nothing for a customer whose e-mail is not verified: anyone may register with an address not theirs', async () => {
    fake
      .shop(SHOP)
      .customers.set(
        '7003',
        shopifyCustomerNode('7003', { email: 'ada@example.com', phone: '+14155550101', verifiedEmail: false }),
      );
    expect(await storefront.contact(SHOP, '7003')).toBeUndefined();
  });

  it('is nothing for a customer the shop does not have, or one with neither', async () => {
    expect(await storefront.contact(SHOP, '9999')).toBeUndefined();
    expect(await storefront.contact(SHOP, '7002')).toBeUndefined();
  });

  it('is not allowed while the install lacks read_customers', async () => {
    fake.scopes = 'read_orders,write_app_proxy';
    expect(await storefront.contact(SHOP, '7001')).toBe('not-allowed');
  });

  it('is not allowed while Shopify has not approved the app’s use of e-mail and phone', async () => {
    fake.protectedDataGranted = false;
    expect(await storefront.contact(SHOP, '7001')).toBe('not-allowed');
  });
});

describe('readiness', () => {
  it('an install Shopify made is ready once the merchant approved read_customers, which App Bridge asks for', async () => {
    await installed(SHOP, 'token_exchange');
    fake.scopes = 'read_orders,write_app_proxy';
    const before = await storefront.readiness(SHOP);
    expect(before).toMatchObject({ ready: false, missingScopes: ['read_customers'] });
    expect(before.ready === false && before.why).toMatch(/approve access to customers when you turn the storefront on/);
    // The merchant approves and turns it on at once, before Shopify's app/scopes_update: Shopify is asked again.
    fake.scopes = 'read_orders,write_app_proxy,read_customers';
    expect(await storefront.readiness(SHOP)).toEqual({ ready: true });
  });

  it('an OAuth install needs SHOPIFY_SCOPES and the merchant’s approval again', async () => {
    await installed(SHOP, 'oauth_expiring');
    fake.scopes = 'read_orders,write_app_proxy';
    const ready = await storefront.readiness(SHOP);
    expect(ready.ready === false && ready.why).toMatch(/SHOPIFY_SCOPES.*approve/);
  });

  it('the own store by client credentials needs the app’s configured scopes', async () => {
    await installed(OWN, 'client_credentials');
    fake.scopes = 'read_orders,write_app_proxy';
    const ready = await storefront.readiness!(OWN);
    expect(ready.ready === false && ready.why).toMatch(/app’s scopes in the Dev Dashboard/);
    fake.scopes = 'read_orders,write_app_proxy,read_customers';
    forgetScopes(apis.for(OWN));
    expect(await storefront.readiness!(OWN)).toEqual({ ready: true });
  });

  it('the own store by client credentials without the app proxy’s scope is told to name it in the app’s version', async () => {
    await installed(OWN, 'client_credentials');
    // No merchant installs it again and no dialog asks: the token carries what the released version names.
    fake.scopes = 'read_orders,read_customers';
    const ready = await storefront.readiness!(OWN);
    expect(ready).toMatchObject({ ready: false, missingScopes: ['write_app_proxy'] });
    expect(ready.ready === false && ready.why).toMatch(/add write_app_proxy to the app’s scopes in the Dev Dashboard/);
    expect(ready.ready === false && ready.why).not.toMatch(/SHOPIFY_SCOPES|installs the app on your store again/);
  });

  it('an install made before the app proxy’s scope was asked for is refused first, with how Shopify grants it', async () => {
    await installed(SHOP, 'token_exchange');
    // It approved read_customers; write_app_proxy, without which Shopify routes nothing to the bridge, it never had.
    fake.scopes = 'read_orders,read_customers';
    const ready = await storefront.readiness(SHOP);
    expect(ready).toMatchObject({ ready: false, missingScopes: ['write_app_proxy'] });
    expect(ready.ready === false && ready.why).toMatch(/app proxy.*write_app_proxy/);
    expect(ready.ready === false && ready.why).toMatch(
      /operator releases the app’s version that asks for write_app_proxy.*you open the app and approve/,
    );
    fake.scopes = 'read_orders,write_app_proxy,read_customers';
    expect(await storefront.readiness(SHOP)).toEqual({ ready: true });
  });

  it('an OAuth install without the app proxy’s scope needs it in SHOPIFY_SCOPES and the app installed again', async () => {
    await installed(SHOP, 'oauth');
    fake.scopes = 'read_orders';
    const ready = await storefront.readiness(SHOP);
    expect(ready).toMatchObject({ ready: false, missingScopes: ['write_app_proxy'] });
    expect(ready.ready === false && ready.why).toMatch(
      /adds write_app_proxy to SHOPIFY_SCOPES and installs the app on your store again.*approve/,
    );
  });

  it('a legacy admin token is refused with the reason, whatever its scopes', async () => {
    await installed(OWN, 'legacy', { legacyToken: 'shpat_legacy' });
    const ready = await storefront.readiness!(OWN);
    expect(ready).toMatchObject({ ready: false, missingScopes: ['read_customers'] });
    expect(ready.ready === false && ready.why).toMatch(/SHOPIFY_ADMIN_TOKEN.*cannot have an app proxy/);
  });
});
