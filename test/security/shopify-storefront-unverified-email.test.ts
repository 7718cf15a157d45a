// Security: over HTTP against the running bridge (a Shopify app beside the fake Shopify), a signed-in customer
// whose record's e-mail is NOT verified (Customer.verifiedEmail false: on classic customer accounts anyone may
// register with an address that is not theirs) must see nothing of the address's owner through the storefront
// route /shopify/storefront/points — no balance, no history — even with the owner's phone on the record too.
// Also: Shopify's other signatures (an App URL's hmac=, a webhook's X-Shopify-Hmac-Sha256) are no proxy signature,
// and a genuine proxy signature does not survive a change of path_prefix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { tempDataDir } from '../helpers/engine.ts';
import { shopifyCustomerNode, type FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyOrderJson } from '../helpers/shopify.ts';
import {
  APP_SECRET,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { proxiedQuery } from '../helpers/shopify-proxy-signer.ts';
import { sandboxEarned, storefrontShopWithPoints } from '../helpers/shopify-storefront-shop.ts';

const SHOP = 'unverified-shop.myshopify.com';
const ORDER = '6100007711';
const GRACE = { email: 'grace@example.com', phone: '+12125550142' };

let fake: FakeShopify;
let running: ShopifyAppBridge;
let brandId = '';

type Answer = { status: number; text: string; body: Record<string, any> };
const points = async (query: string): Promise<Answer> => {
  const response = await fetch(`${running.url}/shopify/storefront/points?${query}`);
  const text = await response.text();
  return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
};
const signed = (customerId = '', pathPrefix?: string) =>
  proxiedQuery({ shop: SHOP, customerId, ...(pathPrefix ? { pathPrefix } : {}) }, APP_SECRET);
const sandboxTotal = () => sandboxEarned(running, brandId);
const seesNothingOfGrace = (answer: Answer) => {
  expect(answer.body.balance?.available ?? 0).toBe(0);
  expect(answer.body.balance?.pending ?? 0).toBe(0);
  expect(answer.body.history ?? []).toEqual([]);
  expect(answer.text).not.toContain(`#${ORDER.slice(-4)}`);
  for (const secret of [GRACE.email, 'grace', GRACE.phone, '2125550142']) expect(answer.text).not.toContain(secret);
};

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  fake.install(SHOP);
  const shop = fake.shop(SHOP);
  // The address's owner, verified.
  shop.customers.set('7001', shopifyCustomerNode('7001', GRACE));
  // Someone who registered with Grace's address (and typed her phone) but never verified it.
  shop.customers.set('7666', shopifyCustomerNode('7666', { ...GRACE, verifiedEmail: false }));
  // The same, with the address in another case.
  shop.customers.set('7667', shopifyCustomerNode('7667', { email: 'GRACE@Example.com', verifiedEmail: false }));
  // The same, read only where the app may see the phone and not the e-mail (no contact kept from before).
  shop.customers.set('7669', shopifyCustomerNode('7669', { ...GRACE, verifiedEmail: false }));
  // The same with the e-mail alone.
  shop.customers.set('7668', shopifyCustomerNode('7668', { email: GRACE.email, verifiedEmail: false }));
  running = await startShopifyAppBridge(fake, {
    DATA_DIR: tempDataDir(),
    SHOPIFY_SHOPS: '',
    SHOPIFY_OPEN_INSTALLS: 'true',
    ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
  });
  brandId = await storefrontShopWithPoints(running, fake, SHOP, ORDER);
}, 30_000);
afterAll(async () => {
  await running?.stop();
  await stopFakeShopifyForApp(fake);
});

describe('the storefront and an e-mail the customer never verified', () => {
  it('shows the verified owner her points (the control: the route works and the points are there)', async () => {
    const mine = await points(signed('7001'));
    expect(mine.status).toBe(200);
    expect(mine.body.customer).toBe('signed-in');
    expect(mine.body.balance.available + mine.body.balance.pending).toBe(sandboxTotal());
    expect(mine.body.history).toHaveLength(1);
  });

  it('shows a signed-in customer with her address unverified none of her points, with or without her phone', async () => {
    for (const id of ['7666', '7667', '7668']) {
      const answer = await points(signed(id));
      expect(answer.status).toBe(200);
      expect(answer.body.customer).toBe('signed-in');
      seesNothingOfGrace(answer);
    }
  });

  it('still shows nothing once the owner looked first (nothing kept by address leaks to the impostor)', async () => {
    expect((await points(signed('7001'))).body.history).toHaveLength(1);
    for (const id of ['7666', '7668']) seesNothingOfGrace(await points(signed(id)));
  });

  it('shows nothing of the owner to an unverified record where the app may read the phone and not the e-mail', async () => {
    // Shopify approves protected customer data field by field: here the phone alone, so the record's e-mail comes
    // back withheld and cannot be seen to be the owner's; its phone, which nobody verified, must not stand in for it.
    fake.protectedDataGranted = new Set(['phone']);
    try {
      seesNothingOfGrace(await points(signed('7669')));
    } finally {
      fake.protectedDataGranted = true;
    }
  });

  it('takes no other Shopify signature for a proxy one, and no proxy signature with its path_prefix changed', async () => {
    const refusedAll = (answer: Answer) => {
      expect(answer.status).toBe(401);
      expect(answer.text).not.toContain('balance');
    };
    const timestamp = String(Math.floor(Date.now() / 1000));
    // An App URL's query, signed as Shopify signs the admin's launch of the app (hmac=, key=value joined by &).
    const appUrl = new URLSearchParams({
      shop: SHOP,
      timestamp,
      logged_in_customer_id: '7001',
      path_prefix: '/apps/loyalty',
    });
    const appText = [...appUrl]
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join('&');
    appUrl.set('hmac', createHmac('sha256', APP_SECRET).update(appText).digest('hex'));
    refusedAll(await points(appUrl.toString()));
    // The same hex put where the proxy's signature goes (the App URL's separator differs: no match).
    const asSignature = new URLSearchParams(appUrl);
    asSignature.set('signature', asSignature.get('hmac')!);
    asSignature.delete('hmac');
    refusedAll(await points(asSignature.toString()));
    // A webhook's signature (base64 HMAC of a body) reused, in hex, as the signature.
    const body = shopifyOrderJson({ id: ORDER });
    const hook = createHmac('sha256', APP_SECRET).update(body).digest('hex');
    refusedAll(
      await points(
        new URLSearchParams({
          shop: SHOP,
          logged_in_customer_id: '7001',
          path_prefix: '/apps/loyalty',
          timestamp,
          signature: hook,
        }).toString(),
      ),
    );
    // A genuine signature for /apps/loyalty, presented with another path_prefix.
    const moved = new URLSearchParams(signed('7001'));
    moved.set('path_prefix', '/apps/other');
    refusedAll(await points(moved.toString()));
    // A genuine signature for another prefix works on its own (the merchant may rename it): the check is the signature.
    expect((await points(signed('7001', '/a/points'))).status).toBe(200);
  });
});
