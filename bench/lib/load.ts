// The loads: signed Shopify orders/paid deliveries, each with its own webhook
// id and order id; thin BigCommerce deliveries with the hooks' secret header;
// and reads of the admin API. Posted by autocannon. Each body is a template
// with new ids, signed as it is sent (a few microseconds), so no delivery
// repeats however fast the target is.
import { createHmac } from 'node:crypto';
import autocannon from 'autocannon';

export interface AckResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  total: number;
}

const TEMPLATE = JSON.stringify({
  id: 0,
  name: '#NAME',
  email: 'buyerEMAIL@example.com',
  phone: '+12125550142',
  financial_status: 'paid',
  fulfillment_status: null,
  cancelled_at: null,
  test: false,
  currency: 'USD',
  total_price: '59.00',
  source_name: 'web',
  updated_at: '2026-11-21T10:00:00Z',
  created_at: '2026-11-21T09:59:00Z',
  customer: { first_name: 'Bench', last_name: 'Mark', email: 'buyerEMAIL@example.com' },
  billing_address: { first_name: 'Bench', last_name: 'Mark', country_code: 'US', phone: '+12125550142' },
  line_items: [{ id: 1, title: 'Widget', quantity: 1, price: '59.00' }],
  discount_codes: [],
  note_attributes: [],
});

let sequence = 0;

/** A new signed delivery: a fresh order id and webhook id each time, so none is a duplicate. */
export function signedDelivery(secret: string, runId: number) {
  const n = ++sequence;
  const orderId = String(runId * 1_000_000_000 + n);
  const body = TEMPLATE.replace('"id":0', `"id":${orderId}`)
    .replace('#NAME', `#${n}`)
    .replaceAll('EMAIL', String(n % 100_000));
  const request = {
    method: 'POST' as const,
    path: '/webhooks/shopify',
    body,
    headers: {
      'content-type': 'application/json',
      'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64'),
      'x-shopify-topic': 'orders/paid',
      'x-shopify-shop-domain': 'bench-store.myshopify.com',
      'x-shopify-api-version': '2026-04',
      'x-shopify-webhook-id': `bench-${orderId}`,
    },
  };
  return { orderId, request };
}

let bigCommerceSequence = 0;

/** A thin BigCommerce delivery with the secret header of the hooks `register` creates; a new order each time. */
export function bigCommerceDelivery(headerSecret: string, runId: number) {
  const n = ++bigCommerceSequence;
  const orderId = runId * 1_000_000 + n;
  const body = JSON.stringify({
    scope: 'store/order/created',
    store_id: '1001234567',
    data: { type: 'order', id: orderId },
    hash: `bench${orderId}`,
    created_at: Math.floor(Date.now() / 1000),
    producer: 'stores/benchstore',
  });
  return {
    orderId,
    request: {
      method: 'POST' as const,
      path: '/webhooks/bigcommerce',
      body,
      headers: { 'content-type': 'application/json', 'x-loyalty-bridge-token': headerSecret },
    },
  };
}

type RequestMaker = (runId: number) => {
  request: { method: 'POST' | 'GET'; path: string; body?: string; headers: Record<string, string> };
};

async function load(
  url: string,
  make: RequestMaker,
  options: { seconds: number; connections: number },
): Promise<AckResult> {
  const runId = 100 + (Date.now() % 800_000) + Math.floor(Math.random() * 1000) * 1000;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    requests: [{ setupRequest: (request) => ({ ...request, ...make(runId).request }) }],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

export const ackLoad = (url: string, secret: string, options: { seconds: number; connections: number }) =>
  load(url, (runId) => signedDelivery(secret, runId), options);

export const bigCommerceLoad = (url: string, headerSecret: string, options: { seconds: number; connections: number }) =>
  load(url, (runId) => bigCommerceDelivery(headerSecret, runId), options);

/** The same load spread over several instances behind one address: throughput adds up; the latencies are the worst instance's. */
export async function spreadLoad(
  urls: string[],
  secret: string,
  options: { seconds: number; connections: number },
): Promise<AckResult> {
  const results = await Promise.all(
    urls.map((url) =>
      ackLoad(url, secret, {
        seconds: options.seconds,
        connections: Math.max(1, Math.round(options.connections / urls.length)),
      }),
    ),
  );
  const sum = (pick: (result: AckResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const worst = (pick: (result: AckResult) => number) => Math.max(...results.map(pick));
  return {
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    p50: worst((r) => r.p50),
    p99: worst((r) => r.p99),
    max: worst((r) => r.max),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    total: sum((r) => r.total),
  };
}

/** Reads of the admin API (the order listing, the status) by a few dashboards at once. */
export const adminLoad = (
  url: string,
  path: string,
  token: string,
  options: { seconds: number; connections: number },
) => load(url, () => ({ request: { method: 'GET', path, headers: { authorization: `Bearer ${token}` } } }), options);
