// Signing and payloads for BigCommerce tests: Standard Webhooks signatures
// computed here, independently of the library the bridge verifies with.
import { createHmac } from 'node:crypto';
import type { RunningBridge } from '../../src/composition/main.ts';
import { keptPageKey } from '../../src/composition/kept-page-key.ts';
import { bridgeShopTokens, type BridgeShopTokens } from '../../src/http/bridge-shop-token.ts';
import { modulePagePurpose } from '../../src/http/platform-routes.ts';
import type { FakeApp } from './fake-bigcommerce.ts';

export const BC_SECRET = 'bc-client-secret-for-tests';
export const BC_STORE = 'lbtest01';

let sequence = 0;

export function signBigCommerce(id: string, timestamp: number, body: string, secret = BC_SECRET): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function bcHeaders(
  body: string,
  options: { id?: string; timestamp?: number; secret?: string; signature?: string } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${++sequence}_${Date.now()}`;
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': options.signature ?? signBigCommerce(id, timestamp, body, options.secret),
  };
}

export function bcPayload(
  scope: string,
  orderId: number,
  extra: Record<string, unknown> = {},
  hash?: string,
  createdAt = Math.floor(Date.now() / 1000),
): string {
  return JSON.stringify({
    scope,
    store_id: '1001234567',
    data: { type: 'order', id: orderId, ...extra },
    hash: hash ?? `${scope}-${orderId}-${++sequence}`.replace(/\W/g, ''),
    created_at: createdAt,
    producer: `stores/${BC_STORE}`,
  });
}

export function bcOrder(
  id: number,
  statusId: number,
  options: {
    refunded?: string;
    total?: string;
    subtotal?: string;
    couponDiscount?: string;
    email?: string;
    /** Its coupons (type: BigCommerce's order coupon discount type, 0 per_item_discount unless said; 4 free_shipping). */
    coupons?: Array<{ code: string; discount: number; type?: number }>;
    /** Where given, the order ships to one address at this cost ("0.0000": free). */
    shippingCost?: string;
  } = {},
) {
  return {
    id,
    customer_id: 12,
    date_created: 'Thu, 19 Nov 2026 09:00:00 +0000',
    date_modified: `Thu, 19 Nov 2026 ${String(10 + (statusId % 12)).padStart(2, '0')}:00:00 +0000`,
    status_id: statusId,
    status: 'whatever',
    total_inc_tax: options.total ?? '150.0000',
    subtotal_ex_tax: options.subtotal ?? options.total ?? '150.0000',
    currency_code: 'USD',
    refunded_amount: options.refunded ?? '0.0000',
    coupon_discount: options.couponDiscount ?? '0.0000',
    ...(options.shippingCost === undefined
      ? {}
      : {
          shipping_address_count: 1,
          base_shipping_cost: options.shippingCost,
          shipping_cost_ex_tax: options.shippingCost,
          shipping_cost_inc_tax: options.shippingCost,
        }),
    order_source: 'www',
    // Served by the fake at /v2/orders/<id>/coupons.
    ...(options.coupons
      ? {
          coupons: options.coupons.map((coupon, i) => ({
            id: i + 1,
            coupon_id: 100 + i,
            order_id: id,
            type: 0,
            amount: coupon.discount,
            ...coupon,
          })),
        }
      : {}),
    billing_address: {
      first_name: 'Dorothy',
      last_name: 'Vaughan',
      email: options.email ?? 'dorothy@example.com',
      phone: '+1 757 555 0199',
      country_iso2: 'US',
    },
  };
}

/** The app as registered in BigCommerce's Developer Portal, its callbacks at the bridge's address. */
export const appAt = (
  bridgeUrl: string,
  clientId: string,
  clientSecret: string,
  scope = 'store_v2_orders_read_only store_v2_information_read_only',
): FakeApp => ({
  clientId,
  clientSecret,
  authCallback: `${bridgeUrl}/bigcommerce/auth`,
  loadCallback: `${bridgeUrl}/bigcommerce/load`,
  uninstallCallback: `${bridgeUrl}/bigcommerce/uninstall`,
  removeUserCallback: `${bridgeUrl}/bigcommerce/remove_user`,
  scope,
});

/** The prefix of a BigCommerce store page's sessions: the module family's. */
export const BC_PAGE_PREFIX = modulePagePurpose('bigcommerce').prefix;

/** Sessions for a BigCommerce store's page as the bridge signs them, with the key it keeps for them. */
export const bcPageTokens = async (bridge: RunningBridge): Promise<BridgeShopTokens> =>
  bridgeShopTokens(
    [await keptPageKey(bridge.engine.store, 'bigcommerce-store-page')],
    Date.now,
    modulePagePurpose('bigcommerce'),
  );
