// A reward's discount codes on Shopify against the fake Shopify over HTTP (Admin GraphQL executed on Shopify's
// published 2026-10 schema): a code is made for one customer, found again by its text, used once at most, only
// by that customer and only until it expires, counted by Shopify, and removed; an install without
// write_discounts is told so in words, and a retried make gets the code the first one made.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SHOPIFY_SESSION, ShopifyAccess, sessionId, type SessionMode } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { DISCOUNT_CODE_CREATE, DISCOUNT_CODE_OWNER } from '../../adapters/shopify/discount-codes.ts';
import { forgetScopes } from '../../adapters/shopify/scopes.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import type { DiscountCodeRequest, StoreCodes } from '../../src/core/platform-module.ts';
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
let codes: StoreCodes;
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
  await store.putRecord(SHOPIFY_SESSION, sessionId(shop), {
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
    benefit: { kind: 'amount_off' as const, amount: '5.00' },
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
  fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
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
    fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
    expect(await codes.readiness!(SHOP)).toEqual({ ready: true });
  });

  it('an OAuth install needs SHOPIFY_SCOPES and the merchant’s approval again', async () => {
    await installed(SHOP, 'oauth_expiring');
    fake.scopes = 'read_orders';
    const ready = await codes.readiness!(SHOP);
    expect(ready.ready === false && ready.why).toMatch(/write_discounts to SHOPIFY_SCOPES.*approve/);
  });
});

// Shopify's documented rules the fake holds the bridge to (test/helpers/fake-shopify-discounts.ts names each page).
const RAW_TOKEN = 'codes-raw-token';
/** One Admin API call as it goes over the wire: the answer's data and errors, unread by the bridge's client. */
async function raw(query: string, variables: Record<string, unknown> = {}) {
  fake.registerToken(RAW_TOKEN, SHOP);
  const response = await fetch(`${fake.adminUrl(SHOP)}/admin/api/2026-10/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': RAW_TOKEN },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

/** The bridge's make, as it sends it, with the fields a test changes. */
const makeRaw = async (input: Record<string, unknown>) => {
  const asked = request();
  const answer = await raw(DISCOUNT_CODE_CREATE, {
    basicCodeDiscount: {
      code: asked.code,
      title: asked.title,
      startsAt: asked.startsAt,
      endsAt: asked.expiresAt,
      context: { customers: { add: ['gid://shopify/Customer/7001'] } },
      customerGets: { value: { discountAmount: { amount: '5.00', appliesOnEachItem: false } }, items: { all: true } },
      ...input,
    },
  });
  return answer.data.discountCodeBasicCreate as { codeDiscountNode: { id: string } | null; userErrors: unknown[] };
};

describe("Shopify's checkout", () => {
  it('applies a code only to a cart of at least its minimum subtotal', async () => {
    const { asked } = await makeOne({ minimumOrder: '20.00' });
    expect(fake.useCode(SHOP, asked.code, '7001', { subtotal: '19.99' })).toBe(false);
    expect(fake.useCode(SHOP, asked.code, '7001', { subtotal: '20.00' })).toBe(true);
  });

  it("applies the bridge's code beside no other order discount: it does not combine with them", async () => {
    const { asked } = await makeOne();
    const theirs = `MERCHANT-${made}`;
    const own = await makeRaw({ code: theirs, context: { all: 'ALL' }, combinesWith: { orderDiscounts: true } });
    expect(own.userErrors).toEqual([]);
    expect(fake.useCode(SHOP, asked.code, '7001', { ...PAID, orderDiscounts: [theirs] })).toBe(false);
    expect(fake.useCode(SHOP, theirs, '7001', { ...PAID, orderDiscounts: [asked.code] })).toBe(false);
    expect(fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
  });

  it('applies two order discounts together when both combine with order discounts', async () => {
    const [first, second] = [`BOTH-A-${made}`, `BOTH-B-${made}`];
    for (const code of [first, second])
      expect(
        (await makeRaw({ code, context: { all: 'ALL' }, combinesWith: { orderDiscounts: true } })).userErrors,
      ).toEqual([]);
    expect(fake.useCode(SHOP, first, '7001', { ...PAID, orderDiscounts: [second] })).toBe(true);
  });
});

describe("a code's uses (asyncUsageCount, counted asynchronously)", () => {
  it('land once time has passed, in the worst case', async () => {
    const { asked, id } = await makeOne({ expiresAt: new Date(Date.now() + 24 * HOUR).toISOString() });
    expect(fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
    expect(await codes.uses(SHOP, id)).toBe(0);
    fake.clock.offsetMs = 1_000;
    fake.clock.offsetMs = 0;
    expect(await codes.uses(SHOP, id)).toBe(1);
  });

  it('land at once, in the best case', async () => {
    fake.shop(SHOP).usesCountedAtOnce = true;
    try {
      const { asked, id } = await makeOne();
      expect(fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
      expect(await codes.uses(SHOP, id)).toBe(1);
    } finally {
      fake.shop(SHOP).usesCountedAtOnce = false;
    }
  });
});

describe('without read_customers', () => {
  it("a code's customers are refused, as Shopify refuses every Customer field, while the rest of it reads", async () => {
    const { asked, id } = await makeOne();
    fake.scopes = 'read_orders,write_discounts';
    const owner = await raw(DISCOUNT_CODE_OWNER, { code: asked.code });
    expect(owner.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      ['Access denied for customers field. Required access: `read_customers` access scope.', 'ACCESS_DENIED'],
    ]);
    // customers is [Customer!]! inside a non-null context: graphql-js nulls up to the nearest nullable field.
    expect(JSON.stringify(owner.data)).not.toContain('Customer/7001');
    const byId = await raw(
      'query Who($id: ID!) { discountNode(id: $id) { discount { ... on DiscountCodeBasic { context { ... on DiscountCustomers { customers { id } } } } } } }',
      { id },
    );
    expect(byId.errors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
    expect(JSON.stringify(byId.data)).not.toContain('Customer/7001');
    // What needs no customer field still reads: the bridge's find and count.
    expect(await codes.find(SHOP, asked.code)).toBe(id);
    expect(await codes.uses(SHOP, id)).toBe(0);
  });
});

describe('discountCodeBasicCreate refuses', () => {
  it("a customer the shop does not have, with Shopify's userError shape", async () => {
    const made = await makeRaw({ context: { customers: { add: ['gid://shopify/Customer/999999'] } } });
    expect(made).toEqual({
      codeDiscountNode: null,
      userErrors: [
        {
          field: ['basicCodeDiscount', 'context', 'customers', 'add', '0'],
          code: 'INVALID',
          message: 'Customer gid://shopify/Customer/999999 does not exist',
        },
      ],
    });
    await expect(codes.make(request({ customerId: '999999' }))).rejects.toThrow(/Shopify refused the discount code/);
  });

  it('an end equal to its start: the end must come after it', async () => {
    const startsAt = new Date(Date.now() - HOUR).toISOString();
    const made = await makeRaw({ startsAt, endsAt: startsAt });
    expect(made.userErrors).toEqual([
      { field: ['basicCodeDiscount', 'endsAt'], code: 'END_DATE_BEFORE_START_DATE', message: expect.any(String) },
    ]);
  });

  it('a code over 255 characters, and takes one of 255', async () => {
    const long = await makeRaw({ code: `LB-${'X'.repeat(253)}` });
    expect(long.userErrors).toEqual([
      { field: ['basicCodeDiscount', 'code'], code: 'TOO_LONG', message: expect.stringMatching(/too long/) },
    ]);
    expect((await makeRaw({ code: `LB-${'Y'.repeat(252)}` })).userErrors).toEqual([]);
  });
});
