// BigCommerce's store API as the first run's demo shop answers it (PlatformDemo.api): a BigCommerce delivery names
// its order only (verify.ts), so the module reads the order from the V2 API, as it reads any store's
// (admin-api.ts: GET v2/orders/<id>, and its coupons where the order has a coupon discount). The demo serves those
// two reads on the bridge, from the orders it sent, in the shape of BigCommerce's V2 order reference
// (/work/shared/fixtures/bigcommerce/v2-orders-list.2013.json), behind an access token made from this run's secret;
// the module's own adapter reads them there with its own client.
import { createHmac } from 'node:crypto';
import type { DemoApi, DemoOrder, DemoOrderState } from '../../src/core/platform-module.ts';
import { sameSecret } from '../../src/same-secret.ts';
import { createBigCommerceAdapter } from './adapter.ts';
import { BigCommerceApi } from './admin-api.ts';

/** One step of a demo order: the hook's scope, and the order's status after it (BigCommerce's status ids). */
export interface BigCommerceStep {
  scope: string;
  status: number;
}

/** BigCommerce's names of the statuses the demo's orders pass through. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  2: 'Shipped',
  4: 'Refunded',
  5: 'Cancelled',
  7: 'Awaiting Payment',
  10: 'Completed',
  11: 'Awaiting Fulfillment',
};

/** The demo store's access token for this run: the module's client sends it, the demo's API takes nothing else. */
export const demoAccessToken = (secret: string) =>
  createHmac('sha256', secret).update('loyalty-bridge bigcommerce demo access token').digest('base64url');

/** A time as V2 writes it: "Sun, 24 Mar 2013 23:07:53 +0000". */
const v2Time = (at: string) => new Date(at).toUTCString().replace('GMT', '+0000');
const money = (amount: string) => Number(amount).toFixed(4);

/** The order as GET v2/orders/<id> answers it. */
function v2Order(state: DemoOrderState, customerId: (order: DemoOrder) => number) {
  const { order, id } = state;
  const step = state.step as BigCommerceStep;
  const off = order.code ? order.code.amount : '0';
  // subtotal_ex_tax is before the order's discounts; the total is what the customer paid.
  const subtotal = (Number(order.total) + Number(off)).toFixed(4);
  const { customer } = order;
  return {
    id,
    customer_id: customerId(order),
    date_created: v2Time(state.createdAt),
    date_modified: v2Time(state.at),
    status_id: step.status,
    status: STATUS_NAMES[step.status] ?? '',
    subtotal_ex_tax: subtotal,
    subtotal_inc_tax: subtotal,
    total_ex_tax: money(order.total),
    total_inc_tax: money(order.total),
    refunded_amount: step.status === 4 ? money(order.total) : '0.0000',
    currency_code: 'USD',
    default_currency_code: 'USD',
    discount_amount: '0.0000',
    coupon_discount: money(off),
    // The demo's cart ships, and ships free (demo-storefront.ts): a free-shipping code's order is read like any other.
    shipping_address_count: 1,
    base_shipping_cost: '0.0000',
    shipping_cost_ex_tax: '0.0000',
    shipping_cost_inc_tax: '0.0000',
    order_source: 'www',
    external_source: null,
    is_deleted: false,
    billing_address: {
      first_name: customer.first,
      last_name: customer.last,
      country_iso2: 'US',
      phone: customer.phone ?? '',
      email: customer.email,
    },
  };
}

/** GET v2/orders/<id>/coupons: the code the order was paid with. */
const v2Coupons = ({ order, id }: DemoOrderState) =>
  order.code
    ? [
        {
          id: 1,
          coupon_id: 1,
          order_id: id,
          code: order.code.code,
          amount: money(order.code.amount),
          type: 0,
          discount: Number(order.code.amount),
        },
      ]
    : [];

export function bigCommerceDemoApi(at: { storeHash: string; customerId: (order: DemoOrder) => number }): DemoApi {
  const { storeHash } = at;
  const clients = new Map<string, BigCommerceApi>();
  return {
    adapter({ url, secret }) {
      // One client for the address the bridge listens at, made once it is known (at the first read).
      const api = () => {
        const baseUrl = url();
        const client =
          clients.get(baseUrl) ??
          new BigCommerceApi({ storeHash, accessToken: demoAccessToken(secret), baseUrl, tokenSettings: 'the demo' });
        clients.set(baseUrl, client);
        return client;
      };
      return createBigCommerceAdapter({
        clientSecret: secret,
        apiFor: async (asked) => (asked === storeHash ? api() : undefined),
        defaultShop: storeHash,
      });
    },
    answer({ method, path, headers, secret, orders }) {
      const read = new RegExp(`^/stores/${storeHash}/v2/orders/(\\d+)(/coupons)?$`).exec(path);
      if (method !== 'GET' || !read) return undefined;
      if (!sameSecret(headers['x-auth-token'] ?? '', demoAccessToken(secret)))
        return { status: 401, body: [{ status: 401, message: 'You are not authorized to access this resource.' }] };
      const state = orders.find(({ id }) => String(id) === read[1]);
      if (!state) return { status: 404, body: [{ status: 404, message: 'The requested resource was not found.' }] };
      return { status: 200, body: read[2] ? v2Coupons(state) : v2Order(state, at.customerId) };
    },
  };
}
