// Shopify sends a shop the same app/uninstalled bytes (its Shop object, often
// unchanged) and the same shop/redact bytes ({ shop_id, shop_domain }) at
// every uninstall. A merchant who installs the app again and removes it
// again within days must be uninstalled and erased again, while the same
// bytes replayed by someone who captured them act on nothing. Here the whole
// life runs as it does in production: the install by token exchange when
// the merchant opens the app, orders delivered, uninstalls that Shopify
// confirms by refusing the token, redactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopState } from '../../src/core/store/ledger-store.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import {
  APP_KEY,
  APP_SECRET,
  deliverPaidOrders,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';
import { shopifyHeaders } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'comes-back-store.myshopify.com';
const UNINSTALL = JSON.stringify({
  id: 548380009,
  name: 'Comes Back',
  domain: null,
  myshopify_domain: SHOP,
  updated_at: null,
});
const REDACT = JSON.stringify({ shop_id: 548380009, shop_domain: SHOP });

let fake: FakeShopify;
let running: ShopifyAppBridge;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: SHOP });
});
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

const store = () => running.bridge.engine.store;
const session = () => store().getRecord(raw('session'), `shopify:${SHOP}`);
const shopState = () => store().getRecord(raw<ShopState>('shop'), `shopify:${SHOP}`);
const order = (id: string) => store().getOrder(`shopify:${SHOP}:${id}`);

/** As Shopify sends it: signed, with a webhook id and an event id of its own. */
async function send(topic: string, body: string) {
  const response = await fetch(`${running.url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET, eventId: crypto.randomUUID() }),
    body,
  });
  const answer = (await response.json()) as { result?: string };
  await running.bridge.engine.drain();
  return answer.result;
}

/** The merchant adds the app and opens it: the bridge gets the shop's token by token exchange. */
async function install() {
  fake.install(SHOP);
  const response = await fetch(`${running.url}/admin/api/orders`, {
    headers: { authorization: `Bearer ${mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET })}` },
  });
  expect(response.status).toBe(200);
  expect(await session()).toBeDefined();
}

/** The merchant removes the app: Shopify revokes the token, then sends app/uninstalled (and 48 hours later shop/redact). */
async function uninstall() {
  fake.uninstall(SHOP);
  expect(await send('app/uninstalled', UNINSTALL)).toBe('accepted');
}

describe('a shop that installs the app again', () => {
  it('is uninstalled and erased again by the same bytes, each time, within the dedupe window', async () => {
    await install();
    await deliverPaidOrders(running, [[SHOP, '7100000001']]);
    await uninstall();
    expect(await session()).toBeUndefined();
    const first = (await shopState())?.uninstalledAt;
    expect(first).toEqual(expect.any(String));
    expect(await send('shop/redact', REDACT)).toBe('accepted');
    expect(await order('7100000001')).toBeUndefined();

    // Days later: installed again, an order, removed again. Shopify sends the same bytes.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await install();
    await deliverPaidOrders(running, [[SHOP, '7100000002']]);
    expect(await order('7100000002')).toBeDefined();
    await uninstall();
    expect(await session()).toBeUndefined();
    expect(Date.parse((await shopState())?.uninstalledAt ?? '')).toBeGreaterThan(Date.parse(first!));
    expect(await send('shop/redact', REDACT)).toBe('accepted');
    expect(await order('7100000002')).toBeUndefined();
  });

  it('is not uninstalled or erased by those bytes replayed while it is installed, and Shopify is not asked for a replay of what acted', async () => {
    await install();
    await deliverPaidOrders(running, [[SHOP, '7100000003']]);
    // Installed, with a working token: the captured uninstall and shop/redact come again.
    expect(await send('app/uninstalled', UNINSTALL)).toBe('accepted');
    expect(await send('shop/redact', REDACT)).toBe('accepted');
    expect(await session()).toBeDefined();
    expect((await shopState())?.uninstalledAt ?? null).toBeNull();
    expect(await order('7100000003')).toBeDefined();

    // Removed for good; the captured bytes come again once it acted: nothing more happens, and Shopify is asked nothing.
    await uninstall();
    expect(await send('shop/redact', REDACT)).toBe('accepted');
    const asked = fake.requests.length;
    const uninstalledAt = (await shopState())?.uninstalledAt;
    expect(await send('app/uninstalled', UNINSTALL)).toBe('accepted');
    expect(await send('shop/redact', REDACT)).toBe('accepted');
    expect(fake.requests.length).toBe(asked);
    expect((await shopState())?.uninstalledAt).toBe(uninstalledAt);
  });
});

describe('an uninstall that names no shop', () => {
  it('is acknowledged and kept nowhere for shops the bridge holds no token of, whatever shop header it comes under', async () => {
    const body = JSON.stringify({ id: 1, name: 'Nobody', domain: null, myshopify_domain: null });
    const before = await store().stats();
    for (let i = 0; i < 20; i++) {
      const shop = `invented-${i}.myshopify.com`;
      const response = await fetch(`${running.url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'app/uninstalled', body, shop, secret: APP_SECRET }),
        body,
      });
      expect(((await response.json()) as { result?: string }).result).toBe('ignored');
    }
    await running.bridge.engine.drain();
    expect(await store().stats()).toEqual(before);
    expect(await store().getRecord(raw('shop'), 'shopify:invented-0.myshopify.com')).toBeUndefined();
  });
});
