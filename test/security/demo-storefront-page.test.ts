// The demo store page's edges, as `npm start` starts it with nothing configured: the bridge's storefront route
// takes only what the demo's proxy signed with this run's secret (the platform's own check), the proxy forwards
// the widget's paths and nothing that climbs out of them, and once the demo stops the page and its proxy are gone.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { demoSignIn, startFirstRunBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { signProxyQuery } from '../helpers/shopify-proxy-signer.ts';
import { expectDemoRewardsOffered } from '../helpers/demo-rewards.ts';

const SHOP = 'loyalty-bridge-demo.myshopify.com';
const SESSION = /<meta name="loyalty-bridge-session" content="([^"]+)">/;
type DataRequest = { id: string; customer: { email?: string } };

describe('the demo store page', () => {
  let bridge: RunningBridge;
  let page = '';

  beforeAll(async () => {
    bridge = await startFirstRunBridge();
    page = `${bridge.firstRun!.storefrontLink()!}shopify/`;
  }, 60_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it('answers a guest through its proxy: the reward and the ways to earn, no balance', async () => {
    const answer = await fetch(`${page}apps/loyalty/points`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, any>;
    expect(body.balance ?? null).toBeNull();
    expectDemoRewardsOffered(body.rewards);
    expect(body.waysToEarn).toEqual(expect.arrayContaining([expect.anything()]));
  });

  it('is the only way in: the storefront route refuses a call unsigned, or signed with another secret', async () => {
    const route = `${bridge.http.localUrl}/shopify/storefront/points`;
    const pairs: Array<[string, string]> = [
      ['shop', SHOP],
      ['logged_in_customer_id', '7001'],
      ['path_prefix', '/apps/loyalty'],
      ['timestamp', String(Math.floor(Date.now() / 1000))],
    ];
    const unsigned = new URLSearchParams(pairs);
    expect((await fetch(`${route}?${unsigned}`)).status).toBe(401);
    const forged = new URLSearchParams([...pairs, ['signature', signProxyQuery(pairs, 'not this run’s secret')]]);
    expect((await fetch(`${route}?${forged}`)).status).toBe(401);
  });

  it('forwards nothing that climbs out of the widget’s paths', async () => {
    // Sent as written (fetch resolves dot segments itself, "%2E%2E" too): the bridge's admin API, two segments up.
    const status = await new Promise<number>((resolve, reject) => {
      const { host, pathname } = new URL(page);
      const sent = request(
        {
          host: host.split(':')[0],
          port: host.split(':')[1],
          path: `${pathname}apps/loyalty/%2E%2E/%2E%2E/%2E%2E/admin/api/accounts`,
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

  it('signs in with this run’s random cookie alone: a made-up demo_customer=1 is a guest', async () => {
    const customer = async (cookie: string) =>
      ((await (await fetch(`${page}apps/loyalty/points`, { headers: { cookie } })).json()) as { customer: string })
        .customer;
    expect(await customer('demo_customer=1')).toBe('guest');
    const signedIn = await demoSignIn(page);
    expect(signedIn.cookie).not.toBe('demo_customer=1');
    expect(await customer(signedIn.cookie)).toBe('signed-in');
  });

  it('answers a browser on this machine alone: a Host header naming another address finds no demo', async () => {
    const { port, pathname } = new URL(page);
    const statusFor = (host: string, path = pathname) =>
      new Promise<number>((resolve, reject) => {
        const sent = request({ host: '127.0.0.1', port, path, headers: { host } }, (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        });
        sent.on('error', reject).end();
      });
    expect(await statusFor(`localhost:${port}`)).toBe(200);
    expect(await statusFor(`[::1]:${port}`)).toBe(200);
    expect(await statusFor('loyalty.example.com')).toBe(404);
    expect(await statusFor('192.168.1.20:3000')).toBe(404);
    expect(await statusFor('loyalty.example.com', `${pathname}apps/loyalty/points`)).toBe(404);
    expect(await statusFor('loyalty.example.com', '/demo/storefront/')).toBe(404);
  });

  it('takes a call other than GET from its own origin alone: another site on this machine cannot redeem', async () => {
    const { cookie } = await demoSignIn(page);
    const redeem = (headers: Record<string, string>) =>
      fetch(`${page}apps/loyalty/points/redeem?reward=demo-reward`, {
        method: 'POST',
        headers: { cookie, ...headers },
      });
    expect((await redeem({})).status).toBe(403);
    expect((await redeem({ origin: 'http://127.0.0.1:5173' })).status).toBe(403);
    expect((await redeem({ origin: 'null' })).status).toBe(403);
    // From the page's own origin it reaches the bridge (which answers as it does: no points to spend yet here).
    expect((await redeem({ origin: new URL(page).origin })).status).not.toBe(403);
  });

  it('shows as paid only an order its own checkout made: ?paid= names no other order of the demo’s', async () => {
    await eventually(() => expect(bridge.demo!.sentTo('shopify', SHOP).length).toBeGreaterThan(0), 30_000);
    const { number } = bridge.demo!.sentTo('shopify', SHOP)[0]!;
    const html = await (await fetch(`${page}?paid=${number}`)).text();
    expect(html).not.toContain('is paid');
    expect(html).not.toContain('class="paid"');
  });

  it('sends a signed-in customer’s data request as Shopify does; the merchant sees it, exports it, answers it', async () => {
    const origin = new URL(page).origin;
    expect((await fetch(`${page}data-request`, { method: 'POST', headers: { origin } })).status).toBe(400);
    await eventually(() => expect(bridge.demo!.sentTo('shopify', SHOP).length).toBeGreaterThan(0), 30_000);
    const { cookie } = await demoSignIn(page);
    const asked = await fetch(`${page}data-request`, { method: 'POST', headers: { cookie, origin } });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Its owner sees it in Data requests');
    const session = SESSION.exec(await (await fetch(bridge.firstRun!.pageLink('shopify')!)).text())?.[1];
    const asMerchant = (path: string, method = 'GET') =>
      fetch(`${bridge.http.localUrl}/admin/api${path}`, { method, headers: { authorization: `Bearer ${session}` } });
    const requests = async () =>
      ((await (await asMerchant('/privacy/data-requests')).json()) as { dataRequests: DataRequest[] }).dataRequests;
    await eventually(async () => expect(await requests()).toHaveLength(1), 15_000);
    const [request] = await requests();
    expect(request!.customer.email).toBe('ada@example.com');
    const exported = await asMerchant(`/privacy/data-requests/${encodeURIComponent(request!.id)}/export`);
    expect(exported.status).toBe(200);
    const { orders } = (await exported.json()) as { orders: unknown[] };
    expect(orders.length).toBeGreaterThan(0);
    expect((await asMerchant(`/privacy/data-requests/${encodeURIComponent(request!.id)}`, 'DELETE')).status).toBe(200);
    expect(await requests()).toEqual([]);
  });

  it('is gone once the demo stops (a store of the merchant’s connected): the page and its proxy', async () => {
    bridge.firstRun!.stop();
    expect((await fetch(page)).status).toBe(410);
    expect((await fetch(`${page}apps/loyalty/points`)).status).toBe(410);
    expect(bridge.firstRun!.storefrontLink()).toBeUndefined();
  });
});
