// The whole flow with recognisable secrets and customer data: no secret in
// any log line, metric or admin API answer (SECRETS_KEY included); customers' e-mail and phone only
// in the ledger and where the merchant asks for them; the ledger readable by
// its owner only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';

const SECRETS = {
  LOYALTY_API_KEY: 'LEAKCHECK-loyalty-api-key-7f3a',
  ADMIN_TOKEN: 'LEAKCHECK-admin-token-9c2e1d',
  SHOPIFY_API_SECRET: 'LEAKCHECK-shopify-secret-41b8',
  SHOPIFY_API_SECRET_PREVIOUS: 'LEAKCHECK-shopify-previous-secret-77c1',
  SHOPIFY_ADMIN_TOKEN: 'LEAKCHECK-shopify-admin-token-11aa',
  WOOCOMMERCE_WEBHOOK_SECRET: 'LEAKCHECK-woo-webhook-secret-5d5d',
  WOOCOMMERCE_CONSUMER_KEY: 'LEAKCHECK-ck-2222',
  WOOCOMMERCE_CONSUMER_SECRET: 'LEAKCHECK-cs-3333',
  BIGCOMMERCE_CLIENT_SECRET: 'LEAKCHECK-bc-client-secret-4444',
  BIGCOMMERCE_ACCESS_TOKEN: 'LEAKCHECK-bc-token-5555',
  BIGCOMMERCE_WEBHOOK_SECRET: 'LEAKCHECK-bc-header-secret-0123456789',
  SANDBOX_API_KEY: 'LEAKCHECK-sandbox-key-6666',
  // Not recognisable as text, but found the same way: the key that seals the ledger's secrets.
  SECRETS_KEY: Buffer.from('LEAKCHECK-secrets-key-32-bytes!!').toString('base64'),
};
const CUSTOMER = { email: 'leakcheck.customer@example.com', phone: '+1 212 555 0199', e164: '+12125550199' };

let sandbox: TestSandbox;
let bridge: RunningCli;
let url = '';
const dataDir = tempDataDir();

beforeAll(async () => {
  sandbox = await startTestSandbox({ apiKey: SECRETS.LOYALTY_API_KEY, rateLimit: 100_000 });
  bridge = await startCli(['start'], {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'trace',
    LOYALTY_BASE_URL: sandbox.url,
    LOYALTY_BRAND_ID: 'test-brand',
    RECONCILE_INTERVAL_MINUTES: '0',
    SHOPIFY_SHOPS: SHOP,
    ...SECRETS,
  });
  url = bridge.url;
});
afterAll(async () => {
  await bridge.stop('SIGTERM');
  await sandbox.close();
});

it('never shows a secret, and shows customer contact details only in the ledger and where the merchant asks', async () => {
  const admin = { authorization: `Bearer ${SECRETS.ADMIN_TOKEN}` };
  const shopifyBody = shopifyOrderJson({ id: '9090000000001', email: CUSTOMER.email, phone: CUSTOMER.phone });
  await fetch(`${url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body: shopifyBody, secret: SECRETS.SHOPIFY_API_SECRET }),
    body: shopifyBody,
  });
  const wooBody = wooOrderJson({ id: 9091, status: 'completed', email: CUSTOMER.email });
  await fetch(`${url}/webhooks/woocommerce`, {
    method: 'POST',
    headers: wooHeaders('order.updated', wooBody, { secret: SECRETS.WOOCOMMERCE_WEBHOOK_SECRET }),
    body: wooBody,
  });
  // A forged one, a refused call (dead letter) and a wrong admin token, for the error paths.
  await fetch(`${url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body: shopifyBody, secret: 'wrong' }),
    body: shopifyBody,
  });
  sandbox.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
  const second = shopifyOrderJson({ id: '9090000000002', email: CUSTOMER.email });
  await fetch(`${url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body: second, secret: SECRETS.SHOPIFY_API_SECRET }),
    body: second,
  });
  await fetch(`${url}/admin/api/status`, { headers: { authorization: 'Bearer not-the-token' } });
  await eventually(() => expect(sandbox.store.snapshot().earnings.length).toBeGreaterThanOrEqual(2));
  await eventually(async () =>
    expect(
      ((await (await fetch(`${url}/admin/api/dead-letters`, { headers: admin })).json()) as { deadLetters: unknown[] })
        .deadLetters,
    ).toHaveLength(1),
  );

  const operational = [
    await (await fetch(`${url}/metrics`)).text(),
    await (await fetch(`${url}/readyz`)).text(),
    await (await fetch(`${url}/admin/api/status`, { headers: admin })).text(),
    await (await fetch(`${url}/admin/api/dead-letters`, { headers: admin })).text(),
    await (await fetch(`${url}/admin/api/reconciliation`, { headers: admin })).text(),
    await (await fetch(`${url}/admin/api/connections`, { headers: admin })).text(),
    await (await fetch(`${url}/admin/api/shopify/shops`, { headers: admin })).text(),
    await (await fetch(`${url}/admin/api/stores`, { headers: admin })).text(),
    await (await fetch(`${url}/admin/api/privacy`, { headers: admin })).text(),
    await (
      await fetch(`${url}/admin/api/resync`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: '{"platform":"shopify","since":"2026-11-01"}',
      })
    ).text(),
  ];
  // Where the merchant asked: the order list and one order.
  const asked = [
    await (await fetch(`${url}/admin/api/orders`, { headers: admin })).text(),
    await (
      await fetch(
        `${url}/admin/api/orders/${encodeURIComponent('shopify:lb-test-store.myshopify.com:9090000000001')}`,
        { headers: admin },
      )
    ).text(),
  ];
  // The bridge logs from its own process: a last request, with an id of the test's, ends what the logs must cover;
  // once its line is in, so are those of the requests before it (before, a 200 ms sleep, which a loaded machine
  // could outlast with lines still on their way, checked for nothing).
  const last = `last-request-${process.pid}`;
  await fetch(`${url}/admin/api/status`, { headers: { ...admin, 'x-request-id': last } });
  await eventually(() => expect(bridge.output()).toContain(last));
  const logs = bridge.output();
  expect(logs.split('\n').length).toBeGreaterThan(10);

  for (const [name, secret] of Object.entries(SECRETS)) {
    for (const [where, text] of [
      ['logs', logs],
      ...operational.map((text, i) => [`operational answer ${i}`, text]),
      ...asked.map((text, i) => [`admin answer ${i}`, text]),
    ]) {
      expect(text?.includes(secret), `${name} in ${where}`).toBe(false);
    }
  }
  for (const [where, text] of [['logs', logs], ...operational.map((text, i) => [`operational answer ${i}`, text])]) {
    for (const detail of [CUSTOMER.email, CUSTOMER.e164, '555 0199', '5550199'])
      expect(text?.includes(detail), `${detail} in ${where}`).toBe(false);
  }
  expect(asked[1]).toContain(CUSTOMER.email);
  expect(asked[1]).toContain(CUSTOMER.e164);

  // The ledger holds them, readable by the owner only.
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(dataDir);
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  expect(files.length).toBeGreaterThan(3);
  for (const file of files) expect(statSync(file).mode & 0o077, `${file} is readable by others`).toBe(0);
  expect(files.some((file) => readFileSync(file, 'utf8').includes(CUSTOMER.email))).toBe(true);
  // The key that seals its secrets is nowhere in it.
  expect(files.some((file) => readFileSync(file, 'utf8').includes(SECRETS.SECRETS_KEY))).toBe(false);
});
