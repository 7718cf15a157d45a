// A WooCommerce merchant reaches their store's own page without the
// operator: they approve a sign-in in their store's WordPress, and the
// bridge opens the page with a session for that store alone (issue 34,
// item 4). Against the running bridge behind https and a fake WordPress with
// WooCommerce; the browser's part (its cookie, the redirects) is played by
// hand here, and by Chromium in test/browser/woocommerce-store-page.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { outboundPost } from '../helpers/outbound-post.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import { onBridge, sessionIn, startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';
import { answerConsent } from '../helpers/wordpress-merchant.ts';
import { raw } from '../helpers/raw-records.ts';

let world: WooPageWorld;
let woo: FakeWooCommerce;
let other: FakeWooCommerce;
const connection = (fake: FakeWooCommerce) => world.connection(fake);
const browse = (path: string, cookie?: string) => world.browse(path, cookie);
const asPage = (session: string, path: string, init?: RequestInit) => world.asPage(session, path, init);

/** The merchant asks for their store's page: the cookie is the bridge's own, first-party and short-lived. */
async function open(store: string): Promise<{ cookie: string; authorizeUrl: string }> {
  const opened = await world.open(store);
  expect(opened.cookie).toMatch(/^__Host-loyalty-bridge-woo=[\w-]{43}$/);
  return opened;
}

/** Signs in from start to end: the session the page gets. */
async function signIn(fake: FakeWooCommerce): Promise<string> {
  const { cookie, authorizeUrl } = await open(fake.url);
  const back = await answerConsent(authorizeUrl, 'approve');
  const answer = await browse(onBridge(back), cookie);
  expect(answer.status).toBe(200);
  return (await sessionIn(answer))!;
}

describe.skipIf(!opensslAvailable)('a WooCommerce merchant’s own page', () => {
  beforeAll(async () => {
    world = await startWooPageWorld(2);
    [woo, other] = world.stores as [FakeWooCommerce, FakeWooCommerce];
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('signs in through an approval in WordPress, and the store’s new key replaces its old one', async () => {
    const before = await connection(woo);
    const session = await signIn(woo);
    const after = await connection(woo);
    expect(after!.consumerKey).not.toBe(before!.consumerKey);
    expect(woo.keys.get(after!.consumerKey)?.consumerSecret).toBe(after!.consumerSecret);
    // The webhooks the store has go on being verified: their secret stays.
    expect(after!.webhookSecret).toBe(before!.webhookSecret);
    const me = await asPage(session, '/session');
    expect(await me.json()).toEqual({
      caller: 'shop',
      platform: 'woocommerce',
      shop: woo.host,
      storeName: woo.siteName,
    });

    const page = await browse('/woocommerce/store');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('name="loyalty-bridge-sign-in" content="/woocommerce/open"');
  }, 30_000);

  it('sees its own store’s orders only, and nothing of the operator’s', async () => {
    for (const [fake, id] of [
      [woo, 7001],
      [other, 7002],
    ] as const) {
      fake.orders.set(id, JSON.parse(wooOrderJson({ id, status: 'processing' })) as Record<string, unknown>);
      expect(await fake.deliver('order.created', id)).toEqual([200]);
    }
    await world.bridge.engine.drain();
    const session = await signIn(woo);
    const orders = (await (await asPage(session, '/orders')).json()) as { orders: Array<{ orderId: string }> };
    expect(orders.orders.map((order) => order.orderId)).toEqual(['7001']);
    expect((await asPage(session, `/orders/${encodeURIComponent(`woocommerce:${other.host}:7002`)}`)).status).toBe(404);
    expect((await asPage(session, `/orders/${encodeURIComponent(`woocommerce:${woo.host}:7001`)}`)).status).toBe(200);
    // The operator's routes are not a store's.
    expect((await asPage(session, '/adjustments')).status).toBe(403);
  }, 30_000);

  it('opens nothing for a return in another browser, nor a second time', async () => {
    const before = await connection(woo);
    const { cookie, authorizeUrl } = await open(woo.url);
    const back = await answerConsent(authorizeUrl, 'approve');
    const elsewhere = await browse(onBridge(back), '__Host-loyalty-bridge-woo=' + 'x'.repeat(43));
    expect(elsewhere.status).toBe(401);
    expect((await connection(woo))!.consumerKey).toBe(before!.consumerKey);
    // The ticket was taken by that try: the right browser, afterwards, is told the link was used.
    expect((await browse(onBridge(back), cookie)).status).toBe(401);
  }, 30_000);

  it('keeps the store’s key when a forged callback brings one the store does not know', async () => {
    const before = await connection(woo);
    const { cookie, authorizeUrl } = await open(woo.url);
    const nonce = new URL(authorizeUrl).searchParams.get('user_id')!;
    // Whoever started a re-entry holds its nonce, so they can post a callback themselves.
    const forged = await outboundPost(
      `${world.front.url}/woocommerce/auth/callback`,
      { 'content-type': 'application/json' },
      JSON.stringify({
        key_id: 1,
        user_id: nonce,
        consumer_key: `ck_${'f'.repeat(40)}`,
        consumer_secret: `cs_${'f'.repeat(40)}`,
        key_permissions: 'read_write',
      }),
      5_000,
    );
    expect(forged.status).toBe(200);
    const back = await browse(
      `/woocommerce/return?woocommerce_store=${woo.host}&success=1&user_id=${encodeURIComponent(nonce)}`,
      cookie,
    );
    expect(back.status).toBe(401);
    expect(await back.text()).toContain('did not recognise the key');
    expect(await connection(woo)).toEqual(before);
  }, 30_000);

  it('says so when the merchant declines, and changes nothing', async () => {
    const before = await connection(woo);
    const { cookie, authorizeUrl } = await open(woo.url);
    const back = await answerConsent(authorizeUrl, 'deny');
    const answer = await browse(onBridge(back), cookie);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('declined');
    expect(await connection(woo)).toEqual(before);
  }, 30_000);

  it('ties a sign-in to its browser with a first-party cookie of its own, secure and short-lived', async () => {
    const answer = await browse(`/woocommerce/open?store=${encodeURIComponent(woo.url)}`);
    expect(answer.headers.get('set-cookie')).toMatch(
      /^__Host-loyalty-bridge-woo=[\w-]{43}; Max-Age=1800; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('asks for the address, and refuses a store the bridge does not serve', async () => {
    const form = await browse('/woocommerce/open');
    expect(await form.text()).toContain('<form method="get" action="/woocommerce/open">');
    const unknown = await browse(`/woocommerce/open?store=${encodeURIComponent('https://shop.example.com')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('set-cookie')).toBeNull();
    expect((await browse('/woocommerce/open?store=not%20an%20address')).status).toBe(400);
  }, 30_000);

  it('refuses forged, other-purpose and ended sessions before reading the body', async () => {
    const session = await signIn(woo);
    const prefix = 'lbp1.woocommerce.';
    const [payload, signature] = session.slice(prefix.length).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { shop: string };
    const forged = `${prefix}${Buffer.from(JSON.stringify({ ...claims, shop: other.host, exp: Date.now() + 60_000 })).toString('base64url')}.${signature}`;
    expect((await asPage(forged, '/session')).status).toBe(401);
    // The same MAC under another family's prefix is no session of any kind.
    expect((await asPage(session.replace('lbp1.woocommerce.', 'lbb1.'), '/session')).status).toBe(401);
    expect((await asPage(session.replace('lbp1.woocommerce.', 'lbs1.'), '/session')).status).toBe(401);
    // The store disconnected: its sessions open nothing.
    await world.bridge.engine.store.deleteRecord(raw('session'), `woocommerce:${woo.host}`);
    const ended = await asPage(session, '/orders', { method: 'POST', body: '{'.repeat(10) });
    expect(ended.status).toBe(401);
  }, 30_000);

  it('connects the store with the link the operator made for its merchant, whose page then opens for a sign-in from their browser', async () => {
    const back = await world.connectByOperator(woo, 'store-page');
    expect(back.pathname).toBe('/woocommerce/return');
    // No cookie: the operator made the link in their own browser, so its return proves no browser, and signs none in.
    const answer = await browse(onBridge(back));
    expect(answer.status).toBe(200);
    expect(await sessionIn(answer)).toBeUndefined();
    const page = await answer.text();
    expect(page).toContain('Your store is connected');
    const offered = /<a href="([^"]+)">Sign in to your store’s page<\/a>/.exec(page)?.[1];
    expect(decodeURIComponent(offered ?? '')).toBe(`/woocommerce/open?store=${(await connection(woo))!.url}`);
    // The sign-in it offers: this browser's cookie, an approval in WordPress, and the page.
    const session = await signIn(woo);
    expect(await (await asPage(session, '/session')).json()).toMatchObject({ platform: 'woocommerce', shop: woo.host });
    // Connected for its merchant, the store earns on no account of the operator's: the merchant sets up their own.
    const reach = (await (await asPage(session, '/account')).json()) as { standing: string; may: { create: boolean } };
    expect(reach).toMatchObject({ standing: 'unlinked', may: { create: true } });
  }, 30_000);
});
