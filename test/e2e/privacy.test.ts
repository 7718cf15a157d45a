// A customer's right to be forgotten and to see what is held, end to end:
// Shopify's compliance webhooks signed and posted to the running bridge, the
// admin API and the CLI for every platform. Erasure is checked where it
// matters: no file under DATA_DIR, backups included, holds the customer's
// e-mail or phone afterwards, while their orders keep their points state.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { SHOP, shopifyHeaders, shopifyOrderJson, SHOPIFY_SECRET } from '../helpers/shopify.ts';
import { wooHeaders, wooOrderJson, WOO_ENV, WOO_SITE } from '../helpers/woocommerce.ts';

const TOKEN = 'privacy-admin-token-0123456789abcdef';
const ADA = { email: 'Ada.Erase@example.com', phone: '+44 7911 123456', digits: '7911123456' };
const BOB = { email: 'bob.keeps@example.com' };
const dataDir = tempDataDir();
const env = {
  DATA_DIR: dataDir,
  ADMIN_TOKEN: TOKEN,
  SHOPIFY_API_SECRET: SHOPIFY_SECRET,
  ...WOO_ENV,
  RECONCILE_INTERVAL_MINUTES: '0',
};
let bridge: RunningBridge;

/** Every file under DATA_DIR that mentions the text (case-insensitive). */
function filesHolding(text: string, dir = dataDir): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesHolding(text, path));
    else if (readFileSync(path, 'utf8').toLowerCase().includes(text.toLowerCase()))
      found.push(path.slice(dataDir.length + 1));
  }
  return found;
}

const shopify = async (topic: string, body: string, webhookId: string) => {
  const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, webhookId }),
    body,
  });
  return response.status;
};
const admin = async <T>(path: string, init: RequestInit = {}) => {
  const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as T };
};
const adaOrder = (id: string) =>
  shopifyOrderJson({
    id,
    email: ADA.email,
    customerPhone: ADA.phone,
    customer: {
      id: 9001,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: ADA.email,
      phone: ADA.phone,
      default_address: { country_code: 'GB', phone: ADA.phone },
    },
  });
const order = (key: string) => bridge.engine.store.getOrder(key);

beforeAll(async () => {
  bridge = await startTestBridge(env);
  // Ada's orders: one earned, one the service refuses (a dead letter), one delivery the bridge cannot read (kept whole as a dead letter).
  expect(await shopify('orders/paid', adaOrder('8100000000001'), 'ada-1')).toBe(200);
  await bridge.engine.drain();
  bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
  expect(await shopify('orders/paid', adaOrder('8100000000002'), 'ada-2')).toBe(200);
  await bridge.engine.drain();
  expect(
    await shopify(
      'orders/paid',
      `{"id": "8100000000003-x", "order_number": 3, "financial_status": "paid", "email": "${ADA.email}", "phone": "${ADA.phone}"}`,
      'ada-3',
    ),
  ).toBe(200);
  // Bob, who asks for nothing.
  expect(await shopify('orders/paid', shopifyOrderJson({ id: '8100000000009', email: BOB.email }), 'bob-1')).toBe(200);
  await bridge.engine.drain();
  // A restart takes a backup of the ledger: Ada's data is in it too.
  await bridge.stop();
  bridge = await startTestBridge(env);
  await eventually(() => expect(filesHolding(ADA.email).some((path) => path.startsWith('backup'))).toBe(true));
}, 60_000);
afterAll(async () => {
  await bridge.stop();
});

describe('Shopify’s compliance webhooks', () => {
  it('answer 401 when unsigned, and change nothing', async () => {
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      customer: { id: 9001, email: ADA.email, phone: ADA.phone },
      orders_to_redact: [],
    });
    const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'customers/redact', body, secret: 'not-the-app-secret' }),
      body,
    });
    expect(response.status).toBe(401);
    await bridge.engine.drain();
    expect((await order(`shopify:${SHOP}:8100000000001`))?.snapshot.customer.email).toBe(ADA.email);
  });

  it('customers/data_request is recorded and shown, and the export gives what the bridge holds about the customer', async () => {
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      orders_requested: [8100000000001],
      customer: { id: 9001, email: ADA.email, phone: ADA.phone },
      data_request: { id: 4242 },
    });
    expect(await shopify('customers/data_request', body, 'data-request-1')).toBe(200);
    await bridge.engine.drain();
    const { body: privacy } = await admin<{ dataRequests: Array<{ platform: string; shop: string }> }>('/privacy');
    expect(privacy.dataRequests).toEqual([expect.objectContaining({ platform: 'shopify', shop: SHOP })]);
    const { body: exported } = await admin<{ orders: OrderRecord[] }>(
      `/customers/export?email=${encodeURIComponent(ADA.email.toLowerCase())}`,
    );
    expect(exported.orders.map((each) => each.orderId).sort()).toEqual(['8100000000001', '8100000000002']);
    expect(JSON.stringify(exported)).not.toContain(BOB.email);
  });

  it('customers/redact erases the customer’s personal data from every file of that shop, backups included, and keeps the points state', async () => {
    const before = await order(`shopify:${SHOP}:8100000000001`);
    const body = JSON.stringify({
      shop_id: 1,
      shop_domain: SHOP,
      customer: { id: 9001, email: ADA.email, phone: '07911 123456' },
      orders_to_redact: [8100000000001, 8100000000002, 8100000000003],
    });
    expect(await shopify('customers/redact', body, 'redact-1')).toBe(200);
    await bridge.engine.drain();

    const after = await order(`shopify:${SHOP}:8100000000001`);
    expect(after?.snapshot.customer).toMatchObject({ email: null, mobile: null });
    expect(after?.upstream.points).toBe(before?.upstream.points);
    expect(after?.calls.map((call) => call.operation)).toEqual(before?.calls.map((call) => call.operation));
    expect(filesHolding(ADA.email)).toEqual([]);
    expect(filesHolding(ADA.digits)).toEqual([]);
    expect((await order(`shopify:${SHOP}:8100000000009`))?.snapshot.customer.email).toBe(BOB.email);
  });
});

describe('every platform, through the admin API and the CLI', () => {
  it('customer erase removes her from a WooCommerce store too: no file under DATA_DIR, backups included, holds her e-mail or phone', async () => {
    const woo = wooOrderJson({ id: 8101, status: 'processing', email: ADA.email });
    expect(
      (
        await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, {
          method: 'POST',
          headers: wooHeaders('order.created', woo),
          body: woo,
        })
      ).status,
    ).toBe(200);
    await bridge.engine.drain();
    await bridge.stop();
    bridge = await startTestBridge(env);
    await eventually(() => expect(filesHolding(ADA.email).some((path) => path.startsWith('backup'))).toBe(true));
    const result = await runCli(
      ['customer', 'erase', '--email', ADA.email, '--url', bridge.http.localUrl, '--token', TOKEN],
      {},
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/erased: \d+ orders/);
    expect(result.stdout).toMatch(/loyalty service keeps its own copy/);
    await bridge.engine.drain();
    expect(filesHolding(ADA.email)).toEqual([]);
    expect(filesHolding(ADA.digits)).toEqual([]);
    expect(filesHolding(BOB.email).length).toBeGreaterThan(0);
  });

  it('customer export after the erasure finds nothing that names her', async () => {
    const result = await runCli(
      ['customer', 'export', '--email', ADA.email, '--url', bridge.http.localUrl, '--token', TOKEN],
      {},
    );
    expect(result.code).toBe(0);
    expect(result.stdout.toLowerCase()).not.toContain(ADA.email.toLowerCase());
  });

  it('shop/redact erases everything of the shop, and nothing of another', async () => {
    expect(await shopify('shop/redact', JSON.stringify({ shop_id: 1, shop_domain: SHOP }), 'shop-redact-1')).toBe(200);
    await bridge.engine.drain();
    expect(await order(`shopify:${SHOP}:8100000000009`)).toBeUndefined();
    expect(filesHolding(BOB.email)).toEqual([]);
    expect(await order(`woocommerce:${new URL(WOO_SITE).host}:8101`)).toBeDefined();
    // Nothing names the shop but the record of its erasure: no dedupe key of its bodies, no record of it.
    const naming: string[] = [];
    for await (const item of bridge.engine.store.exportAll())
      if (JSON.stringify(item).includes(SHOP)) naming.push(item.type === 'record' ? `record ${item.kind}` : item.type);
    expect(naming).toEqual(['record privacy-log']);
  });
});
