// No bare code in `status` or an order's answer (issue 49), on a bridge with skipped, pending, approved, cancelled,
// void, held and dead-lettered orders, and one from a shop on no account: every line of `status` says its code in
// words (a code only as a detail in brackets after them), an order's detail carries words for each code, and
// `?reason=` takes every reason an order can show.
import { describe, expect, it } from 'vitest';
import { REASON_CODES } from '../../src/core/order-words.ts';
import { bareCodes } from '../helpers/bare-codes.ts';
import { offlineBridge } from '../helpers/offline-bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson, type OrderOptions } from '../helpers/shopify.ts';

const TOKEN = 'no-bare-codes-admin-token-0123456789';
/** A shop that installed the app and is linked to no account: its orders wait. */
const STRANGER = 'codes-stranger.myshopify.com';

async function deliver(topic: string, order: OrderOptions, shop = SHOP) {
  const body = shopifyOrderJson(order);
  const response = await fetch(`${world.bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop }),
    body,
  });
  expect(response.status).toBe(200);
  await world.bridge.engine.drain();
}

const admin = async (path: string) => {
  const response = await fetch(`${world.bridge.http.localUrl}/admin/api${path}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

const dataDir = tempDataDir();
const world = offlineBridge(
  {
    DATA_DIR: dataDir,
    ADMIN_TOKEN: TOKEN,
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    SHOPIFY_OPEN_INSTALLS: 'true',
    POINTS_PENDING_DAYS: '0',
    RECONCILE_INTERVAL_MINUTES: '0',
  },
  async (bridge) => {
    const cancelledAt = new Date().toISOString();
    await deliver('orders/paid', { id: '7720000000001', email: null, customer: null }); // skipped
    await deliver('orders/paid', { id: '7720000000002' }); // pending
    await deliver('orders/paid', { id: '7720000000003' });
    await deliver('orders/fulfilled', { id: '7720000000003', fulfillmentStatus: 'fulfilled' }); // approved
    await deliver('orders/paid', { id: '7720000000004' });
    await deliver('orders/cancelled', { id: '7720000000004', cancelledAt, financialStatus: 'refunded' }); // cancelled
    await deliver('orders/cancelled', { id: '7720000000005', cancelledAt, financialStatus: 'voided' }); // void
    bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
    await deliver('orders/paid', { id: '7720000000006' }); // held, a dead letter
    await deliver('orders/paid', { id: '7720000000007' }, STRANGER); // waits for an account
  },
);

/** The lines that show a code bare: a code in brackets at the end of a line follows its words; anywhere else it is bare. */
const bareLines = (lines: string[]) =>
  lines
    .map((line) => ({ line, codes: bareCodes(line.replace(/ \(([a-z_]+)\)$/, '')) }))
    .filter(({ codes }) => codes.length > 0);

describe('no bare code in status or the admin API', () => {
  it('status says every code in words, a code only as a detail after them', async () => {
    const result = await runCli(['status', '--url', world.bridge.http.localUrl, '--token', TOKEN], {});
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n').filter(Boolean);
    expect(bareLines(lines)).toEqual([]);
    for (const state of ['skipped', 'earned', 'approved', 'cancelled', 'void'])
      expect(lines.some((line) => line.endsWith(` (${state})`) && line.length > state.length + 20)).toBe(true);
    // The order that waits for an account, in words, among the newest orders and the reasons.
    expect(result.stdout).toMatch(
      /#0007 +no points · This store earns on no loyalty account yet: the order waits, and earns once one is set up\./,
    );
    expect(result.stdout).toMatch(/needing your eye, by reason\n(.*\n)*? +1 {2}This store earns on no loyalty account/);
  });

  it('status on the ledger itself says every code in words too', async () => {
    const result = await runCli(['status'], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/orders by state\n/);
    expect(bareLines(result.stdout.split('\n').filter(Boolean))).toEqual([]);
  });

  it('an order’s detail carries words for what the service holds, what the store said and each call', async () => {
    const { body: held } = await admin(`/orders/${encodeURIComponent(`shopify:${SHOP}:7720000000006`)}`);
    expect(held.order.serviceWords).toEqual({
      points: 'no points given yet',
      conversion: 'no referral to reward',
      redemption: 'no points spent on it',
    });
    expect(held.order.factWords).toEqual(['placed', 'paid']);
    expect(held.order.calls.at(-1)).toMatchObject({
      operation: 'earn',
      outcome: 'failed',
      words: { call: 'giving its points', outcome: 'refused; held until it is sent again' },
    });
    const { body: cancelled } = await admin(`/orders/${encodeURIComponent(`shopify:${SHOP}:7720000000004`)}`);
    expect(cancelled.order.serviceWords.points).toBe('points given, then taken back');
    const { body: letters } = await admin('/dead-letters');
    expect(letters.deadLetters[0]).toMatchObject({ operation: 'earn', callWords: 'giving its points' });
    const { body: activity } = await admin('/activity?minutes=10');
    expect(activity.words.calls).toMatchObject({ success: 'done', invalid_source: expect.stringMatching(/^refused/) });
  });

  it('?reason= takes every reason an order can show, and names them all when it refuses one', async () => {
    const waiting = await admin('/orders?reason=no_account');
    expect(waiting.status).toBe(200);
    expect(waiting.body.orders.map((order: { orderName: string }) => order.orderName)).toEqual(['#0007']);
    expect(waiting.body.orders[0].words.says).toMatch(/^Not earning yet: .* This store earns on no loyalty account/);
    expect(await admin('/orders?reason=account_removed')).toMatchObject({ status: 200, body: { orders: [] } });
    const missing = await admin('/orders?reason=missing_email');
    expect(missing.body.orders.map((order: { orderName: string }) => order.orderName)).toEqual(['#0001']);
    const refused = await admin('/orders?reason=no_such_reason');
    expect(refused.status).toBe(400);
    for (const reason of REASON_CODES) expect(JSON.stringify(refused.body)).toContain(reason);
  });
});
