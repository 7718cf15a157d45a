// Points redeemed on an order that is then cancelled, against the running
// bridge: the order is listed on the admin API (and so the dashboard) and in
// `status`, and one click gives the points back by a manual earn recorded
// with the operator and the reason; two clicks at once give them back once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson, type OrderOptions } from '../helpers/shopify.ts';

const TOKEN = 'redeemed-admin-token-0123456789';
const CUSTOMER = 'redeemer@example.com';
let bridge: RunningBridge;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function deliver(topic: string, options: OrderOptions) {
  const body = shopifyOrderJson({
    email: CUSTOMER,
    customer: { id: 91, first_name: 'Rae', last_name: 'Deemer', email: CUSTOMER, phone: '+12125550177' },
    ...options,
  });
  const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body }),
    body,
  });
  expect(response.status).toBe(200);
  await bridge.engine.drain();
}

const givenBack = () =>
  bridge.sandbox?.store
    .snapshot()
    .earnings.filter((earning) => earning.activityId === '21' && earning.email === CUSTOMER) ?? [];

beforeAll(async () => {
  bridge = await startTestBridge({
    ADMIN_TOKEN: TOKEN,
    ADMIN_TOKEN_LABEL: 'ops-desk',
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    RECONCILE_INTERVAL_MINUTES: '0',
    // Activity 21 gives 50 points back: the value of the loyalty codes this shop hands out.
    SANDBOX_ACTIVITIES: '1=100,21=50',
    REDEEM_RETURN_ACTIVITIES: '50=21',
  });
  // 100 points earned and approved, then 50 of them redeemed on an order that is cancelled.
  await deliver('orders/fulfilled', { id: '7350000000001', fulfillmentStatus: 'fulfilled' });
  await deliver('orders/paid', {
    id: '7350000000002',
    discountCodes: [{ code: 'LOYALTY-RAE', amount: '0.50', type: 'fixed_amount' }],
  });
  expect(
    bridge.sandbox?.store.snapshot().redemptions.filter((redemption) => redemption.email === CUSTOMER),
  ).toMatchObject([{ points: 50 }]);
  await deliver('orders/cancelled', {
    id: '7350000000002',
    cancelledAt: '2026-11-20T12:00:00-05:00',
    discountCodes: [{ code: 'LOYALTY-RAE', amount: '0.50', type: 'fixed_amount' }],
  });
});
afterAll(() => bridge.stop());

describe('points redeemed on a cancelled order', () => {
  const key = `shopify:lb-test-store.myshopify.com:7350000000002`;

  it('is listed with the points and the activity that gives them back, counted in status', async () => {
    const listed = await call('GET', '/redeemed-on-cancelled');
    expect(listed.body.orders).toEqual([expect.objectContaining({ key, points: 50, activityId: '21', blocked: null })]);
    expect((await call('GET', '/orders?reason=points_redeemed_on_cancelled_order')).body).toMatchObject({
      total: 1,
      orders: [{ key, state: 'cancelled', reason: 'points_redeemed_on_cancelled_order' }],
    });
    expect((await call('GET', '/status')).body.orders.attention).toEqual({ points_redeemed_on_cancelled_order: 1 });
    const status = await runCli(['status', '--url', bridge.http.localUrl, '--token', TOKEN], {});
    expect(status.stdout).toMatch(
      /needing your eye, by reason\n\s+1 {2}The customer spent points on this order, .* \(points_redeemed_on_cancelled_order\)\n/,
    );
    expect(status.stdout).toContain('!! 1 cancelled order had points redeemed on them');
  });

  it('is given back once by one click, though two come at once, recorded with the operator and the reason', async () => {
    const clicks = await Promise.all([
      call('POST', `/orders/${encodeURIComponent(key)}/give-back-redeemed`, { reason: 'order cancelled by the shop' }),
      call('POST', `/orders/${encodeURIComponent(key)}/give-back-redeemed`, { reason: 'order cancelled by the shop' }),
    ]);
    expect(clicks.map((click) => click.status).sort()).toEqual([201, 409]);
    expect(givenBack()).toMatchObject([
      { points: 50, description: '50 points redeemed on cancelled order #0002, given back' },
    ]);
    const { adjustments } = (await call('GET', '/adjustments')).body;
    expect(adjustments).toEqual([
      expect.objectContaining({
        kind: 'earn',
        by: 'ops-desk',
        reason: 'order cancelled by the shop',
        activityId: '21',
        outcome: 'success',
      }),
    ]);

    const again = await call('POST', `/orders/${encodeURIComponent(key)}/give-back-redeemed`, {});
    expect(again).toMatchObject({ status: 409 });
    expect(givenBack()).toHaveLength(1);
    expect((await call('GET', '/redeemed-on-cancelled')).body.orders).toEqual([]);
    await bridge.engine.drain();
    expect((await call('GET', '/status')).body.orders.attention).toEqual({});
  });

  it('refuses an order with nothing to give back, and says why', async () => {
    const response = await call(
      'POST',
      `/orders/${encodeURIComponent('shopify:lb-test-store.myshopify.com:7350000000001')}/give-back-redeemed`,
      {},
    );
    expect(response).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining('no redeemed points waiting to be given back') },
    });
  });
});
