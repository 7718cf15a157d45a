// A merchant's reach, through HTTP as a shop's own page calls the admin API:
// with App Bridge session tokens (and the bridge's own shop token), no
// ADMIN_TOKEN, on lowdb and on PostgreSQL. Shops A and B are open installs
// (they earn on no account until they have one); shop L is the operator's
// (SHOPIFY_SHOPS), on the default account. A shop creates an account of its
// own and changes it; it cannot read or change another shop's account, link
// itself to an existing account, touch the default account, or reach the
// operator's routes; once the operator shares its account with another
// shop, it is no longer the shop's to read or change. No answer holds a key.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import {
  APP_KEY,
  APP_SECRET,
  postDataRequest,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP_A = 'alpha-reach.myshopify.com';
const SHOP_B = 'beta-reach.myshopify.com';
const SHOP_L = 'listed-reach.myshopify.com';
const ADMIN_TOKEN = 'reach-admin-token-0123456789abcdef';
const KEY_A = 'merchant-a-secret-key-1b2c3d4e5f60-AAAA';
const KEY_A2 = 'merchant-a-second-key-6f5e4d3c2b1a-CCCC';
const KEY_B = 'merchant-b-secret-key-0a9b8c7d6e5f-BBBB';

const backends: Array<[string, boolean]> = [
  ['lowdb', true],
  ['PostgreSQL', postgresAvailable()],
];

describe.each(backends)('a merchant’s reach on %s', (backend, available) => {
  let fake: FakeShopify;
  let running: ShopifyAppBridge;
  let service: TestSandbox;
  let database: TestDatabase | undefined;
  const answers: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    // One service for both merchants' keys is enough here: what matters is who may see and change which account.
    service = await startTestSandbox({ apiKey: KEY_A, brandId: 'brand-a' });
    fake = await startFakeShopifyForApp();
    for (const shop of [SHOP_A, SHOP_B, SHOP_L]) fake.install(shop);
    database = backend === 'PostgreSQL' ? await freshDatabase() : undefined;
    running = await startShopifyAppBridge(fake, {
      SHOPIFY_SHOPS: SHOP_L,
      SHOPIFY_OPEN_INSTALLS: 'true',
      ADMIN_TOKEN,
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
    await stopFakeShopifyForApp(fake);
    await service?.close();
    await database?.drop();
  });

  const session = (shop: string) => mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET });
  async function call(bearer: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${running.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as any };
  }
  const as = (shop: string) => ({
    get: (path: string) => call(session(shop), 'GET', path),
    post: (path: string, body: unknown = {}) => call(session(shop), 'POST', path, body),
    patch: (path: string, body: unknown) => call(session(shop), 'PATCH', path, body),
    delete: (path: string) => call(session(shop), 'DELETE', path),
  });
  const operator = {
    get: (path: string) => call(ADMIN_TOKEN, 'GET', path),
    patch: (path: string, body: unknown) => call(ADMIN_TOKEN, 'PATCH', path, body),
  };
  const accountOf = (key: string, name: string) => ({ name, baseUrl: service.url, apiKey: key, brandId: 'brand-a' });
  const earnsOn = async (shop: string) =>
    ((await operator.get('/shops')).body.shops as any[]).find((each) => each.shop === shop)?.account ?? null;

  let idA = '';
  let idB = '';

  describe.skipIf(!available)('a shop with no account', () => {
    it('is told it earns on none, and may create one', async () => {
      const { status, body } = await as(SHOP_A).get('/account');
      expect(status).toBe(200);
      expect(body).toMatchObject({
        account: null,
        standing: 'unlinked',
        may: { read: false, change: false, create: true },
      });
      expect((await as(SHOP_A).patch('/account', { name: 'x' })).status).toBe(403);
      // Its page says so first, with what to do.
      expect((await as(SHOP_A).get('/attention')).body.attention).toContainEqual(
        expect.objectContaining({ kind: 'no_account', fix: expect.stringMatching(/Set up your loyalty account/) }),
      );
    });

    it('creates an account of its own, linked to it, with one line per bad field when the fields are bad', async () => {
      const bad = await as(SHOP_A).post('/account', { name: '', baseUrl: 'ftp://x', brandId: 'b' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((line: string) => line.split(':')[0]).sort()).toEqual(['apiKey', 'baseUrl', 'name']);
      expect(await earnsOn(SHOP_A)).toBeNull();

      const made = await as(SHOP_A).post('/account', accountOf(KEY_A, 'Alpha’s points'));
      expect(made.status).toBe(201);
      expect(made.body.account).toMatchObject({
        name: 'Alpha’s points',
        apiKeyHint: '…AAAA',
        madeFor: { platform: 'shopify', shop: SHOP_A },
        check: { status: 'connected' },
      });
      idA = made.body.account.id;
      expect(await earnsOn(SHOP_A)).toBe(idA);
      const audit = (await operator.get('/audit')).body.audit as any[];
      expect(audit.find((entry) => entry.action === 'account.create')).toMatchObject({
        by: `shopify ${SHOP_A} (staff 42)`,
        account: idA,
      });
      expect(audit.find((entry) => entry.action === 'shop.link')).toMatchObject({
        by: `shopify ${SHOP_A} (staff 42)`,
        shop: { platform: 'shopify', shop: SHOP_A },
        account: idA,
      });
    });

    it('reads its own account’s customers’ points, and never names another account to read', async () => {
      const own = await as(SHOP_A).get('/customers/points?email=nobody-here%40example.com');
      // The service answers, in its words: this account has no such customer.
      expect(own.status).toBe(422);
      expect(own.body.error).toMatch(/no customer found/);
      const naming = await as(SHOP_A).get(
        `/customers/points?email=grace%40example.com&account=${encodeURIComponent(idB ?? 'x')}`,
      );
      expect(naming.status).toBe(400);
    });

    it('keeps the points it gives by hand as its own: its dead letter it sees, its export has them, its erasure takes them', async () => {
      const give = () =>
        as(SHOP_A).post('/adjustments/earn', {
          activityId: '1',
          name: 'Ada',
          email: 'ada@example.com',
          mobile: '+442079460958',
          reason: 'a parcel lost in the post',
        });
      // The service fails in a way that may have applied the earn: a dead letter for a person to check.
      service.faults.configure({ forced: { status: 503, count: 1_000 } });
      try {
        expect((await give()).status).toBe(502);
      } finally {
        service.faults.configure({});
      }
      const letters = (await as(SHOP_A).get('/dead-letters')).body.deadLetters as Array<{ byHand: boolean }>;
      expect(letters.filter((letter) => letter.byHand)).toHaveLength(1);
      expect((await as(SHOP_B).get('/dead-letters')).body.deadLetters).toEqual([]);
      // The adjustment names its shop, which a shop's erasure goes by (records of a platform and shop).
      const adjustments = await running.bridge.engine.store.listRecords(
        raw<{ platform?: string; shop?: string }>('adjustment'),
      );
      expect(adjustments.map(({ value }) => [value.platform, value.shop])).toEqual([['shopify', SHOP_A]]);
      // A data request of that customer, at that shop: its export has the adjustment; at another shop, not.
      for (const [shop, requestId] of [
        [SHOP_A, 9101],
        [SHOP_B, 9102],
      ] as const) {
        await postDataRequest(running, shop, { id: requestId, email: 'ada@example.com' });
      }
      await running.bridge.engine.drain();
      const exported = async (shop: string) => {
        const [request] = (await as(shop).get('/privacy/data-requests')).body.dataRequests as Array<{ id: string }>;
        return (await as(shop).get(`/privacy/data-requests/${request!.id}/export`)).body.adjustments as unknown[];
      };
      expect(await exported(SHOP_A)).toEqual([expect.objectContaining({ reason: 'a parcel lost in the post' })]);
      expect(await exported(SHOP_B)).toEqual([]);
    });

    it('takes points back by hand on its own account, under the same cap, recorded as its own', async () => {
      // A customer with approved points at the merchant's service (its panel approved an order's).
      service.store.earn({
        activityId: '1',
        points: 100,
        name: 'Lin',
        email: 'lin@example.com',
        mobile: '+442079460958',
        description: null,
        orderId: 'reach-1',
      });
      expect(service.store.updatePoints('reach-1', 'approve').ok).toBe(true);
      const take = (points: number, extra: Record<string, unknown> = {}) =>
        as(SHOP_A).post('/adjustments/redeem', { email: 'lin@example.com', points, reason: 'given twice', ...extra });
      const taken = await take(30);
      expect(taken.status).toBe(201);
      expect(taken.body.adjustment).toMatchObject({ kind: 'redeem', outcome: 'success', shop: SHOP_A });
      expect(service.store.snapshot().redemptions).toEqual([expect.objectContaining({ points: 30 })]);
      // More than the customer has: the service's refusal, in its words.
      const over = await take(500);
      expect(over.status).toBe(422);
      expect(over.body.error).toMatch(/exceeds the available balance/);
      // A shop never names an account; the operator's shops take nothing.
      expect((await take(1, { account: 'default' })).status).toBe(400);
      expect(
        (await as(SHOP_L).post('/adjustments/redeem', { email: 'lin@example.com', points: 1, reason: 'mine' })).status,
      ).toBe(403);
    });

    it('reads and changes its own account and its settings', async () => {
      const { body } = await as(SHOP_A).get('/account');
      expect(body).toMatchObject({ standing: 'own', account: { id: idA }, may: { change: true } });
      const renamed = await as(SHOP_A).patch('/account', { name: 'Alpha Club' });
      expect(renamed).toMatchObject({ status: 200, body: { account: { id: idA, name: 'Alpha Club' } } });
      const settings = await as(SHOP_A).patch('/account/settings', { MIN_ORDER_TOTAL: '5' });
      expect(settings.status).toBe(200);
      expect(settings.body.saved).toEqual({ MIN_ORDER_TOTAL: '5' });
      expect((await as(SHOP_A).get('/account/settings')).body.settings.MIN_ORDER_TOTAL).toBeDefined();
      const bad = await as(SHOP_A).patch('/account/settings', { EARN_TRIGGER: 'never', LOYALTY_BASE_URL: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toHaveLength(2);
    });
  });

  describe.skipIf(!available)('another shop', () => {
    it('creates its own account, and sees that one only', async () => {
      const made = await as(SHOP_B).post('/account', accountOf(KEY_B, 'Beta rewards'));
      expect(made.status).toBe(201);
      idB = made.body.account.id;
      // The service knows KEY_A alone: B's key is refused, and B's page says so, with B's own fix.
      expect(made.body.account.check).toMatchObject({ status: 'refused' });
      expect((await as(SHOP_B).get('/attention')).body.attention).toContainEqual(
        expect.objectContaining({ kind: 'credentials_refused', fix: expect.stringMatching(/API key and brand id/) }),
      );
      expect((await as(SHOP_A).get('/attention')).body.attention.map((item: any) => item.kind)).not.toContain(
        'credentials_refused',
      );
      const { body } = await as(SHOP_B).get('/account');
      expect(body.account.id).toBe(idB);
      expect(JSON.stringify(body)).not.toContain(idA);
    });

    it('is told when its service cannot be reached, with the fix its own', async () => {
      // Nothing listens at this address: the check finds no service there.
      const closed = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as AddressInfo;
          server.close(() => resolve(port));
        });
      });
      const moved = await as(SHOP_B).patch('/account', { baseUrl: `http://127.0.0.1:${closed}`, apiKey: KEY_B });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.account.check).toMatchObject({ status: 'unreachable' });
      const attention = (await as(SHOP_B).get('/attention')).body.attention as Array<{ kind: string; fix: string }>;
      expect(attention).toContainEqual(
        expect.objectContaining({ kind: 'service_unreachable', fix: expect.stringMatching(/service’s address/) }),
      );
      expect(attention.map((item) => item.kind)).not.toContain('credentials_refused');
    });

    it('cannot read or change A’s account, A’s shop, or any link, by any route', async () => {
      for (const [method, path, body] of [
        ['GET', `/accounts/${idA}`],
        ['GET', '/accounts'],
        ['PATCH', `/accounts/${idA}`, { name: 'mine now' }],
        ['PATCH', `/accounts/${idA}/settings`, { MIN_ORDER_TOTAL: '1000' }],
        ['DELETE', `/accounts/${idA}`],
        ['POST', `/accounts/${idA}/check`, {}],
        ['GET', `/accounts/${idA}/settings`],
        ['GET', '/shops'],
        ['PATCH', `/shops/shopify/${SHOP_B}`, { account: idA }],
        ['PATCH', `/shops/shopify/${SHOP_A}`, { account: idB }],
        ['GET', '/audit'],
      ] as Array<[string, string, unknown?]>) {
        const answer = await call(session(SHOP_B), method, path, body);
        expect([method, path, answer.status]).toEqual([method, path, 403]);
      }
      expect((await operator.get(`/accounts/${idA}`)).body.account.name).toBe('Alpha Club');
      expect(await earnsOn(SHOP_A)).toBe(idA);
      expect(await earnsOn(SHOP_B)).toBe(idB);
    });

    it('cannot link itself to an existing account: the creation takes no account, id or shop', async () => {
      for (const extra of [{ id: idA }, { account: idA }, { madeFor: { platform: 'shopify', shop: SHOP_A } }]) {
        const answer = await as(SHOP_B).post('/account', { ...accountOf(KEY_B, 'sneaky'), ...extra });
        expect(answer.status).toBe(400);
      }
      expect(await earnsOn(SHOP_B)).toBe(idB);
      expect((await operator.get('/accounts')).body.accounts).toHaveLength(3);
    });
  });

  describe.skipIf(!available)('the operator’s shops and accounts', () => {
    it('are beyond a shop on the default account: nothing to read, change, or replace', async () => {
      const { body } = await as(SHOP_L).get('/account');
      expect(body).toMatchObject({ account: null, standing: 'operator', may: { read: false, create: false } });
      // Nothing of the operator's account, nor its customers' points.
      const points = await as(SHOP_L).get('/customers/points?email=grace%40example.com');
      expect(points.status).toBe(403);
      const given = await as(SHOP_L).post('/adjustments/earn', {
        activityId: '1',
        name: 'Grace',
        email: 'grace@example.com',
        mobile: '+12125550142',
        reason: 'on the operator’s account',
      });
      expect(given.status).toBe(403);
      expect(JSON.stringify(points.body)).not.toMatch(/balance|earned/);
      expect(body.note).toContain('operator');
      for (const [method, path, payload] of [
        ['POST', '/account', accountOf(KEY_A, 'mine')],
        ['PATCH', '/account', { name: 'mine' }],
        ['PATCH', '/account/settings', { EARN_TRIGGER: 'placed' }],
        ['GET', '/account/settings'],
        ['PATCH', '/accounts/default', { name: 'mine' }],
      ] as Array<[string, string, unknown?]>)
        expect([method, path, (await call(session(SHOP_L), method, path, payload)).status]).toEqual([
          method,
          path,
          403,
        ]);
      expect(await earnsOn(SHOP_L)).toBe('default');
    });

    it('takes an account from its shop once the operator shares it with another shop; the shop may make a new one', async () => {
      // The operator moves B onto A's account: it is no longer A's alone.
      expect((await operator.patch(`/shops/shopify/${SHOP_B}`, { account: idA })).status).toBe(200);
      const seenByA = await as(SHOP_A).get('/account');
      expect(seenByA.body).toMatchObject({ account: null, standing: 'outgrown', may: { read: false, create: true } });
      expect((await as(SHOP_A).patch('/account', { name: 'still mine?' })).status).toBe(403);
      expect((await as(SHOP_A).patch('/account/settings', { MIN_ORDER_TOTAL: '1' })).status).toBe(403);
      // B, on an account made for A, sees nothing of it.
      expect((await as(SHOP_B).get('/account')).body).toMatchObject({ account: null, standing: 'operator' });
      expect((await as(SHOP_B).post('/account', accountOf(KEY_B, 'back to mine'))).status).toBe(403);

      const fresh = await as(SHOP_A).post('/account', accountOf(KEY_A2, 'Alpha again'));
      expect(fresh.status).toBe(201);
      expect(fresh.body.account.id).not.toBe(idA);
      expect(await earnsOn(SHOP_A)).toBe(fresh.body.account.id);
      expect(await earnsOn(SHOP_B)).toBe(idA);
      expect((await as(SHOP_A).get('/account')).body).toMatchObject({
        standing: 'own',
        account: { name: 'Alpha again' },
      });
    });

    it('makes at most three accounts for its shop', async () => {
      expect((await as(SHOP_A).post('/account', accountOf(KEY_A2, 'Alpha, third'))).status).toBe(201);
      const fourth = await as(SHOP_A).post('/account', accountOf(KEY_A2, 'Alpha, fourth'));
      expect(fourth.status).toBe(409);
      expect(fourth.body.errors).toEqual([expect.stringMatching(/has made 3 loyalty accounts already/)]);
    });

    it('lets the bridge’s own shop token (the app outside the admin) reach the same, and no further', async () => {
      const shopToken = bridgeShopTokens([APP_SECRET], Date.now, modulePagePurpose('shopify')).mint(SHOP_A);
      expect((await call(shopToken, 'GET', '/account')).body).toMatchObject({ standing: 'own' });
      expect((await call(shopToken, 'GET', `/accounts/${idA}`)).status).toBe(403);
    });
  });

  describe.skipIf(!available)('keys', () => {
    it('are in no answer a shop or the operator got', async () => {
      await operator.get('/accounts');
      const everything = answers.join('\n');
      expect(everything).toContain('…AAAA');
      for (const key of [KEY_A, KEY_A2, KEY_B]) expect(everything).not.toContain(key);
    });
  });
});
