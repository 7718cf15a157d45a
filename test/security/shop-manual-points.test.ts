// Points a shop gives by hand from its own page: each is a call with no
// order id, and one whose outcome is unknown becomes a dead letter for a
// person, so a shop gives at most 30 an hour. Found in review: the count
// was kept in one process's memory, and a restart (or a second instance on
// one database) gave a shop as many again. The count is the ledger's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/engine.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import {
  APP_KEY,
  APP_SECRET,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';

const SHOP = 'generous-shop.myshopify.com';
const CREDENTIALS = { apiKey: 'generous-shop-key-0123456789', brandId: 'generous-brand' };

describe('points a shop gives by hand', () => {
  let fake: FakeShopify;
  let service: TestSandbox;
  let running: ShopifyAppBridge;
  const dataDir = tempDataDir();
  const env = {
    DATA_DIR: dataDir,
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  };

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    service = await startTestSandbox({ ...CREDENTIALS, rateLimit: 100_000 });
    running = await startShopifyAppBridge(fake, env);
  }, 30_000);
  afterAll(async () => {
    await running?.stop();
    await service?.close();
    await stopFakeShopifyForApp(fake);
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${running.url}/admin/api${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { errors?: string[] } };
  };
  const give = (n: number) =>
    post('/adjustments/earn', {
      activityId: '1',
      name: 'Grace',
      email: `grace+${n}@example.com`,
      mobile: '+12125550142',
      reason: `goodwill ${n}`,
    });

  it('stops at 30 an hour, and a restart does not start the count again', async () => {
    const made = await post('/account', { name: 'Generous', baseUrl: service.url, ...CREDENTIALS });
    expect(made.status).toBe(201);
    for (let n = 1; n <= 30; n++) expect((await give(n)).status, `earn ${n}`).toBe(201);
    const over = await give(31);
    expect(over.status).toBe(429);
    expect(over.body.errors?.[0]).toMatch(/at most 30 times an hour/);
    await running.stop();
    running = await startShopifyAppBridge(fake, env);
    expect((await give(32)).status).toBe(429);
    expect(service.store.snapshot().earnings).toHaveLength(30);
  }, 60_000);
});
