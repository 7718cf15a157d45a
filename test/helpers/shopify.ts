// Signing and payloads for Shopify tests: the project's own fixtures, built
// here, and the same HMAC Shopify computes (base64 SHA-256 over the raw bytes).
import { createHmac } from 'node:crypto';
import type { ShopifyOwn } from '../../adapters/shopify/module.ts';
import type { Platforms } from '../../src/composition/platforms.ts';

export const SHOPIFY_SECRET = 'shpss_test_secret_for_loyalty_bridge';
export const SHOP = 'lb-test-store.myshopify.com';

export const signShopify = (body: string | Buffer, secret = SHOPIFY_SECRET): string =>
  createHmac('sha256', secret).update(body).digest('base64');

let sequence = 0;

export interface ShopifyHeaderOptions {
  topic: string;
  body: string | Buffer;
  webhookId?: string;
  shop?: string;
  secret?: string;
  /** Shopify's newer header names, shopify-* instead of X-Shopify-*. */
  newStyle?: boolean;
  /** When Shopify says the event happened: now, by default. */
  triggeredAt?: Date;
  /** X-Shopify-Event-Id: the same on every subscription's copy of one event. */
  eventId?: string;
}

export function shopifyHeaders({
  topic,
  body,
  webhookId,
  shop = SHOP,
  secret = SHOPIFY_SECRET,
  newStyle = false,
  triggeredAt = new Date(),
  eventId,
}: ShopifyHeaderOptions): Record<string, string> {
  const prefix = newStyle ? 'shopify-' : 'X-Shopify-';
  return {
    'content-type': 'application/json',
    [`${prefix}Hmac-Sha256`]: signShopify(body, secret),
    [`${prefix}Topic`]: topic,
    [`${prefix}Shop-Domain`]: shop,
    [`${prefix}API-Version`]: '2026-04',
    [`${prefix}Webhook-Id`]: webhookId ?? `b54557e4-bdd9-4b37-8a5f-bf7d70b${String(++sequence).padStart(5, '0')}`,
    [`${prefix}Triggered-At`]: triggeredAt.toISOString(),
    ...(eventId ? { [`${prefix}Event-Id`]: eventId } : {}),
  };
}

export interface OrderOptions {
  /** Exact digits; written into the JSON as a bare number, as Shopify does. */
  id: string;
  financialStatus?: string;
  fulfillmentStatus?: string | null;
  cancelledAt?: string | null;
  email?: string | null;
  phone?: string | null;
  customerPhone?: string | null;
  test?: boolean;
  totalPrice?: string;
  /** After discounts, before shipping and tax; the total when not given. */
  subtotalPrice?: string;
  landingSite?: string;
  updatedAt?: string;
  noteAttributes?: Array<{ name: string; value: string }>;
  discountCodes?: Array<{ code: string; amount: string; type: string }>;
  refunds?: unknown[];
  customer?: Record<string, unknown> | null;
  sourceName?: string;
  /** The shop's currency; USD when not given. */
  currency?: string;
}

/** A REST order payload as Shopify's order webhooks carry it, as JSON text. */
export function shopifyOrderJson(options: OrderOptions): string {
  const order = {
    id: '__ID__',
    admin_graphql_api_id: `gid://shopify/Order/${options.id}`,
    name: `#${options.id.slice(-4)}`,
    order_number: Number(options.id.slice(-4)),
    email: options.email === undefined ? 'grace@example.com' : options.email,
    contact_email: null,
    phone: options.phone ?? null,
    created_at: '2026-11-20T09:00:00-05:00',
    updated_at: options.updatedAt ?? '2026-11-20T10:00:00-05:00',
    cancelled_at: options.cancelledAt ?? null,
    financial_status: options.financialStatus ?? 'paid',
    fulfillment_status: options.fulfillmentStatus === undefined ? null : options.fulfillmentStatus,
    test: options.test ?? false,
    currency: options.currency ?? 'USD',
    total_price: options.totalPrice ?? '120.00',
    subtotal_price: options.subtotalPrice ?? options.totalPrice ?? '120.00',
    subtotal_price_set: {
      shop_money: {
        amount: options.subtotalPrice ?? options.totalPrice ?? '120.00',
        currency_code: options.currency ?? 'USD',
      },
    },
    source_name: options.sourceName ?? 'web',
    landing_site: options.landingSite ?? '/collections/all?utm_source=newsletter',
    discount_codes: options.discountCodes ?? [],
    note_attributes: options.noteAttributes ?? [],
    refunds: options.refunds ?? [],
    customer:
      options.customer === undefined
        ? {
            id: 7001,
            first_name: 'Grace',
            last_name: 'Hopper',
            email: 'grace@example.com',
            phone: options.customerPhone ?? null,
            default_address: { country_code: 'US' },
          }
        : options.customer,
    billing_address: { first_name: 'Grace', last_name: 'Hopper', phone: '(212) 555-0142', country_code: 'US' },
    shipping_address: { first_name: 'G', last_name: 'Hopper', phone: null, country_code: 'US' },
    line_items: [{ id: 1, title: 'Compiler', quantity: 1, price: options.totalPrice ?? '120.00' }],
  };
  return JSON.stringify(order).replace('"__ID__"', options.id);
}

/** A refunds/create payload for an order, returning `amount`. */
export function shopifyRefundJson(orderId: string, refundId: string, amount: string): string {
  const refund = {
    id: '__REFUND__',
    order_id: '__ORDER__',
    created_at: '2026-11-21T08:00:00-05:00',
    note: 'Customer returned it',
    refund_line_items: [],
    transactions: [{ id: 1, kind: 'refund', status: 'success', amount, currency: 'USD' }],
  };
  return JSON.stringify(refund).replace('"__REFUND__"', refundId).replace('"__ORDER__"', orderId);
}

/** Posts order `id` from `shop`, signed as Shopify signs it, to a running bridge; answers its status and body. */
export async function postShopifyOrder(
  baseUrl: string,
  shop: string,
  id: string,
  { topic = 'orders/paid', secret = SHOPIFY_SECRET, order = {} as Partial<OrderOptions> } = {},
): Promise<{ status: number; body: { result?: string; reason?: string } }> {
  const body = shopifyOrderJson({ id, ...order });
  const response = await fetch(`${baseUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body, shop, secret }),
    body,
  });
  return { status: response.status, body: (await response.json()) as { result?: string; reason?: string } };
}

/** Shopify's parts as its module built them (its access to each shop), where Shopify is configured. */
export const shopifyPartsOf = (platforms: Pick<Platforms, 'modules'>) =>
  (platforms.modules.find(({ module }) => module.name === 'shopify')?.parts.own as ShopifyOwn | undefined)?.shopify;
