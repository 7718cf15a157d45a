// A merchant sends a test order from their own page (issue 34's first run):
// a made-up paid order that earns on the shop's own account under its rules,
// then, on the merchant's word, is cancelled and its points with it. Only on
// an account of the shop's own; only the shop's own test orders, never a real
// order, are cancelled here; at most 10 an hour; and a shop's erasure takes
// their records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTestOrderId } from '../../src/core/test-order.ts';
import { eventually } from '../helpers/engine.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import {
  APP_SECRET,
  asShop,
  deliverPaidOrders,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP_A = 'tries-a.myshopify.com';
const SHOP_B = 'tries-b.myshopify.com';
const SHOP_C = 'tries-c.myshopify.com';
const KEY_A = { apiKey: 'tries-a-loyalty-key-0123456789', brandId: 'tries-a-brand' };
const KEY_B = { apiKey: 'tries-b-loyalty-key-0123456789', brandId: 'tries-b-brand' };

describe('test orders from a shop’s own page', () => {
  let fake: FakeShopify;
  let serviceA: TestSandbox;
  let serviceB: TestSandbox;
  let running: ShopifyAppBridge;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    for (const shop of [SHOP_A, SHOP_B, SHOP_C]) fake.install(shop);
    serviceA = await startTestSandbox({ ...KEY_A, rateLimit: 100_000 });
    serviceB = await startTestSandbox({ ...KEY_B, rateLimit: 100_000 });
    running = await startShopifyAppBridge(fake, {
      SHOPIFY_SHOPS: SHOP_C,
      SHOPIFY_OPEN_INSTALLS: 'true',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
    });
    // A and B earn on accounts of their own; C, listed by the operator, on the operator's.
    for (const [shop, service, key] of [
      [SHOP_A, serviceA, KEY_A],
      [SHOP_B, serviceB, KEY_B],
    ] as const)
      expect((await asShop(running, shop).post('/account', { name: shop, baseUrl: service.url, ...key })).status).toBe(
        201,
      );
  }, 30_000);
  afterAll(async () => {
    await running?.stop();
    await Promise.all([serviceA, serviceB].map((service) => service?.close()));
    await stopFakeShopifyForApp(fake);
  });

  const earningsOf = (service: TestSandbox, orderId: string) =>
    service.store.snapshot().earnings.filter((each) => each.orderId === orderId);

  it('earns on the shop’s own account, as a made-up customer, and is cancelled on the merchant’s word', async () => {
    const sent = await asShop(running, SHOP_A).post('/test-orders');
    expect(sent.status).toBe(202);
    const { orderId, key } = sent.body.testOrder as { orderId: string; key: string };
    // No platform's order id (64-bit at most) can be the same.
    expect(isTestOrderId(orderId)).toBe(true);
    expect(BigInt(orderId) > 2n ** 63n).toBe(true);
    await eventually(() => {
      expect(earningsOf(serviceA, orderId)).toEqual([
        expect.objectContaining({ points: 100, status: 'pending', email: expect.stringMatching(/@example\.com$/) }),
      ]);
    }, 15_000);
    await eventually(async () => {
      expect((await asShop(running, SHOP_A).get(`/orders/${encodeURIComponent(key)}`)).body.order.upstream.points).toBe(
        'earned',
      );
    }, 15_000);
    expect(earningsOf(serviceB, orderId)).toEqual([]);

    expect((await asShop(running, SHOP_A).post(`/test-orders/${orderId}/cancel`)).status).toBe(202);
    await eventually(() => {
      expect(earningsOf(serviceA, orderId)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    }, 15_000);
    // A second cancel changes nothing.
    expect((await asShop(running, SHOP_A).post(`/test-orders/${orderId}/cancel`)).body.cancelled).toBe('already');
  }, 40_000);

  it('cancels only the shop’s own test orders: never another shop’s, nor a real order', async () => {
    const theirs = (await asShop(running, SHOP_A).post('/test-orders')).body.testOrder.orderId as string;
    expect((await asShop(running, SHOP_B).post(`/test-orders/${theirs}/cancel`)).status).toBe(404);
    await deliverPaidOrders(running, [[SHOP_B, '5100000000001']]);
    await eventually(() => expect(earningsOf(serviceB, '5100000000001')).toHaveLength(1), 15_000);
    expect((await asShop(running, SHOP_B).post('/test-orders/5100000000001/cancel')).status).toBe(404);
    await running.bridge.engine.drain();
    expect(earningsOf(serviceB, '5100000000001')).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(earningsOf(serviceA, theirs)).not.toEqual([expect.objectContaining({ status: 'cancelled' })]);
  }, 30_000);

  it('is refused on the operator’s account: a made-up order would earn in the operator’s program', async () => {
    const refused = await asShop(running, SHOP_C).post('/test-orders');
    expect(refused.status).toBe(403);
    expect(await running.bridge.engine.store.listRecords(raw('test-order'))).not.toContainEqual(
      expect.objectContaining({ value: expect.objectContaining({ shop: SHOP_C }) }),
    );
  });

  it('sends at most 10 an hour for a shop, and a shop’s erasure takes their records', async () => {
    const b = asShop(running, SHOP_B);
    for (let n = 1; n <= 10; n++) expect((await b.post('/test-orders')).status, `test order ${n}`).toBe(202);
    const over = await b.post('/test-orders');
    expect(over.status).toBe(429);
    expect(over.body.errors[0]).toMatch(/at most 10 test orders an hour/);
    await running.bridge.engine.drain();
    const ofB = async () =>
      (await running.bridge.engine.store.listRecords(raw<{ shop: string }>('test-order'))).filter(
        ({ value }) => value.shop === SHOP_B,
      );
    expect(await ofB()).toHaveLength(10);
    await running.bridge.engine.privacy.eraseShop('shopify', SHOP_B, 'admin');
    expect(await ofB()).toEqual([]);
  }, 60_000);

  it('is paid in the shop’s own currency, as its orders name it, and cancelled in it', async () => {
    const body = shopifyOrderJson({ id: '5100000000077', currency: 'EUR', totalPrice: '80.00' });
    const delivered = await fetch(`${running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP_A, secret: APP_SECRET }),
      body,
    });
    expect(delivered.status).toBe(200);
    await running.bridge.engine.drain();
    const sent = await asShop(running, SHOP_A).post('/test-orders');
    expect(sent.status).toBe(202);
    const { orderId, key } = sent.body.testOrder as { orderId: string; key: string };
    const total = async () =>
      (await asShop(running, SHOP_A).get(`/orders/${encodeURIComponent(key)}`)).body.order.total;
    await eventually(async () => expect(await total()).toEqual({ amount: '50.00', currency: 'EUR' }));
    expect((await asShop(running, SHOP_A).post(`/test-orders/${orderId}/cancel`)).status).toBe(202);
    await running.bridge.engine.drain();
    expect(await total()).toEqual({ amount: '50.00', currency: 'EUR' });
  }, 30_000);
});
