// Shopify's shop in the first run's demo store: orders paid, fulfilled, refunded, cancelled, referred, a
// test order, one without a phone, each step delivered as Shopify signs it.
import type { DemoOrder, PlatformDemo } from '../../src/core/platform-module.ts';
import type { BenefitKind } from '../../src/core/reward-benefit.ts';
import { DEMO_CUSTOMER_ID, shopifyDeliveryHeaders, shopifyDemoStorefront } from './demo-storefront.ts';

const SHOPIFY_CODE_TYPE: Record<BenefitKind, string> = {
  amount_off: 'fixed_amount',
  percent_off: 'percentage',
  free_shipping: 'shipping',
};

const SHOP = 'loyalty-bridge-demo.myshopify.com';

interface Step {
  topic: string;
  financial: string;
  fulfillment?: string | null;
  cancelled?: boolean;
}

const paid: Step = { topic: 'orders/paid', financial: 'paid' };

const ORDERS: DemoOrder<Step>[] = [
  {
    customer: { first: 'Ada', last: 'Lovelace', email: 'ada@example.com', phone: '+44 7911 123456' },
    total: '120.00',
    steps: [paid, { topic: 'orders/fulfilled', financial: 'paid', fulfillment: 'fulfilled' }],
  },
  {
    customer: { first: 'Grace', last: 'Hopper', email: 'grace@example.com', phone: '+1 212 555 0142' },
    total: '89.50',
    campaign: '1',
    steps: [paid],
  },
  {
    customer: { first: 'Alan', last: 'Turing', email: 'alan@example.com', phone: '+44 7700 900123' },
    total: '45.00',
    steps: [paid, { topic: 'orders/updated', financial: 'refunded' }],
  },
  {
    customer: { first: 'Edsger', last: 'Dijkstra', email: 'edsger@example.com', phone: null },
    total: '30.00',
    steps: [
      { topic: 'orders/create', financial: 'pending' },
      { topic: 'orders/cancelled', financial: 'voided', cancelled: true },
    ],
  },
  {
    customer: { first: 'Test', last: 'Order', email: 'test-order@example.com', phone: null },
    total: '1.00',
    test: true,
    steps: [paid],
  },
];

function body(id: number, number: number, order: DemoOrder<Step>, step: Step, at: string): string {
  const { customer } = order;
  return JSON.stringify({
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#${number}`,
    order_number: number,
    email: customer.email,
    phone: customer.phone,
    created_at: at,
    updated_at: at,
    cancelled_at: step.cancelled ? at : null,
    financial_status: step.financial,
    fulfillment_status: step.fulfillment ?? null,
    test: order.test ?? false,
    currency: 'USD',
    total_price: order.total,
    source_name: 'web',
    note_attributes: order.campaign
      ? [
          { name: 'loyalty_campaign', value: order.campaign },
          { name: 'loyalty_referrer', value: 'ADA-FRIEND' },
        ]
      : [],
    // Shopify's discount_codes[].type: fixed_amount, percentage or shipping.
    discount_codes: order.code
      ? [{ code: order.code.code, amount: order.code.amount, type: SHOPIFY_CODE_TYPE[order.code.kind] }]
      : [],
    refunds: [],
    customer: {
      // A checkout's on the store page is the signed-in customer's.
      id: order.code ? Number(DEMO_CUSTOMER_ID) : id + 1,
      first_name: customer.first,
      last_name: customer.last,
      email: customer.email,
      phone: customer.phone,
    },
    billing_address: {
      first_name: customer.first,
      last_name: customer.last,
      phone: customer.phone,
      country_code: 'US',
    },
  });
}

export const shopifyDemo: PlatformDemo<Step> = {
  shop: SHOP,
  settings: (secret) => ({ SHOPIFY_API_SECRET: secret, SHOPIFY_SHOPS: [SHOP] }),
  orders: ORDERS,
  delivery({ id, number, order, step, at, secret }) {
    const text = body(id, number, order, step, at);
    return { body: text, headers: shopifyDeliveryHeaders({ topic: step.topic, body: text, shop: SHOP, at }, secret) };
  },
  // Ada's first order is paid and fulfilled: her points are approved, to spend on the store page.
  storefront: shopifyDemoStorefront({ shop: SHOP, customer: ORDERS[0]!.customer, paidStep: paid }),
};
