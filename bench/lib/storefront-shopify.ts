// The storefront scenario on Shopify: the bridge as a Shopify app beside the fake Shopify, in this process (the fake
// is reached through the test helpers' address override). Customers ask through the app proxy's route, signed as
// Shopify signs it (test/helpers/shopify-proxy-signer.ts), their contacts read from the fake's Admin API; orders
// arrive as signed orders/fulfilled and orders/paid webhooks; codes are the fake's code discounts.
import { shopifyCustomerNode } from '../../test/helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson } from '../../test/helpers/shopify.ts';
import {
  APP_SECRET,
  asShop,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
} from '../../test/helpers/shopify-app-bridge.ts';
import { proxiedQuery } from '../../test/helpers/shopify-proxy-signer.ts';
import { tempDataDir } from '../../test/helpers/engine.ts';
import type { StorefrontPlatform } from './storefront-driver.ts';

const SHOP = 'bench-storefront.myshopify.com';
/** The cart a code pays for: shopifyOrderJson's subtotal, above the bench reward's minimum (it has none). */
const PAID_SUBTOTAL = '120.00';
/** Order ids of Shopify's size. */
const FIRST_ORDER = 6_200_000_000;
const customerId = (n: number) => String(9_000 + n);
const email = (n: number) => `c${n}@example.com`;

export const shopifyStorefront: StorefrontPlatform = {
  name: 'Shopify',
  async start({ customers, limitPerMinute }) {
    const fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    fake.scopes = 'read_orders,write_app_proxy,read_customers,write_discounts';
    for (let n = 0; n < customers; n++)
      fake.shop(SHOP).customers.set(customerId(n), shopifyCustomerNode(customerId(n), { email: email(n) }));
    const limit = String(limitPerMinute);
    const running = await startShopifyAppBridge(fake, {
      DATA_DIR: tempDataDir(),
      SHOPIFY_SHOPS: '',
      SHOPIFY_OPEN_INSTALLS: 'true',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      SANDBOX_RATE_LIMIT_PER_MINUTE: limit,
      LOYALTY_RATE_LIMIT_PER_MINUTE: limit,
    });
    const orderId = (k: number) => String(FIRST_ORDER + k);
    const deliver = async (topic: string, body: string) =>
      (
        await fetch(`${running.url}/webhooks/shopify`, {
          method: 'POST',
          headers: shopifyHeaders({ topic, body, shop: SHOP, secret: APP_SECRET }),
          body,
        })
      ).status === 200;
    const proxied = (n: number, extra: ReadonlyArray<readonly [string, string]> = []) =>
      proxiedQuery({ shop: SHOP, customerId: customerId(n), extra }, APP_SECRET);
    return {
      bridge: running.bridge,
      url: running.url,
      merchant: (method, path, body) =>
        (method === 'POST' ? asShop(running, SHOP).post : asShop(running, SHOP).put)(path, body),
      orderId,
      completedOrder: (k, n) =>
        deliver(
          'orders/fulfilled',
          shopifyOrderJson({ id: orderId(k), email: email(n), fulfillmentStatus: 'fulfilled' }),
        ),
      paidOrder: (k, n, code) =>
        deliver(
          'orders/paid',
          shopifyOrderJson({
            id: orderId(k),
            email: email(n),
            ...(code ? { discountCodes: [{ code, amount: '1.00', type: 'fixed_amount' }] } : {}),
          }),
        ),
      points: (n) => fetch(`${running.url}/shopify/storefront/points?${proxied(n)}`),
      redeem: (n, rewardId) =>
        fetch(`${running.url}/shopify/storefront/points/redeem?${proxied(n, [['reward', rewardId]])}`, {
          method: 'POST',
        }),
      useCode: (n, code) => fake.useCode(SHOP, code, customerId(n), { subtotal: PAID_SUBTOTAL }),
      async stop() {
        await running.stop();
        await stopFakeShopifyForApp(fake);
      },
    };
  },
};
