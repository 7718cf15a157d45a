// A fourth platform, made up and written from docs/development.md ("Adding a platform") alone, with nothing
// of it outside this folder: registered at start, its signed webhook earns, a resync reads its orders through
// its API, and its merchant door opens the shared merchant page for its store alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../../src/composition/main.ts';
import { loadConfig } from '../../../src/config.ts';
import { startTestBridge } from '../../helpers/bridge.ts';
import { eventually } from '../../helpers/engine.ts';
import { signedDelivery, signInPath, startFakeTinyShop, tinyOrder, type FakeTinyShop } from './fake-tinyshop.ts';
import { tinyShop } from './module.ts';

const STORE = 'acme-bikes';
const SECRET = 'tinyshop-webhook-secret-0123456789';
const TOKEN = 'tinyshop-api-token';
const ADMIN_TOKEN = 'tinyshop-operator-token-0123456789';

let shop: FakeTinyShop;
let bridge: RunningBridge;

const post = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${bridge.http.localUrl}${path}`, { method: 'POST', body, headers });
const operator = (path: string, init: RequestInit = {}) =>
  fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
const earnings = (orderId: number) =>
  bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === String(orderId)) ?? [];

beforeAll(async () => {
  shop = await startFakeTinyShop(TOKEN);
  bridge = await startTestBridge(
    {
      TINYSHOP_STORE: STORE,
      TINYSHOP_WEBHOOK_SECRET: SECRET,
      TINYSHOP_API_URL: shop.url,
      TINYSHOP_API_TOKEN: TOKEN,
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
    },
    undefined,
    { modules: [tinyShop] },
  );
});
afterAll(async () => {
  await bridge?.stop();
  await shop?.stop();
});

describe('a platform registered as a module', () => {
  it('checks its settings with the rest, one line per bad key', () => {
    const loaded = loadConfig({
      env: { TINYSHOP_STORE: STORE, TINYSHOP_WEBHOOK_SECRET: 'short', TINYSHOP_API_URL: 'not a url' },
      modules: [tinyShop],
    });
    expect(loaded.ok).toBe(false);
    const errors = loaded.ok ? [] : loaded.errors;
    expect(errors).toContain('TINYSHOP_WEBHOOK_SECRET (environment): must be at least 16 characters');
    expect(errors.some((line) => line.startsWith('TINYSHOP_API_URL (environment): must be an http(s) URL'))).toBe(true);
    expect(errors.join('\n')).not.toContain('short');
    const incomplete = loadConfig({ env: { TINYSHOP_STORE: STORE }, modules: [tinyShop] });
    expect(incomplete.ok ? [] : incomplete.errors).toEqual([
      'TINYSHOP_WEBHOOK_SECRET: is required with TINYSHOP_STORE',
    ]);
    const halfApi = loadConfig({ env: { TINYSHOP_API_URL: 'https://tiny.example' }, modules: [tinyShop] });
    expect(halfApi.ok ? [] : halfApi.errors).toEqual(['TINYSHOP_API_TOKEN: is required with TINYSHOP_API_URL']);
  });

  it('earns on a signed webhook from its store, and refuses a forged one before reading it', async () => {
    const paid = tinyOrder(7001, 'paid');
    const delivery = signedDelivery(SECRET, STORE, 'order.paid', paid, 'd-7001-1');
    const answer = await post('/webhooks/tinyshop', delivery.body, delivery.headers);
    expect(answer.status).toBe(200);
    await eventually(() => expect(earnings(7001)).toHaveLength(1));
    expect(earnings(7001)[0]?.points).toBeGreaterThan(0);

    const forged = signedDelivery(
      'someone-elses-secret-0123456789',
      STORE,
      'order.paid',
      tinyOrder(7009, 'paid'),
      'd-x',
    );
    expect((await post('/webhooks/tinyshop', forged.body, forged.headers)).status).toBe(401);
    const unsigned = await post('/webhooks/tinyshop', forged.body, { 'content-type': 'application/json' });
    expect(unsigned.status).toBe(401);
    expect(await bridge.engine.store.getOrder(`tinyshop:${STORE}:7009`)).toBeUndefined();
  });

  it('acknowledges a store it does not serve and keeps nothing of it', async () => {
    const other = signedDelivery(SECRET, 'someone-else', 'order.paid', tinyOrder(7010, 'paid'), 'd-7010');
    const answer = await post('/webhooks/tinyshop', other.body, other.headers);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ result: 'ignored' });
    await bridge.engine.drain();
    expect(earnings(7010)).toHaveLength(0);
    expect(await bridge.engine.store.getOrder('tinyshop:someone-else:7010')).toBeUndefined();
  });

  it('reads missed orders through its API when the operator resyncs it', async () => {
    shop.orders.set(7002, tinyOrder(7002, 'fulfilled'));
    const started = await operator('/resync', {
      method: 'POST',
      body: JSON.stringify({ platform: 'tinyshop', since: new Date(Date.now() - 86_400_000).toISOString() }),
    });
    expect(started.status).toBe(202);
    // Fulfilled when read: earned and approved, under the name its merchant knows.
    await eventually(() => expect(earnings(7002).map((each) => each.status)).toEqual(['approved']));
    const order = await bridge.engine.store.getOrder(`tinyshop:${STORE}:7002`);
    expect(order?.snapshot.orderName).toBe('#8002');
  });

  it('opens the shared merchant page for its store from a signed link, and for nothing else', async () => {
    const page = await fetch(`${bridge.http.localUrl}${signInPath(SECRET, STORE)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<script src="/merchant/merchant.js"');
    const session = /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(html)?.[1];
    expect(session).toMatch(/^lbp1\.tinyshop\./);
    const asPage = (path: string) =>
      fetch(`${bridge.http.localUrl}/admin/api${path}`, { headers: { authorization: `Bearer ${session}` } });
    expect(await (await asPage('/session')).json()).toEqual({
      caller: 'shop',
      platform: 'tinyshop',
      shop: STORE,
      storeName: STORE,
    });
    const orders = (await (await asPage('/orders')).json()) as { orders: Array<{ orderId: string }> };
    expect(orders.orders.map((each) => each.orderId).sort()).toEqual(['7001', '7002']);
    // The operator's routes stay the operator's.
    expect((await asPage('/adjustments')).status).toBe(403);

    // A stale link, one for another store, or one signed by someone else opens nothing.
    for (const path of [
      signInPath(SECRET, STORE, Date.now() - 10 * 60_000),
      signInPath(SECRET, 'someone-else'),
      signInPath('someone-elses-secret-0123456789', STORE),
    ]) {
      const refused = await fetch(`${bridge.http.localUrl}${path}`);
      expect(refused.status).toBe(401);
      // A page that says what to do, on which nothing runs.
      expect(refused.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
      const words = await refused.text();
      expect(words).toContain('open the app again from your TinyShop admin');
      expect(words).not.toContain('<script');
    }
  });

  it('is listed with its own names for the pages, beside the shipped platforms', async () => {
    const { platforms } = (await (await operator('/platforms')).json()) as {
      platforms: Array<{ name: string; names: { platform: string } }>;
    };
    expect(platforms.map((each) => each.name)).toEqual(['shopify', 'woocommerce', 'bigcommerce', 'tinyshop']);
    expect(platforms.at(-1)?.names.platform).toBe('TinyShop');
  });
});
