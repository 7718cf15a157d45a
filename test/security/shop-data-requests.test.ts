// A merchant answers their customers' data requests from their own page, with
// App Bridge session tokens: shop A lists, exports and closes its own
// requests; it never sees, exports or closes shop B's (404, as if absent),
// and its export holds nothing of shop B, even for the same customer. The
// privacy log records the export as the shop's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import {
  asShop,
  deliverPaidOrders,
  postDataRequest,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP_A = 'alpha-requests.myshopify.com';
const SHOP_B = 'beta-requests.myshopify.com';
const ADMIN_TOKEN = 'requests-admin-token-0123456789abcdef';
/** The customer of both shops (deliverPaidOrders' orders are hers). */
const EMAIL = 'grace@example.com';

let fake: FakeShopify;
let running: ShopifyAppBridge;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  for (const shop of [SHOP_A, SHOP_B]) fake.install(shop);
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: `${SHOP_A},${SHOP_B}`, ADMIN_TOKEN });
  await deliverPaidOrders(running, [
    [SHOP_A, '9300000000001'],
    [SHOP_B, '9300000000002'],
  ]);
  for (const [shop, requestId, orderId] of [
    [SHOP_A, 7001, 9300000000001],
    [SHOP_B, 7002, 9300000000002],
  ] as const) {
    await postDataRequest(running, shop, { id: requestId, email: EMAIL, orderIds: [orderId] });
  }
  await running.bridge.engine.drain();
  // A manual adjustment the operator made for the same customer, on another shop's account: never the shop's to read.
  await running.bridge.engine.store.putRecord(raw('adjustment'), 'adj-beta', {
    id: 'adj-beta',
    at: new Date().toISOString(),
    kind: 'earn',
    by: 'operator',
    reason: 'goodwill for a beta complaint',
    customer: { email: EMAIL, mobile: '+12125550142', name: 'Grace at beta' },
    account: 'account-of-beta',
    outcome: 'success',
    message: 'earned 500 points',
  });
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

async function call(bearer: string, method: string, path: string) {
  const response = await fetch(`${running.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}` },
  });
  return { status: response.status, body: (await response.json()) as any };
}
const as = (shop: string) => asShop(running, shop);
const requestsOf = async (shop: string): Promise<Array<{ id: string; shop: string; requestId?: string }>> =>
  (await as(shop).get('/privacy/data-requests')).body.dataRequests;

describe("a shop's own data requests", () => {
  it('lists only its own', async () => {
    expect((await requestsOf(SHOP_A)).map((request) => [request.shop, request.requestId])).toEqual([[SHOP_A, '7001']]);
    expect((await requestsOf(SHOP_B)).map((request) => [request.shop, request.requestId])).toEqual([[SHOP_B, '7002']]);
  });

  it("exports what the bridge holds of the customer in its shop, and nothing of the other shop's", async () => {
    const [own] = await requestsOf(SHOP_A);
    const exported = await as(SHOP_A).get(`/privacy/data-requests/${own!.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.orders.map((order: { key: string }) => order.key)).toEqual([
      `shopify:${SHOP_A}:9300000000001`,
    ]);
    expect(exported.text).toContain(EMAIL);
    expect(exported.text).not.toContain(SHOP_B);
    expect(exported.text).not.toContain('9300000000002');
    // The operator's manual adjustments are the account's, whatever contact the request names: none of them here
    // (only those the shop's own page made would be).
    expect(exported.body.adjustments).toEqual([]);
    expect(JSON.stringify(exported.body)).not.toContain('goodwill for a beta complaint');
    expect(exported.text).not.toContain('beta complaint');
  });

  it("cannot see, export or close another shop's request: 404, as if it did not exist", async () => {
    const [theirs] = await requestsOf(SHOP_B);
    expect(await as(SHOP_A).get(`/privacy/data-requests/${theirs!.id}/export`)).toMatchObject({ status: 404 });
    expect(await as(SHOP_A).delete(`/privacy/data-requests/${theirs!.id}`)).toMatchObject({ status: 404 });
    expect(await as(SHOP_A).delete('/privacy/data-requests/no-such-request')).toMatchObject({ status: 404 });
    expect(await requestsOf(SHOP_B)).toHaveLength(1);
  });

  it('cannot reach the operator’s privacy routes: erasure and the whole log stay with ADMIN_TOKEN', async () => {
    expect((await as(SHOP_A).get('/privacy')).status).toBe(403);
    expect((await as(SHOP_A).get(`/customers/export?email=${EMAIL}`)).status).toBe(403);
  });

  it('closes its own once answered, and the operator sees the export was the shop’s', async () => {
    const [own] = await requestsOf(SHOP_A);
    expect(await as(SHOP_A).delete(`/privacy/data-requests/${own!.id}`)).toMatchObject({
      status: 200,
      body: { closed: own!.id },
    });
    expect(await requestsOf(SHOP_A)).toEqual([]);
    const { body } = await call(ADMIN_TOKEN, 'GET', '/privacy');
    expect(body.dataRequests.map((request: { shop: string }) => request.shop)).toEqual([SHOP_B]);
    expect(body.log).toContainEqual(expect.objectContaining({ type: 'customer-export', via: 'shop', shop: SHOP_A }));
  });
});
