// The test files that load nock share a worker (vitest.config.ts): a file whose cleanup threw, or ran after the next
// file had started, once sent that next file's token exchange to its own fake Shopify, where the shop was not
// installed. The bridge then answered the merchant 401 (shopify-merchant-rewards and secrets-at-rest failed CI).
import got from 'got';
import { expect, it } from 'vitest';
import { APP_KEY, APP_SECRET, startFakeShopifyForApp, stopFakeShopifyForApp } from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';

const SHOP = 'route-check.myshopify.com';

/** A token exchange as @shopify/shopify-api sends it, to the address Shopify serves it at. */
const exchange = () =>
  got.post(`https://${SHOP}/admin/oauth/access_token`, {
    json: {
      client_id: APP_KEY,
      client_secret: APP_SECRET,
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET }),
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      requested_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token',
    },
    throwHttpErrors: false,
    retry: { limit: 0 },
  });

it('sends the token exchange to the newest fake Shopify, whatever an earlier file left behind', async () => {
  // The earlier file's fake, whose stop has not run yet.
  const earlier = await startFakeShopifyForApp();
  const own = await startFakeShopifyForApp();
  try {
    own.install(SHOP);
    const first = await exchange();
    expect(first.statusCode, first.body).toBe(200);
    // The earlier file's cleanup, late: this file's route stays.
    await stopFakeShopifyForApp(earlier);
    const again = await exchange();
    expect(again.statusCode, again.body).toBe(200);
    expect(JSON.parse(again.body)).toHaveProperty('access_token');
  } finally {
    await stopFakeShopifyForApp(own);
    await stopFakeShopifyForApp(earlier);
  }
});
