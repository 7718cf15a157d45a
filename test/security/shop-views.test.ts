// A merchant's page reads views built for its shop, never the records behind
// them: an order's own errors can name another store (an lp_orderid
// collision on a shared account), and the operator's check of an account
// names addresses and answers that are the operator's to read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/engine.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  postDataRequest,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { WOO_SECRET, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';

const SHOP_A = 'alpha-views.myshopify.com';
/** Store B: a WooCommerce store with webhooks made by hand under the operator's secret, on the operator's account. */
const SHOP_B = 'beta-secret-views.example';
const ORDER_ID = '5001';
const KEY_A = `shopify:${SHOP_A}:${ORDER_ID}`;
const ADMIN_TOKEN = 'shop-views-admin-token-0123456789';

let fake: FakeShopify;
let running: ShopifyAppBridge;
const store = () => running.bridge.engine.store;

async function post(platform: string, headers: Record<string, string>, body: string): Promise<void> {
  expect((await fetch(`${running.url}/webhooks/${platform}`, { method: 'POST', headers, body })).status).toBe(200);
  await running.bridge.engine.drain();
}

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  fake.install(SHOP_A);
  // Both stores on the operator's account, and no prefix to tell their order ids apart: B's order 5001 earns
  // first, and A's order 5001 is stopped rather than change B's customer's points.
  running = await startShopifyAppBridge(fake, {
    SHOPIFY_SHOPS: SHOP_A,
    ADMIN_TOKEN,
    WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
  });
  const wooBody = wooOrderJson({ id: Number(ORDER_ID), status: 'processing', email: 'bea@beta.example' });
  await post(
    'woocommerce',
    { ...wooHeaders('order.created', wooBody), 'x-wc-webhook-source': `https://${SHOP_B}/` },
    wooBody,
  );
  const body = shopifyOrderJson({ id: ORDER_ID, email: 'ann@alpha.example', phone: '+12125550142' });
  await post('shopify', shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP_A, secret: APP_SECRET }), body);
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe("a shop's view of its own order", () => {
  it("tells another store's order in an lp_orderid collision as 'an order'", async () => {
    const key = KEY_A;
    // The record keeps the whole story, for the operator.
    expect((await store().getOrder(key))?.work.lastError).toContain(SHOP_B);
    const answer = await asShop(running, SHOP_A).get(`/orders/${encodeURIComponent(key)}`);
    expect(answer.status).toBe(200);
    expect(answer.body.order.work.lastError).toMatch(/already used by an order from another store/);
    expect(answer.text).not.toContain(SHOP_B);
    expect(answer.text).not.toContain('bea@beta.example');
  });

  it('shows the order field by field: no account id, delivery keys or bookkeeping of the store', async () => {
    const key = KEY_A;
    const { order } = (await asShop(running, SHOP_A).get(`/orders/${encodeURIComponent(key)}`)).body;
    expect(Object.keys(order).sort()).toEqual(
      [
        'calls',
        'customer',
        'discountCodes',
        'erasedAt',
        'facts',
        'firstSeenAt',
        'key',
        'orderId',
        'orderName',
        'source',
        'target',
        'test',
        'total',
        'updatedAt',
        'upstream',
        'work',
        // The state and reason in words, with the fix (src/core/order-words.ts).
        'words',
        // Its points as a number (src/core/order-points-view.ts).
        'points',
        // What the store said and what the service holds, in words (withDetailWords).
        'factWords',
        'serviceWords',
        // The table's one line, and the state alone that heads the reason on the order's detail.
        'line',
        'label',
      ].sort(),
    );
    expect(order.upstream).not.toHaveProperty('account');
    expect(order.upstream).not.toHaveProperty('lpOrderId');
    expect(order).not.toHaveProperty('deliveries');
  });

  it('lists each order with its date, its total in its currency and its status in one line, field by field', async () => {
    const before = Date.now();
    // Another customer's: the export below is of ann's orders alone.
    const body = shopifyOrderJson({ id: '5002', email: 'cy@alpha.example', totalPrice: '54.00' });
    await post('shopify', shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP_A, secret: APP_SECRET }), body);
    const listed = (await asShop(running, SHOP_A).get('/orders?limit=20&page=1')).body.orders as Array<
      Record<string, unknown>
    >;
    const order = listed.find((each) => each.orderId === '5002')!;
    expect(Object.keys(order).sort()).toEqual(
      [
        'key',
        'platform',
        'shop',
        'orderId',
        'orderName',
        // No reason: it earns as usual (a reason is listed where there is one).
        'state',
        'upstream',
        'email',
        'mobile',
        'updatedAt',
        'firstSeenAt',
        'total',
        'words',
        'line',
        // The line's label alone, and its colour's meaning (order-words.ts, orderTone).
        'label',
        'tone',
        'points',
      ].sort(),
    );
    expect(order.total).toEqual({ amount: '54.00', currency: 'USD' });
    expect(Date.parse(order.firstSeenAt as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(order.line).toBe('Earned, pending');
    // The order stopped by the collision: one line, the sentence and its fix only in its words (the detail's).
    const stopped = listed.find((each) => each.key === KEY_A)!;
    expect(stopped.line).toMatch(/^[A-Z][^.]*: (see why|held)$/);
    expect((stopped.words as { says: string }).says.length).toBeGreaterThan((stopped.line as string).length);
  });

  it("exports a customer's data for a data request without another store's names", async () => {
    await postDataRequest(running, SHOP_A, { id: 4201, email: 'ann@alpha.example' });
    const shop = asShop(running, SHOP_A);
    let id = '';
    await eventually(async () => {
      const requests = (await shop.get('/privacy/data-requests')).body.dataRequests as Array<{ id: string }>;
      expect(requests).toHaveLength(1);
      id = requests[0]!.id;
    });
    const exported = await shop.get(`/privacy/data-requests/${encodeURIComponent(id)}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.orders.map((order: { orderId: string }) => order.orderId)).toEqual([ORDER_ID]);
    expect(exported.body.orders[0].customer.email).toBe('ann@alpha.example');
    expect(exported.text).not.toContain(SHOP_B);
  });
});

describe("a shop's Home on an account the operator made", () => {
  it("says the service could not be reached, without the operator's check of it", async () => {
    const admin = (method: string, path: string, body: unknown) =>
      fetch(`${running.url}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const made = await admin('POST', '/accounts', {
      name: 'Operator’s account',
      baseUrl: 'https://loyalty-operator-detail.invalid',
      apiKey: 'operator-key-0001',
      brandId: 'operator-brand',
    });
    expect(made.status).toBe(201);
    const account = ((await made.json()) as { account: { id: string; check: { status: string; detail?: string } } })
      .account;
    expect(account.check.status).toBe('unreachable');
    expect(account.check.detail).toBeTruthy();
    expect((await admin('PATCH', `/shops/shopify/${SHOP_A}`, { account: account.id })).status).toBe(200);

    const answer = await asShop(running, SHOP_A).get('/attention');
    const item = (answer.body.attention as Array<{ kind: string; why: string; fix: string }>).find(
      (each) => each.kind === 'service_unreachable',
    );
    expect(item?.fix).toMatch(/operator/);
    expect(item?.why).toMatch(/could not be reached/);
    expect(answer.text).not.toContain('loyalty-operator-detail');
    expect(answer.text).not.toContain(account.check.detail!);
  });
});
