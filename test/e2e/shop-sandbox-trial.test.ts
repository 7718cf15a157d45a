// "Try it with the sandbox first" (issue 34): on a bridge in sandbox mode a
// merchant makes an account on the bridge's own sandbox from their page,
// sees a test order earn there, keeps the trial across a restart (the
// sandbox forgets its accounts; the bridge gives them back), then enters
// their own service and the next order earns there. A bridge with a real
// service runs no sandbox and says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets.ts';
import {
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';

const SHOP = 'trial-shop.myshopify.com';
const OTHER_SHOP = 'another-trial.myshopify.com';
const OWN = { apiKey: 'trial-shop-own-loyalty-key-0123456789', brandId: 'trial-shop-brand' };

describe('a merchant’s trial on the bridge’s sandbox', () => {
  let fake: FakeShopify;
  let own: TestSandbox;
  let running: ShopifyAppBridge;
  const env = {
    DATA_DIR: tempDataDir(),
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  };

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    for (const each of [SHOP, OTHER_SHOP]) fake.install(each);
    own = await startTestSandbox({ ...OWN, rateLimit: 100_000 });
    running = await startShopifyAppBridge(fake, env);
  }, 30_000);
  afterAll(async () => {
    await running?.stop();
    await own?.close();
    await stopFakeShopifyForApp(fake);
  });

  const shop = () => asShop(running, SHOP);
  /** The earnings the bridge's sandbox holds for the trial account (by its brand). */
  const trialEarnings = (brandId: string) =>
    running.bridge.sandbox!.accounts.find((each) => each.credentials.brandId === brandId)?.store.snapshot().earnings ??
    [];
  const sendTestOrder = async () => {
    const sent = await shop().post('/test-orders');
    expect(sent.status).toBe(202);
    return sent.body.testOrder.orderId as string;
  };
  let brandId = '';

  it('is offered, made in one step, connected, and a test order earns on it', async () => {
    expect((await shop().get('/account')).body).toMatchObject({ account: null, sandboxTrial: true });
    const made = await shop().post('/account', { sandbox: true });
    expect(made.status).toBe(201);
    expect(made.body.account).toMatchObject({
      onBridgeSandbox: true,
      check: { status: 'connected' },
      name: 'Sandbox trial',
    });
    brandId = made.body.account.brandId as string;
    const orderId = await sendTestOrder();
    await eventually(() => {
      expect(trialEarnings(brandId).map((each) => [each.orderId, each.points])).toEqual([[orderId, 100]]);
    }, 15_000);
  }, 30_000);

  it('declares the sandbox’s points for its activities, and shows each order’s points as a number', async () => {
    // Prefilled from the sandbox's own activities: activity 1 gives 100 points.
    const settings = (await shop().get('/account/settings')).body;
    expect(settings.saved.LOYALTY_ACTIVITY_POINTS).toEqual({ '1': 100 });
    expect(settings.settings.LOYALTY_ACTIVITY_POINTS).toEqual({ '1': 100 });
    const sent = await shop().post('/test-orders');
    const key = sent.body.testOrder.key as string;
    await eventually(async () => {
      const order = (await shop().get(`/orders/${encodeURIComponent(key)}`)).body.order;
      expect(order.points).toMatchObject({ earned: 100, state: 'pending', redeemed: null });
      // Which activity it went under is the account's program, not the page's to read.
      expect(order.points).not.toHaveProperty('activityId');
      expect(order.points.text).toBe('earned 100 points, pending');
    }, 15_000);
    const listed = (await shop().get('/orders?limit=5&page=1')).body.orders as Array<Record<string, any>>;
    const row = listed.find((order) => order.key === key);
    expect(row?.points).toMatchObject({ earned: 100, state: 'pending' });
    // Which account an order went to stays the operator's to read.
    expect(row).not.toHaveProperty('account');
  }, 30_000);

  it('gives points by hand in points: the activity that gives exactly that many, else the amounts that can be given', async () => {
    const customer = { name: 'Ada', email: 'ada.trial@example.com', mobile: '+12125550123', reason: 'a late parcel' };
    const given = await shop().post('/adjustments/earn', { ...customer, points: 100 });
    expect(given.status).toBe(201);
    expect(given.body.adjustment).toMatchObject({ activityId: '1', points: 100, outcome: 'success' });
    const refused = await shop().post('/adjustments/earn', { ...customer, points: 120 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      'points: no activity gives exactly 120 points; the amounts that can be given are 100 (declare more in Set up (Points each activity gives))',
    );
  });

  it('refuses bad declared points, one line per bad key', async () => {
    const refused = await shop().patch('/account/settings', {
      LOYALTY_ACTIVITY_POINTS: '1=a lot',
      LOYALTY_EARN_ACTIVITIES: '0=1,fifty=7',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      'LOYALTY_EARN_ACTIVITIES: must be a list like 0=1,50=7,200=9 (order total from which = activity id)',
      'LOYALTY_ACTIVITY_POINTS: activity 1: points must be a whole number',
    ]);
  });

  it('keeps working after a restart: the bridge gives the sandbox its trial accounts back', async () => {
    await running.stop();
    running = await startShopifyAppBridge(fake, env);
    const orderId = await sendTestOrder();
    await eventually(() => {
      expect(trialEarnings(brandId).map((each) => each.orderId)).toEqual([orderId]);
    }, 15_000);
  }, 30_000);

  it('stays a trial when the page saves it with its address unchanged', async () => {
    const account = (await shop().get('/account')).body.account;
    const saved = await shop().patch('/account', { name: 'Still trying', baseUrl: account.baseUrl, brandId });
    expect(saved.status).toBe(200);
    expect(saved.body.account).toMatchObject({ name: 'Still trying', onBridgeSandbox: true });
    const orderId = await sendTestOrder();
    await eventually(() => {
      expect(trialEarnings(brandId).map((each) => each.orderId)).toContain(orderId);
    }, 15_000);
  }, 30_000);

  it('keeps a trial’s key and brand the sandbox’s: new ones come with the merchant’s own address', async () => {
    const refused = await shop().patch('/account', { apiKey: 'a-key-of-my-choosing-0123456789' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      'baseUrl: is required with a new key or brand id on a trial (its own are the sandbox’s): give your loyalty service’s address too',
    ]);
    expect((await shop().get('/account')).body.account).toMatchObject({ onBridgeSandbox: true, brandId });
  });

  it('ends when the merchant enters their own service: the next order earns there', async () => {
    const changed = await shop().patch('/account', { baseUrl: own.url, ...OWN });
    expect(changed.status).toBe(200);
    expect(changed.body.account).toMatchObject({ onBridgeSandbox: false, check: { status: 'connected' } });
    const orderId = await sendTestOrder();
    await eventually(() => {
      expect(own.store.snapshot().earnings.map((each) => each.orderId)).toEqual([orderId]);
    }, 15_000);
    expect(trialEarnings(brandId).map((each) => each.orderId)).not.toContain(orderId);
  }, 30_000);

  it('refuses a trial with an address or credentials of the merchant’s, one line per key', async () => {
    const refused = await asShop(running, OTHER_SHOP).post('/account', {
      sandbox: true,
      apiKey: 'x',
      baseUrl: 'https://example.com',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      'apiKey: is not given with sandbox (the sandbox makes the address and credentials)',
      'baseUrl: is not given with sandbox (the sandbox makes the address and credentials)',
    ]);
  });
});

describe('a bridge with a real loyalty service', () => {
  let fake: FakeShopify;
  let service: TestSandbox;
  let running: ShopifyAppBridge;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    service = await startTestSandbox({ apiKey: 'operator-live-key-0123456789', brandId: 'operator-brand' });
    running = await startShopifyAppBridge(fake, {
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      LOYALTY_BASE_URL: service.url,
      LOYALTY_API_KEY: 'operator-live-key-0123456789',
      LOYALTY_BRAND_ID: 'operator-brand',
      SECRETS_KEY: TEST_SECRETS_KEY,
    });
  }, 30_000);
  afterAll(async () => {
    await running?.stop();
    await service?.close();
    await stopFakeShopifyForApp(fake);
  });

  it('runs no sandbox, offers no trial, and says so to a merchant who asks', async () => {
    expect((await asShop(running, SHOP).get('/account')).body.sandboxTrial).toBe(false);
    const refused = await asShop(running, SHOP).post('/account', { sandbox: true });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatch(/this bridge runs no sandbox/);
  });
});
