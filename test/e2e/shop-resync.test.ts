// A merchant reads a window of their orders again from their own page
// (issue 34, "resync a window with progress"): the bridge reads that shop's
// orders from Shopify, the new ones earn on the shop's account, and the page
// follows the job's progress to its end. A shop sees and starts only its own
// resyncs: never another shop's, nor the operator's over several shops; it
// names no platform, shop or order ids; and it starts a few an hour.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/engine.ts';
import { shopifyOrderNode, type FakeShopify } from '../helpers/fake-shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import {
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';

const SHOP_A = 'reread-a.myshopify.com';
const SHOP_B = 'reread-b.myshopify.com';
const ADMIN_TOKEN = 'operator-token-for-shop-resync-0123456789';
const CREDENTIALS = { apiKey: 'reread-a-loyalty-key-0123456789', brandId: 'reread-a-brand' };
const DAY = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

describe("a shop's resync from its own page", () => {
  let fake: FakeShopify;
  let service: TestSandbox;
  let running: ShopifyAppBridge;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    for (const shop of [SHOP_A, SHOP_B]) fake.install(shop);
    // Two orders of A's last days that no webhook brought, and one of a month ago.
    const updated = (daysAgo: number) => ({
      updatedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
      phone: '+44 7911 123456',
    });
    fake.shop(SHOP_A).orders.set('8800000000001', shopifyOrderNode('8800000000001', updated(2)));
    fake.shop(SHOP_A).orders.set('8800000000002', shopifyOrderNode('8800000000002', updated(1)));
    fake.shop(SHOP_A).orders.set('8800000000003', shopifyOrderNode('8800000000003', updated(30)));
    fake.shop(SHOP_B).orders.set('8800000000009', shopifyOrderNode('8800000000009', updated(1)));
    service = await startTestSandbox({ ...CREDENTIALS, rateLimit: 100_000 });
    running = await startShopifyAppBridge(fake, {
      ADMIN_TOKEN,
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
    });
    // A earns on an account of its own; B on none.
    expect(
      (await asShop(running, SHOP_A).post('/account', { name: 'Reread', baseUrl: service.url, ...CREDENTIALS })).status,
    ).toBe(201);
    expect((await asShop(running, SHOP_B).get('/account')).status).toBe(200);
  }, 30_000);
  afterAll(async () => {
    await running?.stop();
    await service?.close();
    await stopFakeShopifyForApp(fake);
  });

  it('reads the window again, follows its progress to the end, and the orders earn on the shop’s account', async () => {
    const started = await asShop(running, SHOP_A).post('/resync', { since: day(7) });
    expect(started.status).toBe(202);
    const id = started.body.job.id as string;
    expect(started.body.job).toMatchObject({ platform: 'shopify', shops: [SHOP_A], status: 'running' });
    await eventually(async () => {
      const { body } = await asShop(running, SHOP_A).get(`/resync/${id}`);
      expect(body.job).toMatchObject({ status: 'done', progress: { fetched: 2, changed: 2, failed: 0 } });
      // Who asked, as the audit names a shop's page: the shop, and the staff member its session token names.
      expect(body.job.startedBy).toBe(`shopify ${SHOP_A} (staff 42)`);
    }, 15_000);
    await eventually(() => {
      const earned = service.store
        .snapshot()
        .earnings.map((each) => each.orderId)
        .sort();
      expect(earned).toEqual(['8800000000001', '8800000000002']);
    }, 15_000);
    // The page shows its latest resync first.
    expect((await asShop(running, SHOP_A).get('/resync')).body.jobs[0].id).toBe(id);
  }, 40_000);

  it('shows a shop none of another shop’s resyncs, nor the operator’s over several shops', async () => {
    const theirs = (await asShop(running, SHOP_A).get('/resync')).body.jobs[0].id as string;
    expect((await asShop(running, SHOP_B).get(`/resync/${theirs}`)).status).toBe(404);
    expect((await asShop(running, SHOP_B).get('/resync')).body.jobs).toEqual([]);
    const operators = await fetch(`${running.url}/admin/api/resync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'shopify', since: day(3) }),
    });
    expect(operators.status).toBe(202);
    const { job } = (await operators.json()) as { job: { id: string; shops: string[] } };
    expect(job.shops.sort()).toEqual([SHOP_A, SHOP_B]);
    expect((await asShop(running, SHOP_A).get(`/resync/${job.id}`)).status).toBe(404);
    expect(
      (await asShop(running, SHOP_A).get('/resync')).body.jobs.map((each: { id: string }) => each.id),
    ).not.toContain(job.id);
  });

  it('refuses a window it cannot read, with the field and why, and names no platform, shop or orders', async () => {
    const a = asShop(running, SHOP_A);
    const refusals = [
      [{ platform: 'shopify', since: day(3) }, 'body'],
      [{ shop: SHOP_B, since: day(3) }, 'body'],
      [{ orderIds: ['8800000000009'] }, 'since'],
      [{ since: 'last week' }, 'since'],
      [{ since: day(-2) }, 'since'],
      [{ since: day(400) }, 'since'],
      [{ since: day(3), until: day(5) }, 'until'],
    ] as const;
    for (const [body, field] of refusals) {
      const answer = await a.post('/resync', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.field, JSON.stringify(body)).toBe(field);
    }
    // Nothing of B's was read for A.
    expect(service.store.snapshot().earnings.map((each) => each.orderId)).not.toContain('8800000000009');
  });

  it('starts at most three an hour for a shop', async () => {
    const b = asShop(running, SHOP_B);
    for (let n = 1; n <= 3; n++) expect((await b.post('/resync', { since: day(2) })).status, `resync ${n}`).toBe(202);
    const over = await b.post('/resync', { since: day(2) });
    expect(over.status).toBe(429);
    expect(over.body.errors[0]).toMatch(/at most 3 times an hour/);
    // Another shop's count is its own.
    expect((await asShop(running, SHOP_A).post('/resync', { since: day(2) })).status).toBe(202);
  });
});
