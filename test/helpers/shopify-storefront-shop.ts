// A Shopify shop whose customers see points: a trial account on the bridge's sandbox, a paid order of customer
// 7001 (shopifyOrderJson's) earned on it, and the storefront turned on with the scope it needs. The security
// tests of the storefront's routes each start from one.
import { expect } from 'vitest';
import type { FakeShopify } from './fake-shopify.ts';
import { eventually } from './engine.ts';
import { asShop, deliverPaidOrders, type ShopifyAppBridge } from './shopify-app-bridge.ts';

/** What the shop's sandbox account gave, in all: each test's control for "her points are there". */
export const sandboxEarned = (running: ShopifyAppBridge, brandId: string): number =>
  (
    running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)?.store.snapshot().earnings ??
    []
  ).reduce((total, each) => total + each.points, 0);

/** The shop's trial account's brand id, once its order earned and its storefront is on. */
export async function storefrontShopWithPoints(
  running: ShopifyAppBridge,
  fake: FakeShopify,
  shop: string,
  order: string,
): Promise<string> {
  const made = await asShop(running, shop).post('/account', { sandbox: true });
  expect(made.status).toBe(201);
  const brandId = made.body.account.brandId as string;
  await deliverPaidOrders(running, [[shop, order]]);
  await eventually(() => expect(sandboxEarned(running, brandId)).toBeGreaterThan(0), 15_000);
  fake.scopes = 'read_orders,write_app_proxy,read_customers';
  expect((await asShop(running, shop).put('/storefront', { on: true })).status).toBe(200);
  return brandId;
}
