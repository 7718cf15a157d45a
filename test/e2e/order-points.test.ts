// Points as numbers in the admin API and status: each order's points come from its activity and the points its
// account declares for it (LOYALTY_ACTIVITY_POINTS); an activity with none declared says so, with the fix; points
// given by hand are asked for in points.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const TOKEN = 'points-admin-token-0123456789abcdef';
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startTestBridge({
    ADMIN_TOKEN: TOKEN,
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    RECONCILE_INTERVAL_MINUTES: '0',
    // The sandbox gives 100 points for activity 1 and 250 for activity 7; only activity 1's are declared.
    SANDBOX_ACTIVITIES: '1=100,7=250',
    LOYALTY_ACTIVITY_POINTS: '1=100',
    LOYALTY_EARN_ACTIVITIES: '0=1,200=7',
  });
});
afterAll(async () => {
  await bridge?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
async function shopifyOrder(id: string, topic: string, totalPrice: string) {
  const cancelledAt = topic === 'orders/cancelled' ? new Date().toISOString() : null;
  const body = shopifyOrderJson({ id, totalPrice, cancelledAt });
  await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body }),
    body,
  });
  await bridge.engine.drain();
}
const listed = async (orderId: string) =>
  ((await call('GET', '/orders?limit=50')).body.orders as Array<Record<string, any>>).find(
    (order) => order.orderId === orderId,
  );

describe('points as numbers', () => {
  it('shows an order’s points beside today’s fields, in the list and the order', async () => {
    await shopifyOrder('5500000000001', 'orders/paid', '50.00');
    const row = await listed('5500000000001');
    expect(row).toMatchObject({ upstream: 'earned', state: 'earned' });
    expect(row?.points).toEqual({
      earned: 100,
      state: 'pending',
      redeemed: null,
      activityId: '1',
      text: 'earned 100 points, pending',
    });
    const order = (await call('GET', `/orders/${encodeURIComponent(row?.key)}`)).body.order;
    expect(order.upstream.points).toBe('earned');
    expect(order.points).toMatchObject({ earned: 100, state: 'pending' });
  });

  it('shows a cancelled order’s points as cancelled', async () => {
    await shopifyOrder('5500000000002', 'orders/paid', '60.00');
    await shopifyOrder('5500000000002', 'orders/cancelled', '60.00');
    expect((await listed('5500000000002'))?.points).toMatchObject({
      earned: 100,
      state: 'cancelled',
      text: '100 points cancelled',
    });
  });

  it('says so, with the fix, when an order’s activity has no declared points', async () => {
    await shopifyOrder('5500000000003', 'orders/paid', '300.00');
    const points = (await listed('5500000000003'))?.points;
    expect(points).toMatchObject({ earned: null, state: 'pending', activityId: '7' });
    expect(points.undeclared).toBe(
      "declare how many points activity 7 gives, in the account's settings (LOYALTY_ACTIVITY_POINTS)",
    );
    expect(points.text).toBe(
      "earned points, pending (how many is not known: declare how many points activity 7 gives, in the account's settings (LOYALTY_ACTIVITY_POINTS))",
    );
  });

  it('lists the newest orders with their points in the status, and `status` prints them', async () => {
    const recent = (await call('GET', '/status')).body.recentOrders as Array<Record<string, any>>;
    expect(recent.find((order) => order.orderName === '#0001')?.points).toMatchObject({ earned: 100 });
    const result = await runCli(['status', '--url', bridge.http.localUrl, '--token', TOKEN], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ {2}#0001\s+earned 100 points, pending\n/);
    expect(result.stdout).toMatch(/ {2}#0002\s+100 points cancelled\n/);
    expect(result.stdout).toMatch(/ {2}#0003\s+earned points, pending \(how many is not known: declare/);
  });

  it('gives points by hand in points, and names the amounts that can be given when none gives that many', async () => {
    const customer = { name: 'Hedy', email: 'hedy.points@example.com', mobile: '+12125550100', reason: 'goodwill' };
    const given = await call('POST', '/adjustments/earn', { ...customer, points: 100 });
    expect(given.status).toBe(201);
    expect(given.body.adjustment).toMatchObject({ kind: 'earn', activityId: '1', points: 100, outcome: 'success' });
    const refused = await call('POST', '/adjustments/earn', { ...customer, points: 250 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      "points: no activity gives exactly 250 points; the amounts that can be given are 100 (declare more in the account's settings (LOYALTY_ACTIVITY_POINTS))",
    );
    // Callers from before points name the activity; both at once is refused.
    expect((await call('POST', '/adjustments/earn', { ...customer, activityId: '7' })).status).toBe(201);
    const both = await call('POST', '/adjustments/earn', { ...customer, activityId: '1', points: 100 });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatch(/^points: give the points to give/);
  });
});
