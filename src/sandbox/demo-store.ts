// The demo store: on a first run (sandbox mode, no platform configured) it plays a small Shopify shop and a
// WooCommerce site that send signed deliveries through the bridge's real webhook routes (orders paid,
// fulfilled, refunded, cancelled, referred, a test order, one without a phone), so that within a minute the
// dashboard shows earnings. It never runs against a real loyalty service or beside a real store.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';

export const DEMO_SHOPIFY_SHOP = 'loyalty-bridge-demo.myshopify.com';
export const DEMO_WOO_SITE = 'https://demo-woocommerce.loyalty-bridge.invalid';

/** Secrets the demo signs with and the bridge checks with, made for this run only. */
export interface DemoSecrets {
  shopify: string;
  woocommerce: string;
}

export const demoSecrets = (): DemoSecrets => ({
  shopify: randomBytes(24).toString('base64url'),
  woocommerce: randomBytes(24).toString('base64url'),
});

interface Customer {
  first: string;
  last: string;
  email: string;
  phone: string | null;
}

type Step =
  | { platform: 'shopify'; topic: string; financial: string; fulfillment?: string | null; cancelled?: boolean }
  | { platform: 'woocommerce'; topic: string; status: string };

interface DemoOrder {
  platform: 'shopify' | 'woocommerce';
  customer: Customer;
  total: string;
  test?: boolean;
  /** A referred order: its campaign and its referrer's code, as cart attributes. */
  campaign?: string;
  steps: Step[];
}

const paid = { platform: 'shopify', topic: 'orders/paid', financial: 'paid' } as const;

/** One round of the demo: each order's life, step by step. */
const ROUND: DemoOrder[] = [
  {
    platform: 'shopify',
    customer: { first: 'Ada', last: 'Lovelace', email: 'ada@example.com', phone: '+44 7911 123456' },
    total: '120.00',
    steps: [paid, { platform: 'shopify', topic: 'orders/fulfilled', financial: 'paid', fulfillment: 'fulfilled' }],
  },
  {
    platform: 'woocommerce',
    customer: { first: 'Katherine', last: 'Johnson', email: 'katherine@example.com', phone: null },
    total: '64.00',
    steps: [
      { platform: 'woocommerce', topic: 'order.created', status: 'processing' },
      { platform: 'woocommerce', topic: 'order.updated', status: 'completed' },
    ],
  },
  {
    platform: 'shopify',
    customer: { first: 'Grace', last: 'Hopper', email: 'grace@example.com', phone: '+1 212 555 0142' },
    total: '89.50',
    campaign: '1',
    steps: [paid],
  },
  {
    platform: 'shopify',
    customer: { first: 'Alan', last: 'Turing', email: 'alan@example.com', phone: '+44 7700 900123' },
    total: '45.00',
    steps: [paid, { platform: 'shopify', topic: 'orders/updated', financial: 'refunded' }],
  },
  {
    platform: 'shopify',
    customer: { first: 'Edsger', last: 'Dijkstra', email: 'edsger@example.com', phone: null },
    total: '30.00',
    steps: [
      { platform: 'shopify', topic: 'orders/create', financial: 'pending' },
      { platform: 'shopify', topic: 'orders/cancelled', financial: 'voided', cancelled: true },
    ],
  },
  {
    platform: 'woocommerce',
    customer: { first: 'Dorothy', last: 'Vaughan', email: 'dorothy@example.com', phone: '+1 757 555 0199' },
    total: '210.00',
    steps: [
      { platform: 'woocommerce', topic: 'order.created', status: 'processing' },
      { platform: 'woocommerce', topic: 'order.updated', status: 'refunded' },
    ],
  },
  {
    platform: 'shopify',
    customer: { first: 'Test', last: 'Order', email: 'test-order@example.com', phone: null },
    total: '1.00',
    test: true,
    steps: [paid],
  },
];

function shopifyBody(id: number, order: DemoOrder, step: Extract<Step, { platform: 'shopify' }>, at: string): string {
  const { customer } = order;
  return JSON.stringify({
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: `#D${id % 100_000}`,
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
    discount_codes: [],
    refunds: [],
    customer: {
      id: id + 1,
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

function wooBody(id: number, order: DemoOrder, step: Extract<Step, { platform: 'woocommerce' }>, at: string): string {
  const { customer } = order;
  return JSON.stringify({
    id,
    number: String(id),
    status: step.status,
    currency: 'EUR',
    total: order.total,
    date_created_gmt: at.slice(0, 19),
    date_modified_gmt: at.slice(0, 19),
    created_via: 'checkout',
    billing: {
      first_name: customer.first,
      last_name: customer.last,
      email: customer.email,
      phone: customer.phone ?? '',
      country: 'FR',
    },
    coupon_lines: [],
    meta_data: [],
    refunds: step.status === 'refunded' ? [{ id: id + 1, total: `-${order.total}`, reason: '' }] : [],
  });
}

export interface DemoStoreOptions {
  /** The bridge's own address. */
  url: string;
  secrets: DemoSecrets;
  logger: Logger;
  /** Between two deliveries. */
  paceMs?: number;
}

export class DemoStore {
  readonly #o: Required<DemoStoreOptions>;
  #timer: NodeJS.Timeout | undefined;
  #queue: Array<() => Promise<void>> = [];
  #round = 0;
  #sent = 0;
  #wooDeliveries = Math.floor(Date.now() / 1000);

  constructor(options: DemoStoreOptions) {
    this.#o = { paceMs: 2_500, ...options };
  }

  get sent(): number {
    return this.#sent;
  }

  start(): void {
    this.#tick();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue = [];
  }

  #tick = (): void => {
    if (this.#queue.length === 0) this.#queue = this.#nextRound();
    const send = this.#queue.shift();
    void send?.().catch((error: unknown) => this.#o.logger.debug({ err: error }, 'the demo store could not deliver'));
    this.#timer = setTimeout(this.#tick, this.#o.paceMs);
    this.#timer.unref();
  };

  /** The orders of a round, their steps interleaved as a shop's day would have them. */
  #nextRound(): Array<() => Promise<void>> {
    const round = this.#round++;
    const orders = ROUND.map((order, i) => ({ order, id: 9_000_000 + round * 100 + i }));
    const sends: Array<() => Promise<void>> = [];
    const longest = Math.max(...ROUND.map((order) => order.steps.length));
    for (let stepIndex = 0; stepIndex < longest; stepIndex++) {
      for (const { order, id } of orders) {
        const step = order.steps[stepIndex];
        if (step) sends.push(() => this.#deliver(id, order, step));
      }
    }
    return sends;
  }

  async #deliver(id: number, order: DemoOrder, step: Step): Promise<void> {
    const at = new Date().toISOString();
    let headers: Record<string, string>;
    let body: string;
    if (step.platform === 'shopify') {
      body = shopifyBody(id, order, step, at);
      headers = {
        'x-shopify-hmac-sha256': createHmac('sha256', this.#o.secrets.shopify).update(body).digest('base64'),
        'x-shopify-topic': step.topic,
        'x-shopify-shop-domain': DEMO_SHOPIFY_SHOP,
        'x-shopify-api-version': '2026-10',
        'x-shopify-webhook-id': randomUUID(),
        'x-shopify-triggered-at': at,
      };
    } else {
      body = wooBody(id, order, step, at);
      const [resource, event] = step.topic.split('.');
      headers = {
        'x-wc-webhook-source': `${DEMO_WOO_SITE}/`,
        'x-wc-webhook-topic': step.topic,
        'x-wc-webhook-resource': resource ?? 'order',
        'x-wc-webhook-event': event ?? 'updated',
        'x-wc-webhook-id': '1',
        'x-wc-webhook-delivery-id': String(++this.#wooDeliveries),
        'x-wc-webhook-signature': createHmac('sha256', this.#o.secrets.woocommerce).update(body).digest('base64'),
      };
    }
    const response = await fetch(`${this.#o.url}/webhooks/${step.platform}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(5_000),
    });
    if (response.ok) this.#sent++;
  }
}
