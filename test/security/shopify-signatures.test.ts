// What an attacker can do with what Shopify signs for the app, against a
// running bridge. Shopify signs webhooks, session tokens and App URL queries
// with one client secret and HMAC-SHA256, and signs only a webhook's body,
// never its topic or shop headers. The attacker here holds what anyone who
// can open the app, or who once saw a delivery, holds: a session token, an
// App URL query, a captured genuine delivery. None of it may uninstall,
// erase, silence, approve or earn anything it was not made for.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopState } from '../../src/core/store/ledger-store.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { appUrlQuery, mintSessionToken } from '../helpers/shopify-app-links.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const VICTIM = SHOP;
const OTHER = 'second-store.myshopify.com';
const ATTACKER = 'attacker-dev-store.myshopify.com';
/** Served, but the bridge holds no token for it (installed by Shopify, never opened). */
const TOKENLESS = 'tokenless-store.myshopify.com';
const API_KEY = 'security-client-id';
let bridge: RunningBridge;
/** Shopify, which the bridge asks whether the app is still installed on a shop it holds a token for. */
let shopify: FakeShopify;

beforeAll(async () => {
  shopify = await startFakeShopify({ apiKey: API_KEY, apiSecret: SHOPIFY_SECRET });
  bridge = await startTestBridge(
    {
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_API_KEY: API_KEY,
      SHOPIFY_SHOPS: `${VICTIM},${OTHER},${TOKENLESS},third-store.myshopify.com`,
      RECONCILE_INTERVAL_MINUTES: '0',
    },
    undefined,
    {
      platformOverrides: { apiUrls: { shopify: (shop) => shopify.adminUrl(shop) } },
    },
  );
});
afterAll(async () => {
  await bridge.stop();
  await shopify.close();
});

const store = () => bridge.engine.store;
const session = (shop: string) => store().getRecord(raw('session'), `shopify:${shop}`);
let installs = 0;
/** The app installed on the shop: a token Shopify issued, kept as the bridge keeps it. */
async function giveSession(shop: string): Promise<void> {
  const token = `shpat_${shop.split('.')[0]}_${++installs}`;
  shopify.install(shop);
  shopify.registerToken(token, shop);
  await store().putRecord(raw('session'), `shopify:${shop}`, {
    platform: 'shopify',
    shop,
    mode: 'oauth',
    accessToken: token,
    expiresAt: null,
    updatedAt: new Date().toISOString(),
  });
}
/** The merchant removes the app: Shopify revokes the shop's tokens, then sends app/uninstalled. */
const uninstallOnShopify = (shop: string) => shopify.uninstall(shop);
const shopState = (shop: string) => store().getRecord(raw<ShopState>('shop'), `shopify:${shop}`);
const earning = (orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.find((candidate) => candidate.orderId === orderId);

async function post(body: string, headers: Record<string, string>) {
  const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as { result?: string; error?: string } };
}

/** A captured delivery sent again with other headers: the body and its HMAC are Shopify's, the rest is the attacker's. */
const relabel = (body: string, topic: string, shop: string, extra: Record<string, string> = {}) => ({
  ...shopifyHeaders({ topic, body, shop }),
  ...extra,
});

/** An uninstall that the signature alone would let through: forged for the victim, dated far ahead. */
const asForgedUninstall = (signedBody: string, hmacBase64: string) => ({
  ...shopifyHeaders({ topic: 'app/uninstalled', body: signedBody, shop: VICTIM }),
  'X-Shopify-Hmac-Sha256': hmacBase64,
  'X-Shopify-Triggered-At': '2099-01-01T00:00:00Z',
});

async function stillServed(orderId: string): Promise<void> {
  const body = shopifyOrderJson({ id: orderId });
  expect((await post(body, shopifyHeaders({ topic: 'orders/paid', body }))).body.result).toBe('accepted');
  await bridge.engine.drain();
  expect(earning(orderId)).toMatchObject({ status: 'pending' });
}

describe('what Shopify signs for other purposes is never a webhook', () => {
  it('refuses a session token from the attacker’s own shop, sent as the victim’s app/uninstalled (401, nothing forgotten)', async () => {
    await giveSession(VICTIM);
    const token = mintSessionToken({ shop: ATTACKER, apiKey: API_KEY, secret: SHOPIFY_SECRET });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const signed = `${header}.${payload}`;
    const hmac = Buffer.from(signature, 'base64url').toString('base64');
    // The signature is Shopify's HMAC of those bytes, as a webhook's would be.
    expect(hmac).toBe(createHmac('sha256', SHOPIFY_SECRET).update(signed).digest('base64'));
    expect((await post(signed, asForgedUninstall(signed, hmac))).status).toBe(401);
    await bridge.engine.drain();
    expect(await session(VICTIM)).toBeDefined();
    expect((await shopState(VICTIM))?.uninstalledAt ?? null).toBeNull();
    await stillServed('9270000000001');
  });

  it('refuses an App URL query, signed by Shopify, sent as a webhook (401)', async () => {
    const query = new URLSearchParams(appUrlQuery({ shop: ATTACKER, secret: SHOPIFY_SECRET }));
    const hex = query.get('hmac')!;
    query.delete('hmac');
    // What Shopify signed: the other parameters, sorted, as a query string.
    const signed = new URLSearchParams([...query.entries()].sort(([a], [b]) => a.localeCompare(b))).toString();
    const hmac = Buffer.from(hex, 'hex').toString('base64');
    expect(hmac).toBe(createHmac('sha256', SHOPIFY_SECRET).update(signed).digest('base64'));
    expect((await post(signed, asForgedUninstall(signed, hmac))).status).toBe(401);
    expect(await session(VICTIM)).toBeDefined();
  });
});

describe('a captured genuine delivery re-labelled', () => {
  it('as shop/redact: acknowledged as mislabelled, and the shop’s orders stay', async () => {
    const body = shopifyOrderJson({ id: '9270000000002' });
    await post(body, shopifyHeaders({ topic: 'orders/paid', body }));
    await bridge.engine.drain();
    const answer = await post(body, relabel(body, 'shop/redact', VICTIM));
    expect(answer).toMatchObject({ status: 200, body: { result: 'mislabelled' } });
    await bridge.engine.drain();
    expect(await store().getOrder(`shopify:${VICTIM}:9270000000002`)).toBeDefined();
  });

  it('as app/uninstalled: acknowledged as mislabelled, and the shop keeps its token and earns', async () => {
    await giveSession(VICTIM);
    const body = shopifyOrderJson({ id: '9270000000003' });
    expect(
      (await post(body, relabel(body, 'app/uninstalled', VICTIM, { 'X-Shopify-Triggered-At': '2099-01-01T00:00:00Z' })))
        .body.result,
    ).toBe('mislabelled');
    await bridge.engine.drain();
    expect(await session(VICTIM)).toBeDefined();
    await stillServed('9270000000004');
  });

  it('as orders/fulfilled, an unfulfilled order’s body does not approve its points', async () => {
    const body = shopifyOrderJson({ id: '9270000000005', fulfillmentStatus: null });
    await post(body, shopifyHeaders({ topic: 'orders/paid', body }));
    await post(body, relabel(body, 'orders/fulfilled', VICTIM));
    await bridge.engine.drain();
    expect(earning('9270000000005')).toMatchObject({ status: 'pending' });
    expect((await store().getOrder(`shopify:${VICTIM}:9270000000005`))?.facts).not.toContain('fulfilled');
  });

  it('a compliance body of one shop, sent with another shop’s header, erases nothing there', async () => {
    const body = shopifyOrderJson({ id: '9270000000006' });
    await post(body, shopifyHeaders({ topic: 'orders/paid', body, shop: OTHER }));
    await bridge.engine.drain();
    const redact = JSON.stringify({ shop_id: 1, shop_domain: VICTIM });
    expect((await post(redact, relabel(redact, 'shop/redact', OTHER))).body.result).toBe('mislabelled');
    const customer = JSON.stringify({
      shop_id: 1,
      shop_domain: VICTIM,
      customer: { id: 1, email: 'grace@example.com', phone: null },
      orders_to_redact: [9270000000006],
    });
    expect((await post(customer, relabel(customer, 'customers/redact', OTHER))).body.result).toBe('mislabelled');
    await bridge.engine.drain();
    expect((await store().getOrder(`shopify:${OTHER}:9270000000006`))?.snapshot.customer.email).toBe(
      'grace@example.com',
    );
  });
});

describe('destructive bodies act once', () => {
  it('a genuine uninstall replayed after a reinstall, under a new webhook id or past the dedupe window, forgets nothing', async () => {
    const body = JSON.stringify({ id: 7, name: 'Second', domain: 'second.example', myshopify_domain: OTHER });
    await giveSession(OTHER);
    uninstallOnShopify(OTHER);
    expect((await post(body, shopifyHeaders({ topic: 'app/uninstalled', body, shop: OTHER }))).body.result).toBe(
      'accepted',
    );
    await bridge.engine.drain();
    expect(await session(OTHER)).toBeUndefined();

    // Reinstalled: a new token. The captured uninstall comes again, under a new webhook id (kept: a later
    // install's genuine uninstall has the same bytes), and past the dedupe window: Shopify accepts the new token.
    await giveSession(OTHER);
    expect((await post(body, shopifyHeaders({ topic: 'app/uninstalled', body, shop: OTHER }))).body.result).toBe(
      'accepted',
    );
    await store().pruneSeen(new Date(Date.now() + 60_000));
    expect((await post(body, shopifyHeaders({ topic: 'app/uninstalled', body, shop: OTHER }))).body.result).toBe(
      'accepted',
    );
    await bridge.engine.drain();
    expect(await session(OTHER)).toBeDefined();
  });

  it('an uninstall sent before a reinstall and read after it leaves the new install alone', async () => {
    const shop = OTHER;
    const body = JSON.stringify({
      id: 7,
      name: 'Second',
      domain: 'second.example',
      myshopify_domain: shop,
      updated_at: '2026-11-23T09:00:00Z',
    });
    // Sent twenty minutes ago; the merchant installed the app again since, before the delivery was read: Shopify accepts the new token.
    await giveSession(shop);
    const before = (await shopState(shop))?.uninstalledAt ?? null;
    expect(
      (
        await post(
          body,
          shopifyHeaders({ topic: 'app/uninstalled', body, shop, triggeredAt: new Date(Date.now() - 20 * 60_000) }),
        )
      ).body.result,
    ).toBe('accepted');
    await bridge.engine.drain();
    expect(await session(shop)).toBeDefined();
    expect((await shopState(shop))?.uninstalledAt ?? null).toBe(before);
  });

  it('a second genuine shop/redact, after a later uninstall, erases again (Shopify sends the same bytes each time)', async () => {
    const shop = 'third-store.myshopify.com';
    const redact = JSON.stringify({ shop_id: 3, shop_domain: shop });
    const uninstall = (n: number) =>
      JSON.stringify({
        id: 3,
        name: 'Third',
        domain: null,
        myshopify_domain: shop,
        updated_at: `2026-11-2${n}T09:00:00Z`,
      });
    await post(uninstall(1), shopifyHeaders({ topic: 'app/uninstalled', body: uninstall(1), shop }));
    await bridge.engine.drain();
    await post(redact, shopifyHeaders({ topic: 'shop/redact', body: redact, shop }));
    await bridge.engine.drain();
    // Installed again (an order delivered after), then uninstalled again: Shopify's next shop/redact has the same bytes.
    const order = shopifyOrderJson({ id: '9270000000011', updatedAt: new Date().toISOString() });
    await bridge.engine.ingest.delivery('third-order-1', {
      platform: 'shopify',
      topic: 'orders/paid',
      shop,
      sentAt: new Date().toISOString(),
      headers: {},
      body: order,
      bodyEncoding: 'utf8',
    });
    await bridge.engine.drain();
    expect(await store().getOrder(`shopify:${shop}:9270000000011`)).toBeDefined();
    await post(uninstall(2), shopifyHeaders({ topic: 'app/uninstalled', body: uninstall(2), shop }));
    await bridge.engine.drain();
    await store().pruneSeen(new Date(Date.now() + 60_000));
    expect((await post(redact, shopifyHeaders({ topic: 'shop/redact', body: redact, shop }))).body.result).toBe(
      'accepted',
    );
    await bridge.engine.drain();
    expect(await store().getOrder(`shopify:${shop}:9270000000011`)).toBeUndefined();
  });

  it('a shop/redact replayed past the dedupe window erases nothing more', async () => {
    const redact = JSON.stringify({ shop_id: 2, shop_domain: OTHER });
    // Shopify sends it 48 hours after an uninstall: the shop's token is revoked by then.
    uninstallOnShopify(OTHER);
    expect((await post(redact, shopifyHeaders({ topic: 'shop/redact', body: redact, shop: OTHER }))).body.result).toBe(
      'accepted',
    );
    await bridge.engine.drain();
    const order = shopifyOrderJson({ id: '9270000000007' });
    await post(order, shopifyHeaders({ topic: 'orders/paid', body: order, shop: OTHER }));
    await bridge.engine.drain();
    await store().pruneSeen(new Date(Date.now() + 60_000));
    expect((await post(redact, shopifyHeaders({ topic: 'shop/redact', body: redact, shop: OTHER }))).body.result).toBe(
      'accepted',
    );
    await bridge.engine.drain();
    expect(await store().getOrder(`shopify:${OTHER}:9270000000007`)).toBeDefined();
  });
});

describe('an order is its own shop’s', () => {
  it('a captured order of one shop, sent under another shop’s name, earns nothing there (even with per-shop lp_orderid prefixes)', async () => {
    const body = shopifyOrderJson({ id: '9270000000020' });
    await post(body, shopifyHeaders({ topic: 'orders/paid', body }));
    await bridge.engine.drain();
    expect(earning('9270000000020')).toMatchObject({ status: 'pending' });
    expect((await post(body, relabel(body, 'orders/paid', OTHER))).body.result).toBe('accepted');
    await bridge.engine.drain();
    expect(await store().getOrder(`shopify:${OTHER}:9270000000020`)).toBeUndefined();
    expect(await store().listDeadLetters()).not.toContainEqual(
      expect.objectContaining({ shop: OTHER, orderKey: `shopify:${OTHER}:9270000000020` }),
    );
  });

  it('the same bytes under a fresh webhook id are a duplicate, whatever the topic (but the uninstall and shop/redact Shopify sends again for a later install)', async () => {
    const refund = JSON.stringify({
      id: 55,
      order_id: 9270000000020,
      created_at: '2026-11-21T08:00:00-05:00',
      transactions: [{ kind: 'refund', status: 'success', amount: '1.00', currency: 'USD' }],
    });
    expect((await post(refund, shopifyHeaders({ topic: 'refunds/create', body: refund }))).body.result).toBe(
      'accepted',
    );
    for (let i = 0; i < 3; i++)
      expect((await post(refund, shopifyHeaders({ topic: 'refunds/create', body: refund }))).body.result).toBe(
        'duplicate',
      );
  });

  it('refuses a shop header that is not a myshopify.com domain (400), and keeps nothing of it', async () => {
    const body = shopifyOrderJson({ id: '9270000000021' });
    for (const shop of ['constructor', 'evil.example.com', `${'x'.repeat(200)}.myshopify.com.evil`])
      expect((await post(body, relabel(body, 'orders/paid', shop))).status).toBe(400);
  });

  it('app/scopes_update for a shop the bridge holds no token for changes nothing and asks Shopify nothing', async () => {
    const before = shopify.requests.length;
    for (let i = 0; i < 5; i++) {
      const body = JSON.stringify({
        id: 1,
        previous: ['read_orders'],
        current: [],
        updated_at: `2026-11-23T10:0${i}:00Z`,
      });
      expect(
        (await post(body, shopifyHeaders({ topic: 'app/scopes_update', body, shop: TOKENLESS }))).body.result,
      ).toBe('accepted');
    }
    await bridge.engine.drain();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(shopify.requests.length).toBe(before);
    // No check of the shop was started: nothing was kept of it.
    expect(await store().getRecord(raw('platform-health'), `shopify:${TOKENLESS}`)).toBeUndefined();
  });
});

describe('unsigned headers decide nothing', () => {
  it('takes no time later than the moment of receipt from X-Shopify-Triggered-At', async () => {
    const shop = OTHER;
    uninstallOnShopify(shop);
    const before = Date.now();
    const body = JSON.stringify({
      id: 8,
      name: 'Second',
      domain: null,
      myshopify_domain: shop,
      updated_at: new Date().toISOString(),
    });
    await post(
      body,
      shopifyHeaders({ topic: 'app/uninstalled', body, shop, triggeredAt: new Date('2099-01-01T00:00:00Z') }),
    );
    await bridge.engine.drain();
    const uninstalledAt = Date.parse((await shopState(shop))?.uninstalledAt ?? '');
    expect(uninstalledAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(uninstalledAt).toBeLessThanOrEqual(Date.now());
    // An order sent after it still counts (it reinstalls the shop): the forged date held nothing back.
    const order = shopifyOrderJson({ id: '9270000000008', updatedAt: new Date().toISOString() });
    await post(order, shopifyHeaders({ topic: 'orders/paid', body: order, shop }));
    await bridge.engine.drain();
    expect(earning('9270000000008')).toMatchObject({ status: 'pending' });
  });

  it('does not take a captured delivery of before an uninstall, sent again after it dated now, for a reinstall', async () => {
    const shop = VICTIM;
    const captured = shopifyOrderJson({
      id: '9270000000010',
      updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const uninstall = JSON.stringify({ id: 9, name: 'Victim', domain: null, myshopify_domain: shop });
    uninstallOnShopify(shop);
    expect(
      (await post(uninstall, shopifyHeaders({ topic: 'app/uninstalled', body: uninstall, shop }))).body.result,
    ).toBe('accepted');
    await bridge.engine.drain();
    const uninstalledAt = (await shopState(shop))?.uninstalledAt;
    expect(uninstalledAt).toEqual(expect.any(String));
    expect(
      (await post(captured, shopifyHeaders({ topic: 'orders/paid', body: captured, shop, triggeredAt: new Date() })))
        .body.result,
    ).toBe('accepted');
    await bridge.engine.drain();
    expect(earning('9270000000010')).toBeUndefined();
    expect((await shopState(shop))?.uninstalledAt).toBe(uninstalledAt);
  });

  it('counts invented topics under one label, and invented shops in a bounded list', async () => {
    const metrics = async () => (await fetch(`${bridge.http.localUrl}/metrics`)).text();
    const sizeBefore = (await metrics()).length;
    const body = shopifyOrderJson({ id: '9270000000009' });
    for (let i = 0; i < 400; i++) {
      await post(body, {
        ...shopifyHeaders({ topic: `invented/topic-${i}`, body, shop: `invented-${i}.myshopify.com` }),
      });
      await post(body, { ...shopifyHeaders({ topic: 'orders/paid', body, shop: `invented-${i}.myshopify.com` }) });
    }
    const after = await metrics();
    expect(after).not.toMatch(/invented/);
    expect(after.length - sizeBefore).toBeLessThan(4_000);
    const activity = bridge.activity.platform('shopify');
    expect(activity.notAllowedShops.length).toBeLessThanOrEqual(20);
  });
});
