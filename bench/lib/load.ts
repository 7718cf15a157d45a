// The acknowledgement load: signed Shopify orders/paid deliveries, each with
// its own webhook id and order id, posted by autocannon at 50 connections.
// Bodies and signatures are made before the clock starts, so the load
// generator spends its time sending, not hashing.
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

let nextOrder = 1;

function delivery(secret: string, runId: string) {
  const id = `${runId}${String(nextOrder++).padStart(9, '0')}`;
  const body = JSON.stringify({
    id: Number(id.slice(-15)),
    name: `#${id.slice(-6)}`,
    email: `buyer${id.slice(-6)}@example.com`,
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
    customer: { first_name: 'Bench', last_name: 'Mark', email: `buyer${id.slice(-6)}@example.com` },
    billing_address: { first_name: 'Bench', last_name: 'Mark', country_code: 'US', phone: '+12125550142' },
    line_items: [{ id: 1, title: 'Widget', quantity: 1, price: '59.00' }],
    discount_codes: [],
    note_attributes: [],
  });
  return {
    method: 'POST' as const,
    path: '/webhooks/shopify',
    body,
    headers: {
      'content-type': 'application/json',
      'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64'),
      'x-shopify-topic': 'orders/paid',
      'x-shopify-shop-domain': 'bench-store.myshopify.com',
      'x-shopify-api-version': '2026-04',
      'x-shopify-webhook-id': `bench-${id}`,
    },
  };
}

export async function ackLoad(url: string, secret: string, options: { seconds: number; connections: number; expectedRps?: number }): Promise<AckResult> {
  // Enough distinct deliveries for the run, at a generous guess of the rate.
  const count = Math.ceil((options.expectedRps ?? 5_000) * options.seconds * 1.5);
  const runId = String(Date.now() % 1_000_000);
  const requests = Array.from({ length: count }, () => delivery(secret, runId));
  let next = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    requests: [{ setupRequest: (request) => ({ ...request, ...requests[next++ % requests.length] }) }],
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
