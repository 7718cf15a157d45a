// Found in a review of the shop routes' hourly caps (c9d673c..13c656c) on PostgreSQL,
// where every step of a request is a round trip: the caps are counted from
// the records the ledger keeps (read, then written, with nothing between to
// hold a second request back), so a burst of requests from one merchant's
// page all read the same count and all pass. Each test failed when written.
//   - POST /resync: 3 an hour per shop; a burst of 40 over two instances
//     started 6 or 7 (20 of 20 on one instance in one run), each reading the shop's orders again from Shopify and filling this
//     instance's resync queue (2 at once) ahead of the operator's and every
//     other shop's
//   - POST /test-orders: 10 an hour per shop; a burst of 100 shared by two
//     instances behind one load balancer was accepted 26 to 38 times, each a
//     made-up order earning on the shop's account
//   - POST /adjustments/earn: 30 an hour per shop, counted from the
//     adjustments kept, which are written once the service answered; a burst
//     of 80 over two instances gave points well over 30 times (found reading the diff)
//   - and, found by that test: a trial account made through one instance was
//     unknown to the other's sandbox (each keeps its accounts in memory), so
//     its calls through the other instance were refused (401 from the sandbox)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets.ts';
import {
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'review-caps.myshopify.com';
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

describe.skipIf(!postgresAvailable())('review: hourly caps of a shop’s page, on PostgreSQL', () => {
  let fake: FakeShopify;
  let first: ShopifyAppBridge;
  let second: ShopifyAppBridge;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await freshDatabase();
    fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    const env = {
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      DATABASE_URL: database.url,
      SECRETS_KEY: TEST_SECRETS_KEY,
    };
    first = await startShopifyAppBridge(fake, env);
    second = await startShopifyAppBridge(fake, env);
    expect((await asShop(first, SHOP).post('/account', { sandbox: true })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await stopFakeShopifyForApp(fake);
    await database?.drop();
  });

  it('a burst of resyncs, shared by two instances, starts no more than 3 in an hour', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => asShop(n % 2 ? second : first, SHOP).post('/resync', { since: day(2) })),
    );
    expect(answers.filter((each) => each.status === 202).length, 'resyncs one burst started').toBeLessThanOrEqual(3);
  }, 60_000);

  it('a burst of test orders, shared by two instances, sends no more than 10 in an hour', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, n) => asShop(n % 2 ? second : first, SHOP).post('/test-orders')),
    );
    const kept = (await first.bridge.engine.store.listRecords(raw<{ shop: string }>('test-order'))).filter(
      ({ value }) => value.shop === SHOP,
    );
    expect(kept.length, `${answers.filter((each) => each.status === 202).length} of 100 accepted`).toBeLessThanOrEqual(
      10,
    );
  }, 60_000);

  it('a trial account made through one instance works through the other', async () => {
    // The trial was made through the first; the second's sandbox knows it once the second uses it.
    const points = await asShop(second, SHOP).get('/customers/points?email=nobody-here%40example.com');
    expect(points.status).toBe(422);
    expect(points.body.error).toMatch(/no customer found/);
  }, 60_000);

  it('a burst of points by hand, shared by two instances, gives points no more than 30 times in an hour', async () => {
    const give = (n: number) =>
      asShop(n % 2 ? second : first, SHOP).post('/adjustments/earn', {
        activityId: '1',
        name: 'Grace',
        email: `grace+${n}@example.com`,
        mobile: `+1212555${1000 + n}`,
        reason: 'a goodwill gesture',
      });
    const answers = await Promise.all(Array.from({ length: 80 }, (_, n) => give(n)));
    const given = answers.filter((each) => each.status === 201).length;
    const kept = (await first.bridge.engine.store.listRecords(raw<{ shop?: string }>('adjustment'))).filter(
      ({ value }) => value.shop === SHOP,
    );
    expect(kept.length, `${given} of 80 given`).toBeLessThanOrEqual(30);
    expect(given).toBeGreaterThan(0);
    // Every other answer says why: the cap, or another request of the shop under way.
    for (const each of answers.filter((answer) => answer.status !== 201)) expect(each.status).toBe(429);
  }, 60_000);
});
