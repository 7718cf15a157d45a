// Only the merchant's shops: a shop is served when SHOPIFY_SHOPS lists it,
// when a signed-in operator started its install from the dashboard, or,
// with SHOPIFY_OPEN_INSTALLS=true, always. Any other shop is refused at the
// install and at the App URL with a page that says why; its deliveries are
// acknowledged, ignored with the reason, counted on the connections panel,
// and nothing of it earns.
import { describe, expect, it } from 'vitest';
import { shopifyOrderNode } from '../helpers/fake-shopify.ts';
import { postShopifyOrder, shopifyHeaders } from '../helpers/shopify.ts';
import { APP_KEY, APP_SECRET, CHROME_UA, shopifyAppSuite } from '../helpers/shopify-app-bridge.ts';
import { appUrlQuery, mintSessionToken } from '../helpers/shopify-app-links.ts';
import { SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';
import { raw } from '../helpers/raw-records.ts';

const OURS = 'our-store.myshopify.com';
const STRANGER = 'stranger-store.myshopify.com';
const ADMIN_TOKEN = 'operator-admin-token-0123456789';

const suite = shopifyAppSuite({ ADMIN_TOKEN, SHOPIFY_SHOPS: OURS });
const { start } = suite;
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${suite.running.url}${path}`, { redirect: 'manual', headers: { 'user-agent': CHROME_UA, ...headers } });
const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${suite.running.url}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
const deliver = (shop: string, id: string) =>
  postShopifyOrder(suite.running.url, shop, id, { secret: APP_SECRET, order: { customerPhone: '+1 212 555 0142' } });

describe('a shop the bridge does not serve', () => {
  it('is refused at the install with a page that says why', async () => {
    await start();
    const response = await get(`/shopify/auth?shop=${STRANGER}`);
    expect(response.status).toBe(403);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('This bridge does not serve this shop');
    expect(page).toContain('SHOPIFY_SHOPS');
  });

  it('is refused at the App URL with a page that says why, which its own admin may frame', async () => {
    await start();
    const response = await get(
      `${SHOPIFY_APP_URL_PATH}?${appUrlQuery({ shop: STRANGER, secret: APP_SECRET, idToken: mintSessionToken({ shop: STRANGER, apiKey: APP_KEY, secret: APP_SECRET }) })}`,
    );
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(`${STRANGER} is not one of this bridge&#39;s shops`);
    expect(response.headers.get('content-security-policy')).toContain(
      `frame-ancestors https://${STRANGER} https://admin.shopify.com`,
    );
    expect(await suite.running.bridge.engine.store.listRecords(raw('session'))).toEqual([]);
  });

  it('has its deliveries acknowledged and ignored with the reason, counted on the connections panel, and earns nothing', async () => {
    await start();
    const refused = await deliver(STRANGER, '7100000001');
    expect(refused).toEqual({
      status: 200,
      body: { result: 'ignored', reason: expect.stringContaining(`${STRANGER} is not one of this bridge's shops`) },
    });
    expect((await deliver(STRANGER, '7100000002')).body.result).toBe('ignored');
    expect((await deliver(OURS, '7100000003')).body.result).toBe('accepted');
    await suite.running.bridge.engine.drain();

    const { orders } = await suite.running.bridge.engine.store.listOrders({ page: 1, limit: 10 });
    expect(orders.map((order) => order.shop)).toEqual([OURS]);
    expect(await suite.running.bridge.engine.store.listDeadLetters()).toEqual([]);
    expect(suite.running.bridge.sandbox!.store.snapshot().earnings.map((earning) => earning.orderId)).toEqual([
      '7100000003',
    ]);

    const { connections } = (await (await admin('/connections')).json()) as {
      connections: Array<{ platform: string; notAllowedLastHour: number; notAllowedShops: string[] }>;
    };
    expect(connections.find((connection) => connection.platform === 'shopify')).toMatchObject({
      notAllowedLastHour: 2,
      notAllowedShops: [STRANGER],
    });
  });

  it('still has its uninstall and privacy requests kept, as they only take data away', async () => {
    await start();
    const body = JSON.stringify({ shop_id: 1, shop_domain: STRANGER });
    const response = await fetch(`${suite.running.url}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'shop/redact', body, shop: STRANGER, secret: APP_SECRET }),
      body,
    });
    expect(await response.json()).toEqual({ result: 'accepted' });
  });

  it('is not reconciled, nor resynced, even with a token the ledger still holds from before', async () => {
    await start();
    // An install from before the bridge kept a list of shops.
    await suite.running.bridge.engine.store.putRecord(raw('session'), `shopify:${STRANGER}`, {
      platform: 'shopify',
      shop: STRANGER,
      mode: 'oauth',
      accessToken: 'shpat_from_before',
      expiresAt: null,
      updatedAt: new Date().toISOString(),
    });
    suite.fake.registerToken('shpat_from_before', STRANGER);
    suite.fake.shop(STRANGER).orders.set('7200000001', shopifyOrderNode('7200000001'));
    const before = suite.fake.requests.filter((request) => request.shop === STRANGER).length;

    await suite.running.bridge.reconciler.runAll();
    const resync = await admin('/resync', {
      method: 'POST',
      body: JSON.stringify({ platform: 'shopify', shop: STRANGER, since: '2026-01-01' }),
    });
    expect(resync.status).toBe(400);
    expect(suite.fake.requests.filter((request) => request.shop === STRANGER).length).toBe(before);
    expect((await suite.running.bridge.engine.store.listOrders({ page: 1, limit: 10, shop: STRANGER })).total).toBe(0);
  });
});

describe('a shop the operator installs from the dashboard', () => {
  it('is allowed once the signed-in operator starts its install, and only then', async () => {
    await start();
    expect((await get(`/shopify/auth?shop=${STRANGER}`)).status).toBe(403);
    // Without the operator's token, nobody can make a shop one of the bridge's.
    expect(
      (
        await fetch(`${suite.running.url}/admin/api/shopify/installs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ shop: STRANGER }),
        })
      ).status,
    ).toBe(401);

    // The dashboard learns which platforms it installs on from the list of platforms.
    const { platforms } = (await (await admin('/platforms')).json()) as {
      platforms: Array<{ name: string; installs: boolean }>;
    };
    expect(platforms.filter((each) => each.installs).map((each) => each.name)).toEqual(['shopify']);
    const started = await admin('/shopify/installs', { method: 'POST', body: JSON.stringify({ shop: STRANGER }) });
    expect(started.status).toBe(201);
    const { next } = (await started.json()) as { next: string };
    const consent = await get(next);
    expect(consent.status).toBe(302);
    expect(new URL(consent.headers.get('location')!).host).toBe(STRANGER);
    expect((await deliver(STRANGER, '7300000001')).body.result).toBe('accepted');
  });
});

describe('open installs (an App Store app)', () => {
  it('serve any shop with SHOPIFY_OPEN_INSTALLS=true', async () => {
    await start({ SHOPIFY_SHOPS: '', SHOPIFY_OPEN_INSTALLS: 'true' });
    expect((await get(`/shopify/auth?shop=${STRANGER}`)).status).toBe(302);
    expect((await deliver(STRANGER, '7400000001')).body.result).toBe('accepted');
  });
});
