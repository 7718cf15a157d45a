// What an operator reads of orders and the limit (issue 49): `status` and the admin API give each skip, state
// and limit as a sentence with its fix, beside the codes. A paid order of a customer who gave no phone is skipped;
// one who gave it earns, pending until the order is fulfilled.
import { describe, expect, it } from 'vitest';
import { offlineBridge } from '../helpers/offline-bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const TOKEN = 'order-words-admin-token-0123456789';

/** A paid order whose customer gave no phone anywhere. */
const withoutPhone = (id: string) => {
  const order = JSON.parse(shopifyOrderJson({ id })) as { billing_address: { phone: string | null } };
  order.billing_address.phone = null;
  return JSON.stringify(order);
};

async function deliver(body: string) {
  const response = await fetch(`${world.bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body }),
    body,
  });
  expect(response.status).toBe(200);
}

const admin = async (path: string) =>
  (
    await fetch(`${world.bridge.http.localUrl}/admin/api${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json();

const world = offlineBridge(
  { ADMIN_TOKEN: TOKEN, SHOPIFY_API_SECRET: SHOPIFY_SECRET, RECONCILE_INTERVAL_MINUTES: '0' },
  async (bridge) => {
    await deliver(withoutPhone('7710000000001'));
    await deliver(shopifyOrderJson({ id: '7710000000002' }));
    await bridge.engine.drain();
  },
);

describe('orders and the limit in words', () => {
  it('status gives the skip as a sentence with its fix, the setting and the code as details', async () => {
    const result = await runCli(['status', '--url', world.bridge.http.localUrl, '--token', TOKEN], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /orders by state\n {6}1 {2}Points earned, pending until they are approved\. \(earned\)\n/,
    );
    expect(result.stdout).toContain(
      'skipped, by reason\n      1  This customer gave no phone number, and your program requires one, so the order earns no points. Fix: Customers need a phone, in the account’s program settings. [REQUIRE_MOBILE] (missing_mobile)\n',
    );
  });

  it('status says why the calls a minute are below the service’s', async () => {
    const result = await runCli(['status', '--url', world.bridge.http.localUrl, '--token', TOKEN], {});
    expect(result.stdout).toMatch(
      /account default \(default\): .*, \d+ calls? in the last minute, of (\d+): \1 of the 100000 calls a minute the service allows; the rest is kept spare so that late calls never exceed it\n/,
    );
  });

  it('the admin API answers words beside the codes: the skip, pending until fulfilled, the limit', async () => {
    const { orders } = (await admin('/orders')) as {
      orders: Array<{ orderId: string; state: string; reason?: string; words: { says: string; fix?: string } }>;
    };
    const byId = Object.fromEntries(orders.map((order) => [order.orderId, order]));
    expect(byId['7710000000001']).toMatchObject({
      state: 'skipped',
      reason: 'missing_mobile',
      words: {
        says: 'This customer gave no phone number, and your program requires one, so the order earns no points.',
        fix: 'Customers need a phone, in the account’s program settings',
        setting: 'REQUIRE_MOBILE',
      },
    });
    expect(byId['7710000000002']).toMatchObject({
      state: 'earned',
      words: { says: 'Points earned, pending until the order is fulfilled.' },
    });
    const status = (await admin('/status')) as {
      reasonWords: Record<string, { says: string }>;
      rateLimit: { words: string };
    };
    expect(status.reasonWords.missing_mobile?.says).toContain('This customer gave no phone number');
    expect(status.rateLimit.words).toMatch(
      /^\d+ calls? in the last minute, of (\d+): \1 of the \d+ calls a minute the service allows; the rest is kept spare so that late calls never exceed it\.$/,
    );
  });
});
