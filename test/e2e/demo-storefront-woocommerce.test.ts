// The WooCommerce demo store page's edges, as `npm start` starts it with nothing configured: the page plays the
// WordPress plugin's identity route for the demo's site alone (its token checked by the bridge with the module's own
// check, under the key made from this run's secret), as WordPress does (a cookie's customer only with the page's
// REST nonce); it answers the widget's own routes and nothing else; and once the demo stops, the page, the plugin's
// routes and the tokens they signed are gone.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoIdentityToken } from '../../adapters/woocommerce/demo-storefront.ts';
import { wooWidgetScript } from '../../adapters/woocommerce/storefront-widget.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { demoSignIn, startFirstRunBridge } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { expectDemoRewardsOffered } from '../helpers/demo-rewards.ts';

const SITE = 'demo-woocommerce.loyalty-bridge.invalid';
const IDENTITY = 'wp/?rest_route=/loyalty-bridge/v1/identity';

describe('the WooCommerce demo store page', () => {
  let bridge: RunningBridge;
  let page = '';
  /** This run's sign-in cookie, as the page's sign-in sets it. */
  let SIGNED_IN = { cookie: '' };
  let points = '';

  /** The REST nonce the page printed on the widget's tag, for who the cookie says is signed in. */
  async function nonceOf(headers: Record<string, string>): Promise<string> {
    const html = await (await fetch(page, { headers })).text();
    return /data-rest-nonce="([0-9a-f]{10})"/.exec(html)![1]!;
  }

  beforeAll(async () => {
    bridge = await startFirstRunBridge();
    page = `${bridge.firstRun!.storefrontLink()!}woocommerce/`;
    SIGNED_IN = await demoSignIn(page);
    points = `${bridge.http.localUrl}/woocommerce/storefront/points`;
  }, 60_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it('loads the widget a WooCommerce store loads, on the tag the plugin prints', async () => {
    const html = await (await fetch(page)).text();
    expect(html).toContain(`src="/demo/storefront/woocommerce/assets/widget.js?store=${SITE}"`);
    expect(html).toMatch(/data-site="\/demo\/storefront\/woocommerce\/wp\/" data-admin="[^"]+\/wp-admin\/"/);
    const script = await fetch(`${page}assets/widget.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(wooWidgetScript(''));
  });

  it('answers a guest as the plugin does: no token, and the bridge shows the reward and the ways to earn', async () => {
    expect((await fetch(`${page}${IDENTITY}`)).status).toBe(401);
    expect((await fetch(`${page}${IDENTITY}`, { headers: { 'x-wp-nonce': await nonceOf({}) } })).status).toBe(401);
    const answer = await fetch(`${points}?store=${SITE}`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, any>;
    expect(body.balance ?? null).toBeNull();
    expectDemoRewardsOffered(body.rewards);
    expect(body.waysToEarn).toEqual(expect.arrayContaining([expect.anything()]));
  });

  it('signs the signed-in customer with the page’s nonce alone, and the bridge reads them from the token', async () => {
    // The cookie without the nonce is a guest's call; with another nonce (a guest's), refused, as WordPress does.
    expect((await fetch(`${page}${IDENTITY}`, { headers: SIGNED_IN })).status).toBe(401);
    const guestNonce = await nonceOf({});
    expect((await fetch(`${page}${IDENTITY}`, { headers: { ...SIGNED_IN, 'x-wp-nonce': guestNonce } })).status).toBe(
      403,
    );
    const nonce = await nonceOf(SIGNED_IN);
    const identity = await fetch(`${page}${IDENTITY}`, { headers: { ...SIGNED_IN, 'x-wp-nonce': nonce } });
    expect(identity.status).toBe(200);
    expect(identity.headers.get('cache-control')).toBe('no-store');
    const { token } = (await identity.json()) as { token: string };
    const answer = await fetch(points, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Record<string, any>).customer).toBe('signed-in');
    // admin-ajax's rest-nonce: a fresh nonce for whoever is signed in, none for a guest.
    const fresh = await fetch(`${page}wp/wp-admin/admin-ajax.php?action=rest-nonce`, { headers: SIGNED_IN });
    expect(await fresh.text()).toBe(nonce);
    expect((await fetch(`${page}wp/wp-admin/admin-ajax.php?action=rest-nonce`)).status).toBe(400);
  });

  it('is the only way in: the storefront route refuses a token signed with another secret, or none', async () => {
    const forged = demoIdentityToken({
      shop: SITE,
      customerId: '14',
      email: 'katherine@example.com',
      secret: 'not this run’s',
    });
    expect((await fetch(points, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
    expect((await fetch(points)).status).toBe(401);
    expect((await fetch(points, { headers: { authorization: 'Bearer 14' } })).status).toBe(401);
  });

  it('answers nothing but the widget’s own routes, and nothing that climbs out of them', async () => {
    expect((await fetch(`${page}wp/?rest_route=/wp/v2/users`, { headers: SIGNED_IN })).status).toBe(404);
    expect((await fetch(`${page}wp/wp-admin/admin-ajax.php?action=heartbeat`, { headers: SIGNED_IN })).status).toBe(
      404,
    );
    // Sent as written (fetch resolves dot segments itself, "%2E%2E" too): the bridge's admin API, three segments up.
    const status = await new Promise<number>((resolve, reject) => {
      const { host, pathname } = new URL(page);
      const sent = request(
        {
          host: host.split(':')[0],
          port: host.split(':')[1],
          path: `${pathname}wp/%2E%2E/%2E%2E/%2E%2E/%2E%2E/admin/api/accounts`,
        },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        },
      );
      sent.on('error', reject).end();
    });
    expect(status).toBe(404);
  });

  it('opens the WooCommerce demo shop’s own page once with its own link, for that shop alone', async () => {
    const shopify = new URL(bridge.firstRun!.pageLink()!);
    const link = bridge.firstRun!.pageLink('woocommerce')!;
    expect(link).toMatch(/\/demo\/shop\/woocommerce\?ticket=[\w-]{20,}$/);
    // The Shopify shop's ticket opens no other shop's page.
    expect((await fetch(`${bridge.http.localUrl}/demo/shop/woocommerce${shopify.search}`)).status).toBe(401);
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    const session = /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(await opened.text())?.[1];
    expect((await fetch(link)).status).toBe(401);
    // Once the demo's first orders came: the session's shop's alone.
    await eventually(async () => {
      const orders = (await (
        await fetch(`${bridge.http.localUrl}/admin/api/orders?limit=100`, {
          headers: { authorization: `Bearer ${session}` },
        })
      ).json()) as { orders: Array<{ platform: string; shop: string }> };
      expect(orders.orders.length).toBeGreaterThan(0);
      expect(new Set(orders.orders.map(({ platform, shop }) => `${platform} ${shop}`))).toEqual(
        new Set([`woocommerce ${SITE}`]),
      );
    }, 30_000);
  }, 40_000);

  it('is gone once the demo stops (a store of the merchant’s connected): the page, the plugin’s routes, its tokens', async () => {
    const nonce = await nonceOf(SIGNED_IN);
    const { token } = (await (
      await fetch(`${page}${IDENTITY}`, { headers: { ...SIGNED_IN, 'x-wp-nonce': nonce } })
    ).json()) as { token: string };
    bridge.firstRun!.stop();
    expect((await fetch(page)).status).toBe(410);
    expect((await fetch(bridge.http.localUrl + '/demo/storefront/')).status).toBe(410);
    expect((await fetch(`${page}${IDENTITY}`, { headers: { ...SIGNED_IN, 'x-wp-nonce': nonce } })).status).toBe(410);
    expect((await fetch(points, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(bridge.firstRun!.storefrontLink()).toBeUndefined();
  });
});

describe('a first run with the bridge’s public address set (issue 68’s review)', () => {
  it('plays no demo: a bridge others can reach has no demo store, shop page or demo customer', async () => {
    const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' };
    const loaded = loadConfig({ env: { ...env, PUBLIC_URL: 'https://bridge.example.com' } });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 150 });
    try {
      expect(bridge.firstRun).toBeUndefined();
      expect(bridge.demo).toBeUndefined();
      for (const path of ['/demo/storefront/', '/demo/storefront/woocommerce/', '/customer/current.jwt'])
        expect((await fetch(`${bridge.http.localUrl}${path}`, { headers: { cookie: 'demo_customer=1' } })).status).toBe(
          404,
        );
    } finally {
      await bridge.stop();
    }
  }, 60_000);
});
