// The storefront scenario on WooCommerce: the bridge behind https (the plugin's routes and WooCommerce's key
// callback need a PUBLIC_URL on https; test/helpers/woocommerce-store-page.ts) beside a fake WooCommerce with its
// coupons (test/helpers/fake-woocommerce-coupons.ts), in this process, the store connected by the operator for its
// merchant with a Read/Write key. Its merchant signs in to their store's page through WordPress and connects the plugin with a
// one-time code from it (test/helpers/woocommerce-plugin.ts); customers ask as the widget the plugin prints does,
// from the store's own page with the identity token the plugin signs (their contact comes with it: nothing is read
// from WooCommerce); orders are WooCommerce's order.created deliveries, signed with the webhook's secret and sent
// by the fake to the address the bridge subscribed (through the https front, as a real store reaches the bridge);
// codes are coupons the bridge makes in the fake store, applied at its checkout with the customer's billing e-mail.
import { useCoupon, withCoupons } from '../../test/helpers/fake-woocommerce-coupons.ts';
import { tempDataDir } from '../../test/helpers/engine.ts';
import { wooOrderJson } from '../../test/helpers/woocommerce.ts';
import {
  askPluginCode,
  exchangeCode,
  identityToken,
  signInByApproval,
  type PluginConnection,
} from '../../test/helpers/woocommerce-plugin.ts';
import { startWooPageWorld } from '../../test/helpers/woocommerce-store-page.ts';
import type { StorefrontPlatform } from './storefront-driver.ts';

/** A page of the store: its own domain, where the plugin prints the widget. */
const STORE_PAGE = 'https://www.bench-storefront.example';
/** WooCommerce's order ids are its posts' ids: a store with a few years of orders is in the hundreds of thousands. */
const FIRST_ORDER = 200_000;
const customer = (n: number) => ({ id: 9_000 + n, email: `c${n}@example.com` });

export const wooCommerceStorefront: StorefrontPlatform = {
  name: 'WooCommerce',
  // No customer is set up in the store: the identity token carries their e-mail, and nothing is read from WooCommerce.
  async start({ limitPerMinute }) {
    const limit = String(limitPerMinute);
    // Connected by the operator for its merchant, who makes the store's own trial account from their page.
    const world = await startWooPageWorld(1, [], {
      env: {
        DATA_DIR: tempDataDir(),
        SHOPIFY_SHOPS: '',
        SANDBOX_RATE_LIMIT_PER_MINUTE: limit,
        LOYALTY_RATE_LIMIT_PER_MINUTE: limit,
      },
      landing: 'store-page',
    });
    const woo = withCoupons(world.stores[0]!);
    let session: string;
    let connection: PluginConnection;
    try {
      session = await signInByApproval(world, woo);
      const { code } = await askPluginCode(world, session);
      const exchanged = await exchangeCode(code, woo.url);
      if (exchanged.status !== 200) throw new Error(`the plugin did not connect: ${exchanged.status}`);
      connection = JSON.parse(exchanged.body) as PluginConnection;
    } catch (error) {
      await world.stop();
      throw error;
    }
    const url = world.bridge.http.localUrl;
    const orderId = (k: number) => String(FIRST_ORDER + k);
    // The store holds the order, and WooCommerce sends it to every webhook of the topic; a new order is "created".
    const deliver = async (order: string) => {
      const parsed = JSON.parse(order) as Record<string, unknown> & { id: number };
      woo.orders.set(parsed.id, parsed);
      const statuses = await woo.deliver('order.created', parsed.id);
      return statuses.length > 0 && statuses.every((status) => status === 200);
    };
    // What the widget sends: the token the plugin's REST route answered the signed-in customer, from the store's page.
    const asCustomer = (n: number, path: string, method = 'GET') =>
      fetch(`${url}/woocommerce/storefront/points${path}`, {
        method,
        headers: {
          authorization: `Bearer ${identityToken(connection, customer(n))}`,
          origin: STORE_PAGE,
          accept: 'application/json',
        },
      });
    return {
      bridge: world.bridge,
      url,
      async merchant(method, path, body) {
        const answer = await world.asPage(session, path, { method, body: JSON.stringify(body) });
        const text = await answer.text();
        return { status: answer.status, text, body: (text ? JSON.parse(text) : {}) as any };
      },
      orderId,
      completedOrder: (k, n) =>
        deliver(wooOrderJson({ id: Number(orderId(k)), status: 'completed', email: customer(n).email })),
      paidOrder: (k, n, code) =>
        deliver(
          wooOrderJson({
            id: Number(orderId(k)),
            status: 'processing',
            email: customer(n).email,
            // wc_format_coupon_code: the order names the coupon as WooCommerce keeps it, in lower case.
            ...(code ? { coupons: [{ code: code.toLowerCase(), discount: '1.00' }] } : {}),
          }),
        ),
      points: (n) => asCustomer(n, ''),
      redeem: (n, rewardId) => asCustomer(n, `/redeem?reward=${encodeURIComponent(rewardId)}`, 'POST'),
      // The customer checks out signed in, billed to their own e-mail.
      useCode: (n, code) => useCoupon(woo, code, { billingEmail: customer(n).email, accountEmail: customer(n).email }),
      stop: () => world.stop(),
    };
  },
};
