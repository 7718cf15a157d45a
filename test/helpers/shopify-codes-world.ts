// The world of the Shopify discount code contracts (test/contract/shopify-discount-*.test.ts): the fake Shopify over
// HTTP (Admin GraphQL executed on Shopify's published 2026-10 schema) with customers 7001 and 7002, a new ledger for
// each test with an install of the shop on it, and the storefront's codes on that install (the test file hands in
// adapters/shopify/storefront.ts's shopifyStorefront, which it tests). Called at the top of a test file: it
// registers that file's hooks.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SHOPIFY_SESSION, ShopifyAccess, sessionId, type SessionMode } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { forgetScopes } from '../../adapters/shopify/scopes.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import type { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import type { DiscountCodeRequest, StoreCodes } from '../../src/core/platform-module.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from './engine.ts';
import { shopifyCustomerNode, startFakeShopify, type FakeShopify } from './fake-shopify.ts';

const API_KEY = 'codes-client-id';
const API_SECRET = 'codes-client-secret';
export const SHOP = 'codes-store.myshopify.com';
const OWN = 'own-codes-store.myshopify.com';
/** The cart the code pays for at checkout: the delivered order's subtotal (shopifyOrderJson's), above every reward's minimum here. */
export const PAID = { subtotal: '120.00' };
export const HOUR = 3_600_000;
/** Every scope the codes need: the storefront's, and write_discounts. */
export const ALL_SCOPES = 'read_orders,write_app_proxy,read_customers,write_discounts';
const app = shopifyApp({ apiKey: API_KEY, apiSecretKey: API_SECRET, scopes: ['read_orders'], apiVersion: '2026-10' });

/** One Admin API answer as it goes over the wire, unread by the bridge's client. */
export interface RawAnswer {
  data?: any;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

export interface CodesWorld {
  fake: FakeShopify;
  /** The storefront's codes on the install made last (each test starts with one). */
  codes: StoreCodes;
  /** An install of that kind, with a token Shopify issued for it. */
  installed(shop: string, mode: SessionMode): Promise<void>;
  /** A reward's code for customer 7001, new text each time, valid from an hour ago for a day. */
  request(overrides?: Partial<DiscountCodeRequest>): DiscountCodeRequest;
  /** A code made by the bridge: what it asked, and Shopify's id of it. */
  makeOne(overrides?: Partial<DiscountCodeRequest>): Promise<{ asked: DiscountCodeRequest; id: string }>;
  /** One Admin API call as it goes over the wire, with a token of its own. */
  raw(query: string, variables?: Record<string, unknown>): Promise<RawAnswer>;
  /** A number no code's text in this file has had yet. */
  next(): number;
}

/** Registers the hooks of the file that calls it, and hands back its world. */
export function shopifyCodesWorld(storefront: typeof shopifyStorefront): CodesWorld {
  let store: LowdbStore;
  let made = 0;
  const world: CodesWorld = {
    fake: undefined as unknown as FakeShopify,
    codes: undefined as unknown as StoreCodes,
    installed: async (shop, mode) => {
      const access = new ShopifyAccess({ store, app, ownShop: OWN });
      const token = `token-${mode}-${shop}-${made}`;
      world.fake.registerToken(token, shop);
      await store.putRecord(SHOPIFY_SESSION, sessionId(shop), {
        ...{ platform: 'shopify', shop, mode, accessToken: token },
        ...{ expiresAt: null, updatedAt: new Date().toISOString() },
      });
      const apis = new ShopifyAdminApis({
        access,
        apiVersion: '2026-10',
        baseUrl: (name) => world.fake.adminUrl(name),
      });
      const allowed = new AllowedShops({ store, listed: [SHOP] });
      world.codes = storefront({ apps: [app], allowed, access, apis }).codes;
      forgetScopes(apis.for(shop));
    },
    request: (overrides = {}) => ({
      ...{ shop: SHOP, customerId: '7001', code: `LB-TEST-${world.next()}-7K2QX9` },
      ...{ title: 'Loyalty reward: 500 points', benefit: { kind: 'amount_off' as const, amount: '5.00' } },
      minimumOrder: null,
      startsAt: new Date(Date.now() - HOUR).toISOString(),
      expiresAt: new Date(Date.now() + 24 * HOUR).toISOString(),
      combinesWithOthers: true,
      ...overrides,
    }),
    makeOne: async (overrides = {}) => {
      const asked = world.request(overrides);
      const result = await world.codes.make(asked);
      if (result.kind !== 'made') throw new Error(`not made: ${result.why}`);
      return { asked, id: result.platformId };
    },
    raw: (query, variables = {}) => rawCall(world.fake, query, variables),
    next: () => ++made,
  };
  beforeAll(async () => {
    world.fake = await startFakeShopify({ apiKey: API_KEY, apiSecret: API_SECRET });
    // The shop's customers: Shopify makes a code only for customers it has (context.customers.add).
    for (const id of ['7001', '7002'])
      world.fake.shop(SHOP).customers.set(id, shopifyCustomerNode(id, { email: null }));
  });
  afterAll(() => world.fake.close());
  beforeEach(async () => {
    store = new LowdbStore({ dataDir: tempDataDir() });
    await store.open();
    world.fake.scopes = ALL_SCOPES;
    await world.installed(SHOP, 'token_exchange');
    return () => store.close();
  });
  return world;
}

const RAW_TOKEN = 'codes-raw-token';

async function rawCall(fake: FakeShopify, query: string, variables: Record<string, unknown>): Promise<RawAnswer> {
  fake.registerToken(RAW_TOKEN, SHOP);
  const response = await fetch(`${fake.adminUrl(SHOP)}/admin/api/2026-10/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': RAW_TOKEN },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as RawAnswer;
}
