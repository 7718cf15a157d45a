// The bridge as a BigCommerce single-click app, against the running bridge
// and a fake BigCommerce over HTTP (test/helpers/fake-bigcommerce.ts, from
// BigCommerce's documentation): installing on two stores from the control
// panel, opening the app, its hooks kept alive, uninstalling; and how
// deliveries are authenticated when a hook carries the bridge's header
// secret but is signed with a client secret the bridge does not hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BigCommerceInstall } from '../../adapters/bigcommerce/stores.ts';
import { BC_SECRET_HEADER } from '../../adapters/bigcommerce/verify.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import type { ShopState } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import {
  bcHeaders,
  bcOrder,
  bcPageTokens,
  BC_PAGE_PREFIX,
  bcPayload,
  BC_STORE,
  appAt,
} from '../helpers/bigcommerce.ts';
import { bridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { keptPageKey } from '../../src/composition/kept-page-key.ts';
import { eventually } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'bc-app-admin-token-0123456789abcdef';
const CLIENT_ID = 'bc-app-client-id';
const CLIENT_SECRET = 'bc-app-client-secret-for-tests';
const HEADER_SECRET = 'bc-configured-header-secret-0123456789';
const SCOPES = [
  'store/order/archived',
  'store/order/created',
  'store/order/refund/created',
  'store/order/statusUpdated',
  'store/order/updated',
];

let bc: FakeBigCommerce;
/** The session alpha1's load handed its page. */
let alphaSession = '';
let bridge: RunningBridge;
const logText: string[] = [];

const install = (hash: string) =>
  bridge.engine.store.getRecord(raw<BigCommerceInstall>('session'), `bigcommerce:${hash}`);
const earnings = (orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];
const post = async (body: string, headers: Record<string, string>) =>
  (await fetch(`${bridge.http.localUrl}/webhooks/bigcommerce`, { method: 'POST', headers, body })).status;

beforeAll(async () => {
  bc = await startFakeBigCommerce({ storeHash: BC_STORE, accessToken: 'configured-token' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  bc.registerApp(appAt(url, CLIENT_ID, CLIENT_SECRET));
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logText.push(line) } });
  bridge = await startTestBridge(
    {
      PORT: String(port),
      PUBLIC_URL: url,
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
      BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      // The store configured by hand too: an API account's token, hooks with the header secret.
      BIGCOMMERCE_STORE_HASH: BC_STORE,
      BIGCOMMERCE_ACCESS_TOKEN: 'configured-token',
      BIGCOMMERCE_WEBHOOK_SECRET: HEADER_SECRET,
      // The stores that install the app below: only listed stores may.
      BIGCOMMERCE_STORES: 'alpha1,beta2',
      LOYALTY_ORDER_ID_PREFIXES: 'bigcommerce:alpha1=3,bigcommerce:beta2=4',
      EXCLUDED_SOURCES: 'pos',
    },
    logger,
  );
}, 30_000);
afterAll(async () => {
  await bridge?.stop();
  await bc?.close();
});

describe('installing from the control panel', () => {
  it('exchanges the code for the store’s token, shows the store’s page, makes its hooks, and its orders earn', async () => {
    const answer = await bc.install('alpha1');
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('store alpha1');
    // Words alone: the install's address proves nothing of the browser it is opened in, so it signs nobody in.
    expect(answer.body).not.toContain('loyalty-bridge-session');
    expect(answer.body).not.toContain('<script');
    const kept = await install('alpha1');
    expect(kept).toMatchObject({ shop: 'alpha1', scope: 'store_v2_orders_read_only store_v2_information_read_only' });
    expect(bc.stores.get('alpha1')?.tokens.get(kept!.accessToken)).toBe(CLIENT_SECRET);
    expect(await bridge.engine.store.getRecord(raw<ShopState>('shop'), 'bigcommerce:alpha1')).toMatchObject({
      uninstalledAt: null,
    });

    const hooks = bc.stores.get('alpha1')!.hooks;
    await eventually(() => expect(hooks.map((hook) => hook.scope).sort()).toEqual(SCOPES), 10_000);
    // No header secret: BigCommerce signs an app's hooks with its client secret, and that alone is checked.
    for (const hook of hooks) {
      expect(hook).toMatchObject({ is_active: true, destination: `${bridge.http.localUrl}/webhooks/bigcommerce` });
      expect(hook.headers ?? {}).toEqual({});
    }

    bc.stores.get('alpha1')!.orders.set(5001, bcOrder(5001, 11, { email: 'alpha@example.com' }));
    // Signed the Standard Webhooks way with the app's client secret, as BigCommerce signs an app's hooks.
    expect(await bc.deliver('store/order/created', 5001, { store: 'alpha1', signWith: CLIENT_SECRET })).toEqual([200]);
    await bridge.engine.drain();
    expect(earnings('35001')).toEqual([expect.objectContaining({ status: 'pending', email: 'alpha@example.com' })]);
    expect(`${answer.body}${logText.join('')}`).not.toContain(kept!.accessToken);
  }, 30_000);

  it('serves a second store beside it: its own token and secret, apart in orders and points', async () => {
    expect((await bc.install('beta2')).status).toBe(200);
    await eventually(() => expect(bc.stores.get('beta2')!.hooks).toHaveLength(SCOPES.length), 10_000);
    const [alpha, beta] = [(await install('alpha1'))!, (await install('beta2'))!];
    expect(alpha.accessToken).not.toBe(beta.accessToken);

    bc.stores.get('alpha1')!.orders.set(6000, bcOrder(6000, 11, { email: 'alpha@example.com' }));
    bc.stores.get('beta2')!.orders.set(6000, bcOrder(6000, 11, { email: 'beta@example.com' }));
    expect(await bc.deliver('store/order/created', 6000, { store: 'alpha1' })).toEqual([200]);
    expect(await bc.deliver('store/order/created', 6000, { store: 'beta2' })).toEqual([200]);
    // Both stores' order 6000 created in the same second: the same payload hash, two deliveries. Read after each answer, it earns before it is cancelled.
    await bridge.engine.drain();
    bc.stores.get('beta2')!.orders.set(6000, bcOrder(6000, 5, { email: 'beta@example.com' }));
    expect(await bc.deliver('store/order/statusUpdated', 6000, { store: 'beta2' })).toEqual([200]);
    await bridge.engine.drain();
    expect(earnings('36000')).toEqual([expect.objectContaining({ status: 'pending', email: 'alpha@example.com' })]);
    expect(earnings('46000')).toEqual([expect.objectContaining({ status: 'cancelled', email: 'beta@example.com' })]);

    // The configured store's header secret does not open an installed store's door.
    const body = bcPayload('store/order/created', 6001).replace(`stores/${BC_STORE}`, 'stores/alpha1');
    expect(await post(body, { 'content-type': 'application/json', [BC_SECRET_HEADER]: HEADER_SECRET })).toBe(401);

    // Each store's orders are read with its own token, and reconciled on their own.
    await bridge.reconciler.runAll();
    const { connections } = (await (
      await fetch(`${bridge.http.localUrl}/admin/api/connections`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as { connections: Array<{ platform: string; subscriptions: Array<{ shop: string }> }> };
    expect(
      connections
        .find((each) => each.platform === 'bigcommerce')
        ?.subscriptions.map((each) => each.shop)
        .sort(),
    ).toEqual(['alpha1', 'beta2', BC_STORE].sort());
  }, 30_000);

  it('turns a hook BigCommerce deactivated back on at the next reconciliation', async () => {
    const hook = bc.stores.get('beta2')!.hooks.find((each) => each.scope === 'store/order/statusUpdated')!;
    hook.is_active = false;
    await bridge.reconciler.run('bigcommerce', 'beta2');
    expect(hook.is_active).toBe(true);
    const health = await bridge.engine.store.getRecord(
      raw<{ repaired: string[] }>('platform-health'),
      'bigcommerce:beta2',
    );
    expect(health?.repaired).toEqual([`store/order/statusUpdated: reactivated hook ${hook.id}`]);
  });
});

describe('opening the app', () => {
  it('opens that store’s own pages for a load the client secret signed, with a session for that store alone', async () => {
    const loaded = await fetch(
      `${bridge.http.localUrl}/bigcommerce/load?signed_payload_jwt=${bc.signedPayload('alpha1', { user: { id: 77, email: 'owner@alpha.example' } })}`,
    );
    const answer = {
      status: loaded.status,
      headers: Object.fromEntries(loaded.headers),
      body: await loaded.text(),
    };
    expect(answer.status).toBe(200);
    // The merchant's page, with the bridge's stand-ins for Polaris and App Bridge, framed by the control panel only.
    expect(answer.body).toContain('<script src="/merchant/elements.js"></script>');
    expect(answer.body).toContain('<script src="/merchant/merchant.js" type="module"></script>');
    expect(answer.body).not.toContain('cdn.shopify.com');
    expect(answer.headers['content-security-policy']).toContain(
      'frame-ancestors https://*.bigcommerce.com https://*.mybigcommerce.com',
    );
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
    expect(answer.headers['cache-control']).toBe('no-store');
    const session = /name="loyalty-bridge-session" content="([^"]+)"/.exec(answer.body)?.[1] ?? '';
    expect(session.startsWith(BC_PAGE_PREFIX)).toBe(true);
    alphaSession = session;
    const asStore = async (path: string, token = session) => {
      const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    expect((await asStore('/session')).body).toEqual({
      caller: 'shop',
      platform: 'bigcommerce',
      shop: 'alpha1',
      storeName: 'The alpha1 Shop',
    });
    const orders = (await asStore('/orders')).body.orders as Array<{ shop: string; orderName: string }>;
    expect(orders.map((order) => order.shop)).toEqual(orders.map(() => 'alpha1'));
    expect(orders.length).toBeGreaterThan(0);
    // Another store's order, the operator's routes, and a tampered session: none of them.
    expect((await asStore('/orders/bigcommerce:beta2:6000')).status).toBe(404);
    expect((await asStore('/accounts')).status).toBe(403);
    const [payload, mac] = session.slice(BC_PAGE_PREFIX.length).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${BC_PAGE_PREFIX}${Buffer.from(JSON.stringify({ ...claims, shop: 'beta2' })).toString('base64url')}.${mac}`;
    expect((await asStore('/session', forged)).status).toBe(401);
    // A Shopify shop-page token made with the same key is not a BigCommerce one (another purpose, another key).
    const pageTokens = await bcPageTokens(bridge);
    const pageKey = await keptPageKey(bridge.engine.store, 'bigcommerce-store-page');
    for (const secret of [pageKey, CLIENT_SECRET])
      expect(
        (await asStore('/session', bridgeShopTokens([secret], Date.now, modulePagePurpose('shopify')).mint('alpha1')))
          .status,
      ).toBe(401);
    expect((await asStore('/session', pageTokens.mint('alpha1'))).status).toBe(200);
  });

  it.each([
    ['signed with another secret', () => bc.signedPayload('alpha1', {}, 'not-the-client-secret')],
    ['for another app', () => bc.signedPayload('alpha1', { aud: 'another-app' })],
    ['expired', () => bc.signedPayload('alpha1', { exp: Math.floor(Date.now() / 1000) - 3_600 })],
    ['from another issuer', () => bc.signedPayload('alpha1', { iss: 'someone' })],
    [
      'unsigned (alg none)',
      () => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${bc.signedPayload('alpha1').split('.')[1]}.`,
    ],
  ])('refuses a load %s with 401', async (_name, jwt) => {
    expect((await bc.load('alpha1', jwt())).status).toBe(401);
  });

  it('says so when the app is not installed on the store', async () => {
    expect((await bc.load('nostore9')).status).toBe(404);
  });
});

describe('deliveries a hook made with a store API account brings', () => {
  const configured = () => bc.stores.get(BC_STORE)!;

  it('accepts one with the header secret and a signature from a client secret the bridge does not hold', async () => {
    configured().orders.set(7001, bcOrder(7001, 11));
    const body = bcPayload('store/order/created', 7001);
    const headers = {
      ...bcHeaders(body, { secret: 'the-api-accounts-own-client-secret' }),
      [BC_SECRET_HEADER]: HEADER_SECRET,
    };
    expect(await post(body, headers)).toBe(200);
    await bridge.engine.drain();
    expect(earnings('7001')).toEqual([expect.objectContaining({ status: 'pending' })]);
  });

  it('answers 401 to one with neither a header secret nor a signature it can check, and keeps nothing', async () => {
    configured().orders.set(7002, bcOrder(7002, 11));
    const body = bcPayload('store/order/created', 7002);
    expect(
      await post(body, {
        ...bcHeaders(body, { secret: 'the-api-accounts-own-client-secret' }),
        [BC_SECRET_HEADER]: 'x'.repeat(HEADER_SECRET.length),
      }),
    ).toBe(401);
    expect(await post(body, { 'content-type': 'application/json' })).toBe(401);
    await bridge.engine.drain();
    expect(await bridge.engine.store.getOrder(`bigcommerce:${BC_STORE}:7002`)).toBeUndefined();
    expect((await bridge.engine.store.stats()).inboxBacklog).toBe(0);
    expect(earnings('7002')).toEqual([]);
  });

  it('keeps a point-of-sale order out with EXCLUDED_SOURCES=pos, and takes the currency the totals are in', async () => {
    configured().orders.set(7003, { ...bcOrder(7003, 11), order_source: 'external', external_source: 'POS (Square)' });
    configured().orders.set(7004, {
      ...bcOrder(7004, 11),
      currency_code: 'USD',
      default_currency_code: 'EUR',
      currency_exchange_rate: '1.0800000000',
    });
    for (const id of [7003, 7004]) {
      const body = bcPayload('store/order/created', id);
      expect(await post(body, { 'content-type': 'application/json', [BC_SECRET_HEADER]: HEADER_SECRET })).toBe(200);
    }
    await bridge.engine.drain();
    expect(await bridge.engine.store.getOrder(`bigcommerce:${BC_STORE}:7003`)).toMatchObject({
      target: { state: 'skipped', reason: 'excluded_source' },
      snapshot: { source: 'pos' },
    });
    expect(earnings('7003')).toEqual([]);
    expect((await bridge.engine.store.getOrder(`bigcommerce:${BC_STORE}:7004`))?.snapshot.total).toEqual({
      amount: '150.0000',
      currency: 'EUR',
    });
  });
});

describe('uninstalling', () => {
  it('forgets the store’s token and marks it uninstalled; a forged uninstall changes nothing', async () => {
    expect((await bc.uninstall('beta2', bc.signedPayload('beta2', {}, 'forged'))).status).toBe(401);
    expect(await install('beta2')).toBeDefined();

    const answer = await bc.uninstall('beta2');
    expect(answer.status).toBe(200);
    expect(await install('beta2')).toBeUndefined();
    expect(await bridge.engine.store.getRecord(raw<ShopState>('shop'), 'bigcommerce:beta2')).toMatchObject({
      uninstalledAt: expect.any(String),
    });
    expect(bridge.reconciler.platforms).toContain('bigcommerce');
    const reached = await bridge.platforms.sources.find((source) => source.platform === 'bigcommerce')!.shops();
    expect(reached.sort()).toEqual(['alpha1', BC_STORE].sort());
    expect((await bc.load('beta2')).status).toBe(404);
    // A page opened before the uninstall holds a session for an hour: it reaches nothing of the store now.
    const beta = (await bcPageTokens(bridge)).mint('beta2');
    const after = await fetch(`${bridge.http.localUrl}/admin/api/orders`, {
      headers: { authorization: `Bearer ${beta}` },
    });
    expect(after.status).toBe(401);
    expect(alphaSession).not.toBe('');
  });
});
