// A newcomer's first run, as `npm start` starts it with nothing configured: the demo shop's own page opened by
// the link told at the terminal (once, for the demo shop alone, while the demo plays), resync on the demo's
// shops, the dashboard told whether the demo still plays, and the browser's icon.
import { orderKey } from '../../src/core/order-event.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';

const SESSION = /<meta name="loyalty-bridge-session" content="([^"]+)">/;

describe('the first run', () => {
  let bridge: RunningBridge;
  const url = (path: string) => `${bridge.http.localUrl}${path}`;
  const operator = (path: string, init: RequestInit = {}) =>
    fetch(url(`/admin/api${path}`), {
      ...init,
      headers: { authorization: `Bearer ${/#token=(.+)$/.exec(bridge.signInUrl ?? '')?.[1]}`, ...init.headers },
    });

  beforeAll(async () => {
    const loaded = loadConfig({ env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' } });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 20 });
    // The handful sent and folded: every shop has orders.
    await eventually(() => expect(bridge.demo?.played ?? 0).toBeGreaterThanOrEqual(bridge.demo!.handful), 30_000);
    await bridge.engine.drain();
  }, 60_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it('answers /favicon.ico with an icon, not a 404', async () => {
    const icon = await fetch(url('/favicon.ico'));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    expect((await icon.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });

  it('resyncs the demo shops from what they sent: every order fetched, none changed', async () => {
    const started = await operator('/resync', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'shopify', since: new Date(Date.now() - 60 * 60_000).toISOString() }),
    });
    expect(started.status).toBe(202);
    const { job } = (await started.json()) as { job: { id: string } };
    let done: { status: string; progress: { fetched: number; changed: number; unchanged: number; failed: number } };
    await eventually(async () => {
      done = ((await (await operator(`/resync/${job.id}`)).json()) as { job: typeof done }).job;
      expect(done.status).toBe('done');
    });
    const shopifyOrders = bridge.demo!.sentTo('shopify', 'loyalty-bridge-demo.myshopify.com').length;
    expect(done!.progress).toMatchObject({ fetched: shopifyOrders, changed: 0, unchanged: shopifyOrders, failed: 0 });
  });

  it('tells the dashboard what the demo does: each shop a store, each on its own trial account, resync offered', async () => {
    const json = async <T>(path: string) => (await (await operator(path)).json()) as T;
    const SHOPS = ['loyalty-bridge-demo.myshopify.com', 'demo-woocommerce.loyalty-bridge.invalid', 'lbdemo01'];
    // Resync works on the demo's shops (above): the dashboard offers each platform, not "nothing to resync from".
    const status = await json<{ reconciliation: Record<string, { platform: string; shop: string | null }> }>('/status');
    expect(Object.values(status.reconciliation).map(({ platform }) => platform)).toEqual(
      expect.arrayContaining(['shopify', 'woocommerce', 'bigcommerce']),
    );
    // The shops sending orders are stores, not "No store connected yet".
    const { stores } = await json<{ stores: Array<{ platform: string; shop: string; via: string }> }>('/stores');
    expect(stores.map(({ shop, via }) => `${shop} ${via}`).sort()).toEqual(SHOPS.map((shop) => `${shop} demo`).sort());
    // Each earns on a trial account of its own, and the list of shops says which for each.
    const { shops } = await json<{ shops: Array<{ shop: string; account: string | null }> }>('/shops');
    const links = await bridge.accounts.links();
    expect(shops.map(({ shop, account }) => `${shop} ${account}`).sort()).toEqual(
      SHOPS.map((shop) => `${shop} ${links.find((link) => link.shop === shop)?.account}`).sort(),
    );
    expect(new Set(shops.map(({ account }) => account)).size).toBe(3);
    expect(shops.map(({ account }) => account)).not.toContain('default');
  });

  it('opens the demo shop’s page once with the link told at the terminal, for the demo shop alone', async () => {
    // As the terminal tells it.
    const link = bridge.firstRun!.pageLink()!;
    expect(link).toMatch(/\/demo\/shop\?ticket=[\w-]{20,}$/);
    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    const page = await opened.text();
    const session = SESSION.exec(page)?.[1];
    expect(session).toBeTruthy();
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');

    // Sent again (copied, from history): nothing opens.
    const again = await fetch(link);
    expect(again.status).toBe(401);
    expect(await again.text()).not.toMatch(SESSION);
    // The terminal has the next link, which opens the page once too.
    const next = bridge.firstRun!.pageLink()!;
    expect(next).not.toBe(link);
    expect((await fetch(next)).status).toBe(200);

    const asMerchant = (path: string) =>
      fetch(url(`/admin/api${path}`), { headers: { authorization: `Bearer ${session}` } });
    const orders = (await (await asMerchant('/orders?limit=100')).json()) as {
      orders: Array<{ platform: string; shop: string }>;
    };
    expect(orders.orders.length).toBeGreaterThan(0);
    expect(new Set(orders.orders.map(({ platform, shop }) => `${platform} ${shop}`))).toEqual(
      new Set(['shopify loyalty-bridge-demo.myshopify.com']),
    );
    // Another shop's order, asked for by its key: as if it did not exist; nothing of the bridge as a whole either.
    const woo = (await (await operator('/orders?platform=woocommerce&limit=1')).json()) as {
      orders: Array<{ key: string }>;
    };
    const wooKey = woo.orders[0]?.key;
    expect(wooKey).toBeTruthy();
    expect((await operator(`/orders/${encodeURIComponent(wooKey!)}`)).status).toBe(200);
    expect((await asMerchant(`/orders/${encodeURIComponent(wooKey!)}`)).status).toBe(404);
    expect((await asMerchant('/status')).status).toBe(403);
    // A token of the session's shape, signed with no key of this run's, opens nothing.
    const forged = `lbdemo1.${Buffer.from(JSON.stringify({ shop: 'any.myshopify.com', exp: Date.now() + 60_000 })).toString('base64url')}.AAAA`;
    expect((await fetch(url('/admin/api/orders'), { headers: { authorization: `Bearer ${forged}` } })).status).toBe(
      401,
    );
  });

  it('gives each demo shop a trial account of its own, which its merchant may change and its orders earn on', async () => {
    const session = SESSION.exec(await (await fetch(bridge.firstRun!.pageLink()!)).text())?.[1];
    const asMerchant = (path: string, init: RequestInit = {}) =>
      fetch(url(`/admin/api${path}`), {
        ...init,
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', ...init.headers },
      });
    const own = (await (await asMerchant('/account')).json()) as {
      account: { id: string; name: string } | null;
      may: { read: boolean; change: boolean };
    };
    expect(own).toMatchObject({ account: { name: 'Shopify demo shop' }, may: { read: true, change: true } });
    // Set up's rules save, as on a merchant's own trial.
    const saved = await asMerchant('/account/settings', {
      method: 'PATCH',
      body: JSON.stringify({ MIN_ORDER_TOTAL: 5 }),
    });
    expect(saved.status).toBe(200);
    // Each shop on its own account; their orders earn there, not on the operator's.
    const links = await bridge.accounts.links();
    expect(links.map(({ platform }) => platform).sort()).toEqual(['bigcommerce', 'shopify', 'woocommerce']);
    expect(new Set(links.map(({ account }) => account)).size).toBe(3);
    expect(links.find(({ platform }) => platform === 'shopify')?.account).toBe(own.account!.id);
    expect(bridge.sandbox!.store.snapshot().earnings).toEqual([]);
    expect(bridge.sandbox!.accounts.filter((account) => account.store.snapshot().earnings.length > 0)).toHaveLength(3);
  });

  it('takes a delivery signed with the demo’s secret for the demo’s shop alone', async () => {
    // Shopify signs a delivery's body, not the header that names its shop: the demo's secret must not open another.
    const [shopify] = bridge.demo!.players.filter(({ platform }) => platform === 'shopify');
    const order = shopify!.demo.orders[0]!;
    const { headers, body } = shopify!.demo.delivery({
      id: 999_000_002,
      number: 9002,
      order,
      step: order.steps[0]!,
      at: new Date().toISOString(),
      secret: shopify!.secret,
      sequence: 1,
    });
    const other = 'someone-else.myshopify.com';
    const answer = await fetch(url('/webhooks/shopify'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, 'x-shopify-shop-domain': other },
      body,
    });
    expect(await answer.json()).toMatchObject({ result: 'ignored', reason: expect.stringContaining(other) });
    expect(
      await bridge.engine.store.getOrder(orderKey({ platform: 'shopify', shop: other, orderId: '999000002' })),
    ).toBeUndefined();
  });

  it('opens the demo shop’s page no more once the demo stopped (a store of the merchant’s connected)', async () => {
    const status = async () => ((await (await operator('/status')).json()) as { mode: { demo: boolean } }).mode;
    expect((await status()).demo).toBe(true);
    const link = bridge.firstRun!.pageLink()!;
    const session = SESSION.exec(await (await fetch(link)).text())?.[1];
    expect(session).toBeTruthy();
    // As a store connected through the dashboard stops it.
    bridge.firstRun!.stop();
    expect(bridge.demo?.running).toBe(false);
    expect((await fetch(url('/admin/api/orders'), { headers: { authorization: `Bearer ${session}` } })).status).toBe(
      401,
    );
    expect(bridge.firstRun!.pageLink()).toBeUndefined();
    expect((await fetch(link.replace(/ticket=.*/, 'ticket=x'))).status).toBe(410);
    // A delivery signed with this run's demo secret, once the demo stopped: refused, nothing of it kept.
    const [shopify] = bridge.demo!.players.filter(({ platform }) => platform === 'shopify');
    const order = shopify!.demo.orders[0]!;
    const { headers, body } = shopify!.demo.delivery({
      id: 999_000_001,
      number: 9001,
      order,
      step: order.steps[0]!,
      at: new Date().toISOString(),
      secret: shopify!.secret,
      sequence: 1,
    });
    const answer = await fetch(url('/webhooks/shopify'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    expect(await answer.json()).toMatchObject({ result: 'ignored', reason: 'the demo store has stopped' });
    expect(
      await bridge.engine.store.getOrder(orderKey({ platform: 'shopify', shop: shopify!.shop, orderId: '999000001' })),
    ).toBeUndefined();
  });
});
