// WooCommerce's site in the first run's demo store: orders completed and refunded, each step delivered as
// WooCommerce signs it, and its store page (demo-storefront.ts).
import { createHmac } from 'node:crypto';
import type { DemoOrder, PlatformDemo } from '../../src/core/platform-module.ts';
import { DEMO_CUSTOMER_ID, wooDemoStorefront } from './demo-storefront.ts';
import { wooShopNamed } from './shop-identity.ts';

const SITE = 'https://demo-woocommerce.loyalty-bridge.invalid';

interface Step {
  topic: string;
  status: string;
}

/** A checkout paid now: WooCommerce creates the order as processing, and sends order.created. */
const paid: Step = { topic: 'order.created', status: 'processing' };

const ORDERS: DemoOrder<Step>[] = [
  {
    customer: { first: 'Katherine', last: 'Johnson', email: 'katherine@example.com', phone: '+33 6 12 34 56 78' },
    total: '64.00',
    steps: [
      { topic: 'order.created', status: 'processing' },
      { topic: 'order.updated', status: 'completed' },
    ],
  },
  {
    customer: { first: 'Dorothy', last: 'Vaughan', email: 'dorothy@example.com', phone: '+1 757 555 0199' },
    total: '210.00',
    steps: [
      { topic: 'order.created', status: 'processing' },
      { topic: 'order.updated', status: 'refunded' },
    ],
  },
];

function body(id: number, number: number, order: DemoOrder<Step>, step: Step, at: string): string {
  const { customer } = order;
  return JSON.stringify({
    id,
    number: String(number),
    status: step.status,
    currency: 'EUR',
    total: order.total,
    date_created_gmt: at.slice(0, 19),
    date_modified_gmt: at.slice(0, 19),
    created_via: 'checkout',
    // A checkout's on the store page is the signed-in customer's; the others' are guests' (0), as WooCommerce says.
    customer_id: order.code ? Number(DEMO_CUSTOMER_ID) : 0,
    billing: {
      first_name: customer.first,
      last_name: customer.last,
      email: customer.email,
      phone: customer.phone ?? '',
      country: 'FR',
    },
    coupon_lines: order.code
      ? [{ id: id + 2, code: order.code.code.toLowerCase(), discount: order.code.amount, discount_tax: '0.00' }]
      : [],
    meta_data: [],
    refunds: step.status === 'refunded' ? [{ id: id + 1, total: `-${order.total}`, reason: '' }] : [],
  });
}

export const wooDemo: PlatformDemo<Step> = {
  shop: SITE,
  settings: (secret) => ({ WOOCOMMERCE_WEBHOOK_SECRET: secret, WOOCOMMERCE_URL: SITE }),
  orders: ORDERS,
  delivery({ id, number, order, step, at, secret, sequence }) {
    const text = body(id, number, order, step, at);
    const [resource, event] = step.topic.split('.');
    return {
      body: text,
      headers: {
        'x-wc-webhook-source': `${SITE}/`,
        'x-wc-webhook-topic': step.topic,
        'x-wc-webhook-resource': resource ?? 'order',
        'x-wc-webhook-event': event ?? 'updated',
        'x-wc-webhook-id': '1',
        'x-wc-webhook-delivery-id': String(sequence),
        'x-wc-webhook-signature': createHmac('sha256', secret).update(text).digest('base64'),
      },
    };
  },
  // Katherine's first order is completed: her points are approved, to spend on the store page.
  storefront: wooDemoStorefront({ shop: wooShopNamed(SITE), customer: ORDERS[0]!.customer, paidStep: paid }),
};
