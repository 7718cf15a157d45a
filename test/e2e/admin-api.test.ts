// The admin API against the running bridge: every route behind the token,
// and what each does for a merchant.
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { WOO_SITE, wooOrderJson, WOO_ENV } from '../helpers/woocommerce.ts';

const TOKEN = 'admin-token-for-tests-0123456789';
let bridge: RunningBridge;
beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  bridge = await startTestBridge({
    ADMIN_TOKEN: TOKEN,
    ADMIN_TOKEN_LABEL: 'ops-laptop',
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    ...WOO_ENV,
    RECONCILE_INTERVAL_MINUTES: '0',
  });
});
afterAll(async () => {
  await bridge.stop();
  nock.cleanAll();
  nock.enableNetConnect();
});

/** token null: no Authorization header at all. */
async function call(method: string, path: string, body?: unknown, token: string | null = TOKEN) {
  const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as Record<string, any> };
}
async function shopifyOrder(id: string, topic = 'orders/paid', extra: Parameters<typeof shopifyOrderJson>[0] = { id }) {
  const body = shopifyOrderJson(extra);
  await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic, body }),
    body,
  });
  await bridge.engine.drain();
}

const ROUTES: Array<[string, string]> = [
  ['GET', '/status'],
  ['GET', '/orders'],
  ['GET', '/orders/shopify:x:1'],
  ['POST', '/resync'],
  ['GET', '/resync'],
  ['GET', '/resync/abc'],
  ['GET', '/dead-letters'],
  ['POST', '/dead-letters/retry-all'],
  ['POST', '/dead-letters/abc/retry'],
  ['DELETE', '/dead-letters/abc'],
  ['GET', '/customers/points?email=a@example.com'],
  ['GET', '/adjustments'],
  ['POST', '/adjustments/earn'],
  ['POST', '/adjustments/redeem'],
  ['GET', '/reconciliation'],
  ['GET', '/accounts'],
  ['POST', '/accounts'],
  ['GET', '/accounts/default'],
  ['PATCH', '/accounts/abc'],
  ['DELETE', '/accounts/abc'],
  ['GET', '/accounts/abc/settings'],
  ['PATCH', '/accounts/abc/settings'],
  ['POST', '/accounts/abc/check'],
  ['GET', '/shops'],
  ['PATCH', '/shops/shopify/x.myshopify.com'],
  ['GET', '/audit'],
];

describe('every admin route refuses a missing or wrong token', () => {
  it.each(ROUTES)('%s %s', async (method, path) => {
    for (const token of [null, 'wrong-token-wrong-token', `${TOKEN}x`, '']) {
      const response = await call(method, path, method === 'GET' || method === 'DELETE' ? undefined : {}, token);
      expect(response.status, `token ${token}`).toBe(401);
      expect(response.text).not.toContain(TOKEN);
    }
  });
});

describe('orders', () => {
  it('finds an order by its number, with its facts, target, upstream state and calls', async () => {
    await shopifyOrder('3100000000001');
    const list = await call('GET', '/orders?q=3100000000001');
    expect(list.body).toMatchObject({
      total: 1,
      orders: [{ platform: 'shopify', orderId: '3100000000001', state: 'earned', upstream: 'earned' }],
    });
    const one = await call('GET', `/orders/${encodeURIComponent(list.body.orders[0].key)}`);
    expect(one.body.order).toMatchObject({
      facts: ['placed', 'paid'],
      target: { state: 'earned' },
      upstream: { points: 'earned' },
    });
    expect(one.body.order.calls).toMatchObject([{ operation: 'earn', outcome: 'success' }]);
  });

  it('filters by state and skip reason, and pages', async () => {
    await shopifyOrder('3100000000002', 'orders/paid', { id: '3100000000002', email: null, customer: null });
    expect(
      (await call('GET', '/orders?state=skipped&reason=missing_email')).body.orders.map(
        (order: { orderId: string }) => order.orderId,
      ),
    ).toContain('3100000000002');
    const page = await call('GET', '/orders?limit=1&page=2');
    expect(page.body).toMatchObject({ page: 2, limit: 1 });
    expect(page.body.orders).toHaveLength(1);
  });

  it.each([
    ['/orders?state=lost', 'state'],
    ['/orders?limit=1000', 'limit'],
    ['/orders?since=yesterday', 'since'],
    ['/orders?colour=red', ''],
  ])('answers 400 naming the field for %s', async (path, field) => {
    const response = await call('GET', path);
    expect(response.status).toBe(400);
    if (field) expect(response.body.field).toBe(field);
  });

  it('counts orders by state, platform and skip reason in the status', async () => {
    const { body } = await call('GET', '/status');
    expect(body.orders.byPlatform.shopify).toBeGreaterThanOrEqual(2);
    expect(body.orders.skipped.missing_email).toBeGreaterThanOrEqual(1);
    expect(body.rateLimit).toMatchObject({ limit: 100000 });
    expect(body.upstream.credentialsRefused).toBe(false);
  });
});

describe('resync', () => {
  it('starts with 202 and a job id, and reports progress until done', async () => {
    nock(WOO_SITE)
      .get('/wp-json/wc/v3/orders')
      .query(true)
      .reply(200, `[${wooOrderJson({ id: 4401, status: 'completed' })}]`, { 'X-WP-TotalPages': '1' });
    const started = await call('POST', '/resync', { platform: 'woocommerce', since: '2026-11-01' });
    expect(started.status).toBe(202);
    const id = started.body.job.id as string;
    await eventually(async () =>
      expect((await call('GET', `/resync/${id}`)).body.job).toMatchObject({
        status: 'done',
        progress: { fetched: 1, changed: 1, failed: 0 },
      }),
    );
    await bridge.engine.drain();
    expect(bridge.sandbox?.store.snapshot().earnings.find((earning) => earning.orderId === '4401')?.status).toBe(
      'approved',
    );
    expect((await call('GET', '/resync')).body.jobs.map((job: { id: string }) => job.id)).toContain(id);
    expect((await call('GET', '/resync/no-such-job')).status).toBe(404);
  });

  it('shows the state of reconciliation for each platform with API access', async () => {
    nock(WOO_SITE).get('/wp-json/wc/v3/orders').query(true).reply(200, '[]', { 'X-WP-TotalPages': '1' });
    await bridge.reconciler.run('woocommerce');
    const { body } = await call('GET', '/reconciliation');
    expect(body.platforms.woocommerce.lastRun).toMatchObject({ fetched: 0, failed: 0, errors: [] });
    expect(body.platforms.woocommerce.highWaterMark).toBeTruthy();
  });

  it('resyncs chosen orders by id', async () => {
    nock(WOO_SITE)
      .get('/wp-json/wc/v3/orders/4402')
      .reply(200, wooOrderJson({ id: 4402, status: 'processing' }));
    const started = await call('POST', '/resync', { platform: 'woocommerce', orderIds: ['4402'] });
    await eventually(async () =>
      expect((await call('GET', `/resync/${started.body.job.id}`)).body.job).toMatchObject({
        status: 'done',
        progress: { fetched: 1 },
      }),
    );
    await bridge.engine.drain();
    expect(bridge.sandbox?.store.snapshot().earnings.some((earning) => earning.orderId === '4402')).toBe(true);
  });

  it.each([
    [{ platform: 'woocommerce' }, 'give since'],
    [{ platform: 'woocommerce', since: 'last week' }, 'since'],
    [{ platform: 'shopify', since: '2026-11-01' }, 'no API access is configured for shopify'],
  ])('answers 400 to %j', async (body, message) => {
    const response = await call('POST', '/resync', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
  });
});

describe('dead letters', () => {
  it('lists a failed call, retries it once fixed, and it is gone', async () => {
    // The one forced failure must meet this order's earn, not a call left from an earlier test (the resync's earn).
    await bridge.engine.drain();
    bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
    await shopifyOrder('3100000000003');
    const letters = (await call('GET', '/dead-letters')).body.deadLetters as Array<{
      id: string;
      orderKey: string;
      operation: string;
    }>;
    const letter = letters.find((candidate) => candidate.orderKey?.endsWith('3100000000003'));
    expect(letter).toMatchObject({ operation: 'earn' });
    const retried = await call('POST', `/dead-letters/${letter?.id}/retry`);
    expect(retried.body).toEqual({ retried: true });
    await bridge.engine.drain();
    expect(bridge.sandbox?.store.snapshot().earnings.some((earning) => earning.orderId === '3100000000003')).toBe(true);
    expect(
      (await call('GET', '/dead-letters')).body.deadLetters.find(
        (candidate: { id: string }) => candidate.id === letter?.id,
      ),
    ).toBeUndefined();
  });

  it('keeps a delivery that is still unusable, says why, and discards it on request', async () => {
    // Authentic, a JSON object, and no order: its id is not a whole number.
    const body = '{"id": 1.5, "order_number": 1015, "financial_status": "paid", "broken": true}';
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    await bridge.engine.drain();
    // The list leaves the kept bodies out; each letter is read whole by its id.
    const listed = (await call('GET', '/dead-letters')).body.deadLetters as Array<{
      id: string;
      kind: string;
      delivery?: unknown;
    }>;
    expect(listed.every((candidate) => candidate.delivery === undefined)).toBe(true);
    let letter: { id: string; kind: string; delivery?: { body: string } } | undefined;
    for (const candidate of listed) {
      const whole = (await call('GET', `/dead-letters/${candidate.id}`)).body.deadLetter as typeof letter;
      // Kept as the ledger keeps a delivery: the fields translation reads (not "broken").
      if (whole?.delivery?.body === '{"id":1.5,"order_number":1015,"financial_status":"paid"}') letter = whole;
    }
    expect(letter?.kind).toBe('delivery');
    const retried = await call('POST', `/dead-letters/${letter?.id}/retry`);
    expect(retried.status).toBe(409);
    expect(retried.body.reason).toMatch(/no numeric id/);
    expect((await call('DELETE', `/dead-letters/${letter?.id}`)).body).toEqual({ discarded: letter?.id });
    expect((await call('DELETE', `/dead-letters/${letter?.id}`)).status).toBe(404);
  });

  it('retries all at once', async () => {
    expect((await call('POST', '/dead-letters/retry-all')).body).toHaveProperty('results');
  });
});

describe('customers and adjustments', () => {
  it("shows a customer's points history through the transaction operation", async () => {
    await shopifyOrder('3100000000004', 'orders/fulfilled', {
      id: '3100000000004',
      fulfillmentStatus: 'fulfilled',
      email: 'history@example.com',
    });
    const response = await call('GET', '/customers/points?email=history@example.com&type=ledger');
    expect(response.status).toBe(200);
    expect(response.body.type).toBe('ledger');
    expect(response.body.balance).toMatchObject({ approved: 100 });
  });

  it('answers 422 with the service message for an unknown customer', async () => {
    const response = await call('GET', '/customers/points?email=nobody-here@example.com');
    expect(response.status).toBe(422);
    expect(response.body.service).toMatchObject({ httpStatus: 400, message: 'Invalid Source' });
  });

  it('records a manual earn and a manual redeem with who asked and why', async () => {
    const earn = await call('POST', '/adjustments/earn', {
      activityId: '1',
      name: 'Hedy',
      email: 'hedy@example.com',
      mobile: '+12125550100',
      reason: 'goodwill for a late parcel',
    });
    expect(earn.status).toBe(201);
    expect(earn.body.adjustment).toMatchObject({
      kind: 'earn',
      by: 'ops-laptop',
      reason: 'goodwill for a late parcel',
      outcome: 'success',
    });
    const redeem = await call('POST', '/adjustments/redeem', {
      email: 'hedy@example.com',
      points: 10,
      reason: 'paid by phone',
    });
    expect(redeem.status).toBe(422);
    expect(redeem.body.adjustment).toMatchObject({ kind: 'redeem', outcome: 'failed', by: 'ops-laptop' });
    expect(redeem.body.error).toMatch(/exceeds the available balance/);
    expect((await call('GET', '/adjustments')).body.adjustments).toHaveLength(2);
  });

  it('does not send a manual earn again when its outcome is unknown: a dead letter says to check first', async () => {
    // The service makes the change, then fails: a manual earn carries no order id, so a repeat would earn twice.
    bridge.sandbox?.faults.configure({ failureRate: 1, failureStatus: 500, failurePhase: 'after' });
    const earn = await call('POST', '/adjustments/earn', {
      activityId: '1',
      name: 'Lin',
      email: 'lin.unknown@example.com',
      mobile: '+12125550111',
      reason: 'birthday',
    });
    bridge.sandbox?.faults.configure({});
    expect(earn.status).toBe(502);
    expect(earn.body.deadLetter).toBeTruthy();
    const earnings =
      bridge.sandbox?.store.snapshot().earnings.filter((earning) => earning.email === 'lin.unknown@example.com') ?? [];
    expect(earnings).toHaveLength(1);
    const letter = (
      (await call('GET', '/dead-letters')).body.deadLetters as Array<{ id: string; reason: string }>
    ).find((candidate) => candidate.id === earn.body.deadLetter);
    expect(letter?.reason).toMatch(/may or may not have been applied|outcome is unknown/i);
    await call('DELETE', `/dead-letters/${earn.body.deadLetter}`);
  });

  it.each([
    ['/adjustments/earn', { activityId: '1', name: 'x', email: 'x@example.com', mobile: '+12125550100' }, 'reason'],
    [
      '/adjustments/earn',
      { activityId: '1', name: 'x', email: 'not-mail', mobile: '+12125550100', reason: 'why not' },
      'email',
    ],
    ['/adjustments/redeem', { email: 'x@example.com', points: -5, reason: 'why not' }, 'points'],
    ['/adjustments/redeem', { points: 5, reason: 'why not' }, 'email'],
  ])('answers 400 naming the field for %s %j', async (path, body, field) => {
    const response = await call('POST', path, body);
    expect(response.status).toBe(400);
    expect(response.body.field).toBe(field);
  });
});

describe('operations endpoints', () => {
  it('serves Prometheus metrics: webhooks by result, upstream calls, pending jobs, the limiter', async () => {
    const text = await (await fetch(`${bridge.http.localUrl}/metrics`)).text();
    expect(text).toMatch(
      /loyalty_bridge_webhooks_received_total\{platform="shopify",topic="orders\/paid",result="accepted"\} \d+/,
    );
    expect(text).toMatch(/loyalty_bridge_upstream_calls_total\{operation="earn",outcome="success"\} \d+/);
    expect(text).toContain('loyalty_bridge_webhook_ack_seconds_bucket');
    expect(text).toContain('loyalty_bridge_upstream_call_seconds_bucket');
    expect(text).toContain('loyalty_bridge_jobs_pending');
    expect(text).toContain('loyalty_bridge_dead_letters');
    expect(text).toContain('loyalty_bridge_rate_limiter_queued');
  });

  it('is ready when the ledger can be written, and gives each request an id', async () => {
    const response = await fetch(`${bridge.http.localUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      ready: true,
      checks: { ledger: { ok: true }, upstream: { ok: true } },
    });
    expect(response.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
  });
});

describe('without ADMIN_TOKEN', () => {
  it('answers 404 on every admin route with a real loyalty service: admin is off', async () => {
    const other = await startTestBridge({
      LOYALTY_BASE_URL: 'http://127.0.0.1:9',
      LOYALTY_API_KEY: 'real-key',
      LOYALTY_BRAND_ID: 'real-brand',
    });
    try {
      expect(other.signInUrl).toBeUndefined();
      for (const [method, path] of ROUTES) {
        const response = await fetch(`${other.http.localUrl}/admin/api${path}`, {
          method,
          headers: { authorization: 'Bearer anything-at-all-long' },
        });
        expect(response.status, `${method} ${path}`).toBe(404);
      }
    } finally {
      await other.stop();
    }
  });

  it('in sandbox mode makes a token for this run, given only in the sign-in link’s fragment, never in a log line', async () => {
    const lines: string[] = [];
    const other = await startTestBridge(
      {},
      createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } }),
    );
    try {
      const link = new URL(other.signInUrl ?? '');
      expect(link.pathname).toBe('/admin/');
      const token = new URLSearchParams(link.hash.slice(1)).get('token') ?? '';
      expect(token.length).toBeGreaterThanOrEqual(24);
      const status = (bearer: string) =>
        fetch(`${other.http.localUrl}/admin/api/status`, { headers: { authorization: `Bearer ${bearer}` } }).then(
          (response) => response.status,
        );
      expect(await status(token)).toBe(200);
      expect(await status('anything-at-all-long')).toBe(401);
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      await other.stop();
    }
  });
});
