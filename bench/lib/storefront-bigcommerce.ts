// The storefront scenario on BigCommerce: the bridge as a single-click app beside the fake BigCommerce (its store
// API, customers, scripts and promotions from BigCommerce's documentation), in this process, installed on one store
// with every scope the storefront and rewards need. Customers ask as the widget does, from the store's own page with
// the current-customer token BigCommerce signs with the app's client secret (test/helpers/bigcommerce-customer-jwt.ts),
// their contacts read from the fake's Customers API; orders arrive as store/order/statusUpdated deliveries signed
// with the client secret, the order then read from the fake's store API; codes are promotions in the fake store.
import { freePort } from './bridge-process.ts';
import { appAt, bcOrder, bcPageTokens } from '../../test/helpers/bigcommerce.ts';
import { currentCustomerJwt } from '../../test/helpers/bigcommerce-customer-jwt.ts';
import { startTestBridge } from '../../test/helpers/bridge.ts';
import { tempDataDir } from '../../test/helpers/engine.ts';
import { startFakeBigCommerce } from '../../test/helpers/fake-bigcommerce.ts';
import { addCustomer, serveFakeCustomers } from '../../test/helpers/fake-bigcommerce-customers.ts';
import { storeCart, useCode } from '../../test/helpers/fake-bigcommerce-checkout.ts';
import { withPromotions } from '../../test/helpers/fake-bigcommerce-promotions.ts';
import { addFakeScripts } from '../../test/helpers/fake-bigcommerce-scripts.ts';
import type { StorefrontPlatform } from './storefront-driver.ts';

const CLIENT_ID = 'bench-storefront-client-id';
const CLIENT_SECRET = 'bench-storefront-client-secret';
const STORE = 'benchsf1';
/** Orders, the storefront (scripts, customers) and rewards (promotions), approved at install. */
const SCOPES =
  'store_v2_orders_read_only store_v2_content store_v2_customers_read_only store_channel_settings_read_only store_v2_marketing';
/** The store's own domain, where the widget's page is. */
const STORE_PAGE = 'https://www.bench-storefront.example';
/** Order ids of BigCommerce's size (an int32). */
const FIRST_ORDER = 200_000;
const customerId = (n: number) => 9_000 + n;
/** The cart a code pays for: bcOrder's subtotal, in the store's currency. */
const PAID_SUBTOTAL = '150.00';
const email = (n: number) => `c${n}@example.com`;

export const bigCommerceStorefront: StorefrontPlatform = {
  name: 'BigCommerce',
  async start({ customers, limitPerMinute }) {
    const bc = await startFakeBigCommerce({ storeHash: 'unusedhash', accessToken: 'unused-token' });
    // A store taking hundreds of orders a minute is on an Enterprise plan, whose quota is set by contract (or none:
    // "Unlimited Rate Plan", api-rate-limits.mdx). The store API's quota is not what is measured here.
    bc.quota = { requests: 1_000_000, windowMs: 30_000 };
    withPromotions(bc);
    serveFakeCustomers(bc);
    addFakeScripts(bc);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    bc.registerApp(appAt(url, CLIENT_ID, CLIENT_SECRET, SCOPES));
    const limit = String(limitPerMinute);
    let bridge;
    try {
      bridge = await startTestBridge({
        PORT: String(port),
        PUBLIC_URL: url,
        DATA_DIR: tempDataDir(),
        SHOPIFY_SHOPS: '',
        RECONCILE_INTERVAL_MINUTES: '0',
        SANDBOX_RATE_LIMIT_PER_MINUTE: limit,
        LOYALTY_RATE_LIMIT_PER_MINUTE: limit,
        BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
        BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
        BIGCOMMERCE_LOGIN_URL: bc.url,
        BIGCOMMERCE_API_URL: bc.url,
        BIGCOMMERCE_OPEN_INSTALLS: 'true',
      });
      const installed = await bc.install(STORE);
      if (installed.status !== 200) throw new Error(`the app was not installed: ${installed.status}`);
    } catch (error) {
      await bridge?.stop();
      await bc.close();
      throw error;
    }
    const running = bridge;
    for (let n = 0; n < customers; n++) addCustomer(bc, STORE, { id: customerId(n), email: email(n) });
    const pages = await bcPageTokens(running);
    const orders = bc.stores.get(STORE)!.orders;
    const orderId = (k: number) => String(FIRST_ORDER + k);
    // The store holds the order; BigCommerce tells of its status, and the bridge reads it from the store API.
    const deliver = async (order: ReturnType<typeof bcOrder>) => {
      orders.set(order.id, order);
      const statuses = await bc.deliver('store/order/statusUpdated', order.id, {
        store: STORE,
        signWith: CLIENT_SECRET,
      });
      return statuses.length > 0 && statuses.every((status) => status === 200);
    };
    // What the widget sends: the token it fetched from the store's /customer/current.jwt, from the store's origin.
    const asCustomer = (n: number, path: string, method = 'GET') =>
      fetch(`${url}/bigcommerce/storefront/points${path}`, {
        method,
        headers: {
          authorization: `Bearer ${currentCustomerJwt({ storeHash: STORE, customerId: customerId(n), email: email(n), clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })}`,
          origin: STORE_PAGE,
          accept: 'application/json',
        },
      });
    return {
      bridge: running,
      url,
      async merchant(method, path, body) {
        const answer = await fetch(`${url}/admin/api${path}`, {
          method,
          headers: { authorization: `Bearer ${pages.mint(STORE)}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await answer.text();
        return { status: answer.status, text, body: (text ? JSON.parse(text) : {}) as any };
      },
      orderId,
      completedOrder: (k, n) => deliver(bcOrder(Number(orderId(k)), 10, { email: email(n) })),
      paidOrder: (k, n, code) =>
        deliver(
          bcOrder(Number(orderId(k)), 11, {
            email: email(n),
            ...(code ? { couponDiscount: '1.0000', coupons: [{ code, discount: 1 }] } : {}),
          }),
        ),
      points: (n) => asCustomer(n, ''),
      redeem: (n, rewardId) => asCustomer(n, `/redeem?reward=${encodeURIComponent(rewardId)}`, 'POST'),
      useCode: (n, code) => useCode(bc, STORE, code, storeCart(bc, STORE, String(customerId(n)), PAID_SUBTOTAL)),
      async stop() {
        await running.stop();
        await bc.close();
      },
    };
  },
};
