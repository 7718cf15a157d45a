// Accounts changed on one bridge reach another bridge on the same PostgreSQL
// while both run (issue 32, item 6): a shop moved to another account, then
// that account's settings changed, each made on bridge A through its
// operator's interface; bridge B, whose worker alone runs, sends the shop's
// next orders where A said, within the registry's refresh (5 s), with no
// restart. Signed deliveries are posted to B (either bridge may fold them:
// A's intake runs, its worker does not); each sandbox shows what reached it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../src/accounts/account-records.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

const SHOP_B = 'moving-merchant.myshopify.com';
const B_CREDENTIALS = { apiKey: 'shared-merchant-b-key-0123', brandId: 'shared-merchant-b' };
/** A little over the registry's refresh (REFRESH_MS in registry.ts). */
const REFRESH_WAIT_MS = 5_500;

describe.skipIf(!postgresAvailable())('accounts changed on one bridge, on a shared PostgreSQL', () => {
  let database: TestDatabase;
  let defaultSandbox: TestSandbox;
  let sandboxB: TestSandbox;
  let bridgeA: RunningBridge;
  let bridgeB: RunningBridge;
  let accountB: AccountRecord;

  beforeAll(async () => {
    database = await freshDatabase();
    defaultSandbox = await startTestSandbox({ rateLimit: 100_000 });
    sandboxB = await startTestSandbox({ ...B_CREDENTIALS, rateLimit: 100_000, activities: { '1': 100, '7': 250 } });
    const env = {
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_SHOPS: SHOP,
      SHOPIFY_OPEN_INSTALLS: 'true',
      LOYALTY_BASE_URL: defaultSandbox.url,
      LOYALTY_API_KEY: 'test-sandbox-key',
      LOYALTY_BRAND_ID: 'test-brand',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      DATABASE_URL: database.url,
      RECONCILE_INTERVAL_MINUTES: '0',
    };
    bridgeA = await startTestBridge(env);
    bridgeB = await startTestBridge(env);
    // Only B works orders: what it sends shows what B knows.
    await bridgeA.engine.worker.stop();
    const created = await bridgeA.accounts.create(
      { name: 'Merchant B', baseUrl: sandboxB.url, ...B_CREDENTIALS, rateLimitPerMinute: 600 },
      'test',
    );
    if (!created.ok) throw new Error(created.errors.join('\n'));
    accountB = created.value;
    await bridgeA.accounts.link({ platform: 'shopify', shop: SHOP_B }, 'default', 'test');
  }, 60_000);
  afterAll(async () => {
    await bridgeA?.stop();
    await bridgeB?.stop();
    await defaultSandbox?.close();
    await sandboxB?.close();
    await database?.drop();
  });

  async function paidAtB(orderId: string) {
    const body = shopifyOrderJson({ id: orderId });
    const response = await fetch(`${bridgeB.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body, shop: SHOP_B }),
      body,
    });
    expect(((await response.json()) as { result?: string }).result).toBe('accepted');
  }
  const earningsAt = (sandbox: TestSandbox, orderId: string) =>
    sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === orderId);

  it('sends a shop’s next order to the account another bridge moved it to, then under the settings it changed', async () => {
    await paidAtB('7400000000001');
    // Either bridge may fold the delivery (A's intake runs; its worker does not): the earn is B's worker's, soon.
    await eventually(() =>
      expect(earningsAt(defaultSandbox, '7400000000001')).toEqual([expect.objectContaining({ points: 100 })]),
    );

    // Bridge A moves the shop to account B; B had the old link in hand.
    await bridgeA.accounts.link({ platform: 'shopify', shop: SHOP_B }, accountB.id, 'test');
    await new Promise((resolve) => setTimeout(resolve, REFRESH_WAIT_MS));
    await paidAtB('7400000000002');
    await eventually(() =>
      expect(earningsAt(sandboxB, '7400000000002')).toEqual([expect.objectContaining({ points: 100 })]),
    );
    expect(earningsAt(defaultSandbox, '7400000000002')).toEqual([]);

    // Bridge A changes account B's activity; B had the old settings in hand.
    expect((await bridgeA.accounts.setSettings(accountB.id, { LOYALTY_EARN_ACTIVITY_ID: '7' }, 'test')).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, REFRESH_WAIT_MS));
    await paidAtB('7400000000003');
    await eventually(() =>
      expect(earningsAt(sandboxB, '7400000000003')).toEqual([expect.objectContaining({ points: 250 })]),
    );
  }, 30_000);
});
