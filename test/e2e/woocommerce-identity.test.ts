// One WooCommerce store, one shop name. The store calls itself
// https://www.store.example/ in its webhooks (X-WC-Webhook-Source is its home
// URL), while the merchant configured https://store.example; or it lives in a
// subdirectory. Webhooks and the REST API must name the same shop. A ledger
// an earlier version kept, where the same order exists under both names (the
// second earn a dead letter of the lp_orderid guard), is brought to the one
// name at start-up, on lowdb and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wooOrderToEvent } from '../../adapters/woocommerce/order-events.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { WOO_SECRET, wooOrderJson, type WooOrderOptions } from '../helpers/woocommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'identity-admin-token-0123456789abcdef';

/** The configured store's address, wherever its fake answers: the REST API is reached by the store's own name. */
const storeEnv = (url: string) => ({
  WOOCOMMERCE_URL: url,
  WOOCOMMERCE_CONSUMER_KEY: 'ck_test',
  WOOCOMMERCE_CONSUMER_SECRET: 'cs_test',
  WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
  RECONCILE_INTERVAL_MINUTES: '0',
  ADMIN_TOKEN,
});
const routeTo = (fake: FakeWooCommerce) => ({
  apiUrls: {
    woocommerce: (url: string) => url.replace(/^https:\/\/(www\.)?store\.example/, new URL(fake.url).origin),
  },
});
const setOrder = (fake: FakeWooCommerce, options: WooOrderOptions) =>
  fake.orders.set(options.id, JSON.parse(wooOrderJson(options)) as Record<string, unknown>);
const recently = () => new Date(Date.now() - 60_000).toISOString().slice(0, 19);
const pointAt = (fake: FakeWooCommerce, bridge: RunningBridge) => {
  fake.webhooks.splice(0, fake.webhooks.length);
  for (const [id, topic] of [
    [1, 'order.created'],
    [2, 'order.updated'],
  ] as const)
    fake.webhooks.push({
      id,
      name: topic,
      status: 'active',
      topic,
      delivery_url: `${bridge.http.localUrl}/webhooks/woocommerce`,
      secret: WOO_SECRET,
      failures: 0,
    });
};
const ordersOf = async (bridge: RunningBridge) =>
  (await bridge.engine.store.listOrders({ platform: 'woocommerce', page: 1, limit: 50 })).orders;
const earnings = (bridge: RunningBridge, orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];

/** A store that calls itself `homeUrl`, configured as `configured`, and a bridge serving it. */
function storeAndBridge(homeUrl: string, configured: string) {
  const running: { fake?: FakeWooCommerce; bridge?: RunningBridge } = {};
  beforeAll(async () => {
    running.fake = await startFakeWooCommerce({ consumerKey: 'ck_test', consumerSecret: 'cs_test', homeUrl });
    running.bridge = await startTestBridge(storeEnv(configured), undefined, {
      platformOverrides: routeTo(running.fake),
    });
    pointAt(running.fake, running.bridge);
  });
  afterAll(async () => {
    await running.bridge?.stop();
    await running.fake?.close();
  });
  return running as Required<typeof running>;
}

describe('one name for a store that calls itself www. while the merchant configured it without', () => {
  const running = storeAndBridge('https://www.store.example/', 'https://store.example');

  it('keeps an order that came by webhook and again by reconciliation as one order, earned once, with no dead letter', async () => {
    const { fake, bridge } = running;
    setOrder(fake, { id: 801, status: 'processing', modified: recently() });
    expect(await fake.deliver('order.created', 801)).toEqual([200]);
    await bridge.engine.drain();
    await bridge.reconciler.run('woocommerce');
    await bridge.engine.drain();
    expect((await ordersOf(bridge)).map((order) => order.key)).toEqual(['woocommerce:store.example:801']);
    expect(earnings(bridge, '801')).toHaveLength(1);
    expect(await bridge.engine.store.listDeadLetters()).toEqual([]);
    expect(await bridge.engine.store.getRecord(raw('reconciliation'), 'woocommerce:store.example')).toBeDefined();
  });
});

describe('one name for a store in a subdirectory', () => {
  const running = storeAndBridge('https://store.example/shop/', 'https://store.example/shop/');

  it('names webhooks and REST alike by host and path, and reads the REST API under the path', async () => {
    const { fake, bridge } = running;
    setOrder(fake, { id: 901, status: 'processing', modified: recently() });
    expect(await fake.deliver('order.created', 901)).toEqual([200]);
    await bridge.reconciler.run('woocommerce');
    await bridge.engine.drain();
    expect((await ordersOf(bridge)).map((order) => order.key)).toEqual(['woocommerce:store.example/shop:901']);
    expect(fake.requests.filter((request) => request.path === '/wp-json/wc/v3/orders').length).toBeGreaterThan(0);
    expect(earnings(bridge, '901')).toHaveLength(1);
  });
});

/** What an earlier version made of one order: by webhook under the source's host, by reconciliation under the configured host. */
const oldEvent = (shop: string, via: string, options: WooOrderOptions): OrderEvent => {
  const result = wooOrderToEvent(
    JSON.parse(wooOrderJson(options)),
    shop,
    `${via}:${options.id}:${options.status}`,
    new Date(),
  );
  if (!result.ok) throw new Error(result.reason);
  return result.event;
};

describe.each([
  ['lowdb', false],
  ['PostgreSQL', true],
])('an earlier ledger with one store under two names (%s)', (_name, onPostgres) => {
  let database: TestDatabase | undefined;
  // One loyalty service for the earlier bridge and the one after it, as in production.
  let service: TestSandbox;
  beforeAll(async () => {
    service = await startTestSandbox();
    if (onPostgres && postgresAvailable()) database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    await service.close();
  });

  it.skipIf(onPostgres && !postgresAvailable())(
    'moves every order to the one name at start-up: duplicates merged, the collision gone, points untouched, and the next delivery lands on it',
    async () => {
      const dataDir = tempDataDir();
      const where = {
        DATA_DIR: dataDir,
        WORKER_LEASE_SECONDS: '5',
        LOYALTY_BASE_URL: service.url,
        LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
        LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
        ...(database ? { DATABASE_URL: database.url } : {}),
      };
      // The earlier ledger: order 500 twice (the second earn refused by the lp_orderid guard), 501 only by webhook, 502 only by reconciliation.
      const old = await startTestBridge({
        ...where,
        WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
        RECONCILE_INTERVAL_MINUTES: '0',
        ADMIN_TOKEN,
      });
      try {
        await old.engine.accept('old-webhook-500', [
          oldEvent('www.store.example', 'woocommerce:7', { id: 500, status: 'processing', email: 'twice@example.com' }),
        ]);
        await old.engine.drain();
        await old.engine.accept('old-resync-500', [
          oldEvent('store.example', 'woocommerce-resync', {
            id: 500,
            status: 'processing',
            email: 'twice@example.com',
          }),
        ]);
        await old.engine.accept('old-webhook-501', [
          oldEvent('www.store.example', 'woocommerce:7', { id: 501, status: 'processing', email: 'hook@example.com' }),
        ]);
        await old.engine.accept('old-resync-502', [
          oldEvent('store.example', 'woocommerce-resync', { id: 502, status: 'processing', email: 'rest@example.com' }),
        ]);
        await old.engine.drain();
        expect((await ordersOf(old)).map((order) => order.key).sort()).toEqual([
          'woocommerce:store.example:500',
          'woocommerce:store.example:502',
          'woocommerce:www.store.example:500',
          'woocommerce:www.store.example:501',
        ]);
        expect((await old.engine.store.listDeadLetters()).map((letter) => letter.reason)).toEqual([
          expect.stringContaining('already used by order woocommerce:www.store.example:500'),
        ]);
      } finally {
        await old.stop();
      }
      const earnedFor = (orderId: string) =>
        service.store.snapshot().earnings.filter((each) => each.orderId === orderId);
      expect(earnedFor('500')).toHaveLength(1);

      const fake = await startFakeWooCommerce({
        consumerKey: 'ck_test',
        consumerSecret: 'cs_test',
        homeUrl: 'https://www.store.example/',
      });
      const bridge = await startTestBridge({ ...where, ...storeEnv('https://store.example') }, undefined, {
        platformOverrides: routeTo(fake),
      });
      try {
        pointAt(fake, bridge);
        const orders = await ordersOf(bridge);
        expect(orders.map((order) => order.key).sort()).toEqual([
          'woocommerce:store.example:500',
          'woocommerce:store.example:501',
          'woocommerce:store.example:502',
        ]);
        expect(await bridge.engine.store.listDeadLetters()).toEqual([]);
        const merged = await bridge.engine.store.getOrder('woocommerce:store.example:500');
        expect(merged).toMatchObject({
          upstream: { points: 'earned', lpOrderId: '500' },
          facts: ['placed', 'paid'],
          snapshot: { customer: { email: 'twice@example.com' } },
        });
        expect(await bridge.engine.store.claimLpOrderId('500', 'woocommerce:other:500')).toBe(
          'woocommerce:store.example:500',
        );
        expect(
          await bridge.engine.store.getRecord(raw('migration'), 'woocommerce-shop:www.store.example'),
        ).toBeUndefined();

        // The earlier points are the same ones: nothing more was sent for 500.
        await bridge.engine.drain();
        expect(earnedFor('500')).toEqual([expect.objectContaining({ status: 'pending', email: 'twice@example.com' })]);
        // The next delivery, from the www. source, folds into the one order and approves the points it earned then.
        setOrder(fake, { id: 500, status: 'completed', email: 'twice@example.com', modified: '2026-11-19T12:00:00' });
        expect(await fake.deliver('order.updated', 500)).toEqual([200]);
        // On PostgreSQL the order may still be leased by the earlier bridge (the lp_orderid guard leaves its order leased): it waits for the lease to end.
        await eventually(
          async () =>
            expect((await bridge.engine.store.getOrder('woocommerce:store.example:500'))?.upstream.points).toBe(
              'approved',
            ),
          15_000,
        );
        expect(earnedFor('500')).toEqual([expect.objectContaining({ status: 'approved' })]);
        expect((await ordersOf(bridge)).length).toBe(3);
      } finally {
        await bridge.stop();
        await fake.close();
      }
    },
    60_000,
  );
});
