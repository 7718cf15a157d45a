// Signing and payloads for WooCommerce tests: the project's own, built here.
import { createHmac } from 'node:crypto';

export const WOO_SECRET = 'wc-webhook-secret-for-tests';
export const WOO_SITE = 'https://wp.lb-test.example';

/** A WooCommerce store with webhooks and read access to its REST API (answered by nock in tests). */
export const WOO_ENV = {
  WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
  WOOCOMMERCE_URL: WOO_SITE,
  WOOCOMMERCE_CONSUMER_KEY: 'ck_test',
  WOOCOMMERCE_CONSUMER_SECRET: 'cs_test',
} as const;

export const signWoo = (body: string | Buffer, secret = WOO_SECRET) =>
  createHmac('sha256', secret).update(body).digest('base64');

export function wooHeaders(
  topic: string,
  body: string | Buffer,
  options: { secret?: string; webhookId?: string; deliveryId?: string } = {},
): Record<string, string> {
  const [resource, event] = topic.split('.');
  return {
    'content-type': 'application/json',
    'x-wc-webhook-source': `${WOO_SITE}/`,
    'x-wc-webhook-topic': topic,
    'x-wc-webhook-resource': resource ?? 'order',
    'x-wc-webhook-event': event ?? 'updated',
    'x-wc-webhook-id': options.webhookId ?? '7',
    'x-wc-webhook-delivery-id': options.deliveryId ?? String(Math.floor(Date.now() / 1000)),
    'x-wc-webhook-signature': signWoo(body, options.secret),
  };
}

export interface WooOrderOptions {
  id: number;
  status: string;
  total?: string;
  modified?: string;
  email?: string;
  refunds?: Array<{ id: number; total: string }>;
  coupons?: Array<{ code: string; discount: string }>;
  meta?: Array<{ key: string; value: unknown }>;
}

export function wooOrderJson(options: WooOrderOptions): string {
  return JSON.stringify({
    id: options.id,
    parent_id: 0,
    number: String(options.id),
    status: options.status,
    currency: 'EUR',
    total: options.total ?? '64.00',
    date_created_gmt: '2026-11-19T09:00:00',
    date_modified_gmt: options.modified ?? '2026-11-19T10:00:00',
    created_via: 'checkout',
    billing: {
      first_name: 'Katherine',
      last_name: 'Johnson',
      email: options.email ?? 'katherine@example.com',
      phone: '06 12 34 56 78',
      country: 'FR',
    },
    shipping: { first_name: 'Katherine', last_name: 'Johnson', country: 'FR' },
    coupon_lines: (options.coupons ?? []).map((coupon, i) => ({ id: i + 1, ...coupon, meta_data: [] })),
    meta_data: options.meta ?? [],
    refunds: (options.refunds ?? []).map((refund) => ({ ...refund, reason: '' })),
    line_items: [{ id: 1, name: 'Slide rule', quantity: 1, total: options.total ?? '64.00' }],
  });
}
