// A reward's discount codes on Shopify against the fake Shopify over HTTP (Admin GraphQL executed on Shopify's
// published 2026-10 schema): a code is made for one customer, found again by its text, used once at most, only
// by that customer and only until it expires, counted by Shopify, and removed; an install without
// write_discounts is told so in words, and a retried make gets the code the first one made.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ShopifyAccess, sessionId, type SessionMode, type ShopifySession } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { forgetScopes } from '../../adapters/shopify/scopes.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import type { DiscountCodeRequest, StorefrontParts } from '../../src/core/platform-module.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { shopifyCustomerNode, startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';

const API_KEY = 'codes-client-id';
const API_SECRET = 'codes-client-secret';
const SHOP = 'codes-store.myshopify.com';
/** The cart the code pays for at checkout: the delivered order's subtotal (shopifyOrderJson's), above every reward's minimum here. */
const PAID = { subtotal: '120.00' };
const OWN = 'own-codes-store.myshopify.com';
const app = shopifyApp({ apiKey: API_KEY, apiSecretKey: API_SECRET, scopes: ['read_orders'], apiVersion: '2026-10' });
const HOUR = 3_600_000;

let fake: FakeShopify;
let store: LowdbStore;
let apis: ShopifyAdminApis;
let codes: NonNullable<StorefrontParts['codes']>;
let made = 0;

beforeAll(async () => {
  fake = await startFakeShopify({ apiKey: API_KEY, apiSecret: API_SECRET });
  // The shop's customers: Shopify makes a code only for customers it has (context.customers.add).
  for (const id of ['7001', '7002']) fake.shop(SHOP).customers.set(id, shopifyCustomerNode(id, { email: null }));
});
afterAll(() => fake.close());

/** An install of that kind, with a token Shopify issued for it. */
async function installed(shop: string, mode: SessionMode) {
  const access = new ShopifyAccess({ store, app, ownShop: OWN });
  const token = `token-${mode}-${shop}-${made}`;
  fake.registerToken(token, shop);
  await store.putRecord<ShopifySession>('session', sessionId(shop), {
    platform: 'shopify',
    shop,
    mode,
    accessToken: token,
    expiresAt: null,
    updatedAt: new Date().toISOString(),
  });
  apis = new ShopifyAdminApis({ access, apiVersion: '2026-10', baseUrl: (name) => fake.adminUrl(name) });
  const storefront = shopifyStorefront({
    apps: [app],
    allowed: new AllowedShops({ store, listed: [SHOP] }),
    access,
    apis,
  });
  codes = storefront.codes!;
  forgetScopes(apis.for(shop));
}

/** A reward's code for customer 7001, new text each time, valid from an hour ago for a day. */
function request(overrides: Partial<DiscountCodeRequest> = {}): DiscountCodeRequest {
  made++;
  return {
    shop: SHOP,
    customerId: '7001',
    code: `LB-TEST-${made}-7K2QX9`,
    title: 'Loyalty reward: 500 points',
    amountOff: '5.00',
    minimumOrder: null,
    startsAt: new Date(Date.now() - HOUR).toISOString(),
    expiresAt: new Date(Date.now() + 24 * HOUR).toISOString(),
    combinesWithOthers: true,
    ...overrides,
  };
}

async function makeOne(overrides: Partial<DiscountCodeRequest> = {}) {
  const asked = request(overrides);
  const result = await codes.make(asked);
  if (result.kind !== 'made') throw new Error(`not made: ${result.why}`);
  return { asked, id: result.platformId };
}

beforeEach(async () => {
  store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  fake.scopes = 'read_orders,read_customers,write_discounts';
  await installed(SHOP, 'token_exchange');
  return () => store.close();
});

describe('a code', () => {
  it('is made as the reward says: that customer, once, the amount off the order, never with another order discount', async () => {
    const { asked } = await makeOne({ minimumOrder: '20.00', combinesWithOthers: false });
    expect(fake.discounts(SHOP).find((discount) => discount.code === asked.code)).toMatchObject({
      title: asked.title,
      customerIds: ['gid://shopify/Customer/7001'],
      amount: '5.00',
      minimumSubtotal: '20.00',
      usageLimit: 1,
      appliesOncePerCustomer: true,
      endsAt: asked.expiresAt,
      combinesWith: { orderDiscounts: false, productDiscounts: false, shippingDiscounts: false },
    });
  });

  it('is found by its text, counted some time after an order pays with it, refused a second time, and gone once removed', async () => {
    const { asked, id } = await makeOne();
    expect(await codes.find(SHOP, asked.code)).toBe(id);
    expect(await codes.uses(SHOP, id)).toBe(0);
    expect(fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
    // Shopify's count is asynchronous: the checkout refuses a second use at once, but the count shows it later.
    expect(fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(false);
    expect(await codes.uses(SHOP, id)).toBe(0);
    fake.countUses();
    expect(await codes.uses(SHOP, id)).toBe(1);
    await codes.remove(SHOP, id);
    expect(await codes.uses(SHOP, id)).toBeUndefined();
    expect(await codes.find(SHOP, asked.code)).toBeUndefined();
  });

  it('pays for no other customer’s order', async () => {
    const { asked, id } = await makeOne();
    expect(fake.useCode(SHOP, asked.code, '7002', PAID)).toBe(false);
    expect(await codes.uses(SHOP, id)).toBe(0);
  });

  it('pays for nothing once it expired', async () => {
    const { asked } = await makeOne({ expiresAt: new Date(Date.now() + HOUR).toISOString() });
    fake.clock.offsetMs = 2 * HOUR;
    try {
      expect(fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(false);
    } finally {
      fake.clock.offsetMs = 0;
    }
  });

  it('is not found when the store has no code of that text', async () => {
    expect(await codes.find(SHOP, 'LB-NEVER-MADE')).toBeUndefined();
  });

  it('removed twice is removed: one already gone counts', async () => {
    const { id } = await makeOne();
    await codes.remove(SHOP, id);
    await expect(codes.remove(SHOP, id)).resolves.toBeUndefined();
  });
});

describe('a retried make', () => {
  it('of the same code gets the id the first make got', async () => {
    const asked = request();
    const first = await codes.make(asked);
    expect(first.kind).toBe('made');
    expect(await codes.make(asked)).toEqual(first);
    expect(fake.discounts(SHOP).filter((discount) => discount.code === asked.code)).toHaveLength(1);
  });

  it('of a code that is someone else’s is refused with Shopify’s words', async () => {
    const { asked } = await makeOne();
    await expect(codes.make({ ...asked, customerId: '7002' })).rejects.toThrow(/Code must be unique/);
  });
});

describe('without write_discounts', () => {
  it('a make is not allowed, in words the merchant can act on', async () => {
    fake.scopes = 'read_orders,read_customers';
    const before = fake.discounts(SHOP).length;
    const result = await codes.make(request());
    expect(result).toMatchObject({ kind: 'not-allowed' });
    expect(result.kind === 'not-allowed' && result.why).toMatch(
      /may not make discount codes.*approve access to discounts/,
    );
    expect(fake.discounts(SHOP)).toHaveLength(before);
  });

  it('a make on an OAuth install says the operator adds the scope to SHOPIFY_SCOPES', async () => {
    await installed(SHOP, 'oauth');
    fake.scopes = 'read_orders';
    const result = await codes.make(request());
    expect(result.kind === 'not-allowed' && result.why).toMatch(/write_discounts to SHOPIFY_SCOPES/);
  });
});

describe('readiness', () => {
  it('an install Shopify made lacks write_discounts until the merchant approves it, which App Bridge asks for', async () => {
    fake.scopes = 'read_orders,read_customers';
    const before = await codes.readiness!(SHOP);
    expect(before).toMatchObject({ ready: false, missingScopes: ['write_discounts'] });
    expect(before.ready === false && before.why).toMatch(/approve access to discounts when you turn rewards on/);
    // Approved a moment ago, before Shopify's app/scopes_update: Shopify is asked again.
    fake.scopes = 'read_orders,read_customers,write_discounts';
    expect(await codes.readiness!(SHOP)).toEqual({ ready: true });
  });

  it('an OAuth install needs SHOPIFY_SCOPES and the merchant’s approval again', async () => {
    await installed(SHOP, 'oauth_expiring');
    fake.scopes = 'read_orders';
    const ready = await codes.readiness!(SHOP);
    expect(ready.ready === false && ready.why).toMatch(/write_discounts to SHOPIFY_SCOPES.*approve/);
  });
});
