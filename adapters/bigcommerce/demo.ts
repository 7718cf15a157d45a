// BigCommerce's store in the first run's demo store: orders shipped and refunded, each step delivered as
// BigCommerce sends a hook (its payload names the order only, signed with the app's client secret as Standard
// Webhooks), the order itself read by the module from the demo shop's API (demo-api.ts), and its store page
// (demo-storefront.ts).
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { DemoOrder, PlatformDemo } from '../../src/core/platform-module.ts';
import { bigCommerceDemoApi, type BigCommerceStep } from './demo-api.ts';
import { bigCommerceDemoStorefront, DEMO_CUSTOMER_ID } from './demo-storefront.ts';

/** The demo store's hash, as BigCommerce names a store in its API's path. */
const STORE_HASH = 'lbdemo01';
const STORE_ID = '1001000001';

/** A checkout paid now: BigCommerce creates the order awaiting fulfillment, and sends store/order/created. */
const paid: BigCommerceStep = { scope: 'store/order/created', status: 11 };

const ORDERS: DemoOrder<BigCommerceStep>[] = [
  {
    customer: { first: 'Hedy', last: 'Lamarr', email: 'hedy@example.com', phone: '+1 310 555 0117' },
    total: '75.00',
    steps: [paid, { scope: 'store/order/statusUpdated', status: 2 }],
  },
  {
    customer: { first: 'Margaret', last: 'Hamilton', email: 'margaret@example.com', phone: '+1 617 555 0163' },
    total: '140.00',
    steps: [paid, { scope: 'store/order/statusUpdated', status: 4 }],
  },
];

/** The hook's payload, as BigCommerce sends it: the order's id (and a status change's two ids), nothing of the order. */
function body(id: number, step: BigCommerceStep, previous: number | undefined, at: string): string {
  const data = {
    type: 'order',
    id,
    ...(step.scope === 'store/order/statusUpdated' && previous !== undefined
      ? { status: { previous_status_id: previous, new_status_id: step.status } }
      : {}),
  };
  return JSON.stringify({
    created_at: Math.floor(Date.parse(at) / 1000),
    store_id: STORE_ID,
    producer: `stores/${STORE_HASH}`,
    scope: step.scope,
    // BigCommerce's SHA-1 of the payload's data.
    hash: createHash('sha1').update(JSON.stringify(data)).digest('hex'),
    data,
  });
}

/** Standard Webhooks' signature: HMAC-SHA256 of "<id>.<timestamp>.<body>" with the client secret, base64. */
const signature = (id: string, timestamp: number, text: string, secret: string) =>
  `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${text}`).digest('base64')}`;

export const bigCommerceDemo: PlatformDemo<BigCommerceStep> = {
  shop: STORE_HASH,
  // The app's client secret signs the hooks; no client id, so no app of the merchant's is served, and no store is
  // configured (the demo's is read through its own API), so a store connected later is the merchant's first.
  settings: (secret) => ({ BIGCOMMERCE_CLIENT_SECRET: secret, BIGCOMMERCE_STORES: [STORE_HASH] }),
  orders: ORDERS,
  delivery({ id, order, step, at, secret }) {
    const previous = order.steps[order.steps.indexOf(step) - 1]?.status;
    const text = body(id, step, previous, at);
    const webhookId = randomUUID();
    const timestamp = Math.floor(Date.parse(at) / 1000);
    return {
      body: text,
      headers: {
        'webhook-id': webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(webhookId, timestamp, text, secret),
      },
    };
  },
  // BigCommerce names an order by its id.
  orderName: ({ id }) => `#${id}`,
  // Standard Webhooks refuses a timestamp over five minutes old: the same message (its id) is signed at `now`.
  resigned({ headers, body: text }, secret, now) {
    const timestamp = Math.floor(now.getTime() / 1000);
    const webhookId = headers['webhook-id'] ?? '';
    return {
      ...headers,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(webhookId, timestamp, text, secret),
    };
  },
  // A checkout's on the store page is the signed-in customer's; the others' are guests' (0), as BigCommerce says.
  api: bigCommerceDemoApi({
    storeHash: STORE_HASH,
    customerId: (order) => (order.code ? Number(DEMO_CUSTOMER_ID) : 0),
  }),
  // Hedy's first order is shipped: her points are approved, to spend on the store page.
  storefront: bigCommerceDemoStorefront({ storeHash: STORE_HASH, customer: ORDERS[0]!.customer, paidStep: paid }),
};
