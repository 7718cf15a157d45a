// WooCommerce and BigCommerce as they behave in production, against the
// running bridge: each store is a fake over HTTP (test/helpers/fake-*.ts,
// built from the platforms' documentation) that sends its webhooks to the
// bridge the way the platform does, with the platform's deadline, and answers
// the bridge's reads; the loyalty service is the sandbox the bridge serves.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BC_SECRET_HEADER } from '../../adapters/bigcommerce/verify.ts';
import type { ReconciliationState } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { BC_SECRET, BC_STORE, bcOrder, bcPayload } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { WOO_SECRET, wooOrderJson, type WooOrderOptions } from '../helpers/woocommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'stores-admin-token-0123456789abcdef';
const BC_HEADER_SECRET = 'bc-header-secret-0123456789abcdef';
const BC_SCOPES = [
  'store/order/created',
  'store/order/updated',
  'store/order/statusUpdated',
  'store/order/refund/created',
  'store/order/archived',
];

let woo: FakeWooCommerce;
let bc: FakeBigCommerce;
let bridge: RunningBridge;
const logLines: Array<{ level: number; msg: string }> = [];

const storeEnv = () => ({
  WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
  WOOCOMMERCE_URL: woo.url,
  WOOCOMMERCE_CONSUMER_KEY: 'ck_test',
  WOOCOMMERCE_CONSUMER_SECRET: 'cs_test',
  BIGCOMMERCE_CLIENT_SECRET: BC_SECRET,
  BIGCOMMERCE_STORE_HASH: BC_STORE,
  BIGCOMMERCE_ACCESS_TOKEN: 'bc-token',
  BIGCOMMERCE_WEBHOOK_SECRET: BC_HEADER_SECRET,
  BIGCOMMERCE_API_URL: bc.url,
  RECONCILE_INTERVAL_MINUTES: '0',
  ADMIN_TOKEN,
});

/** The merchant's webhooks in WooCommerce, pointing at a bridge. */
const pointWooAt = (url: string) => {
  woo.webhooks.splice(0, woo.webhooks.length);
  for (const [id, topic] of [
    [1, 'order.created'],
    [2, 'order.updated'],
  ] as const) {
    woo.webhooks.push({
      id,
      name: `loyalty-bridge ${topic}`,
      status: 'active',
      topic,
      delivery_url: `${url}/webhooks/woocommerce`,
      secret: WOO_SECRET,
      failures: 0,
    });
  }
};
/** Hooks as an app created them in BigCommerce's developer portal: deliveries signed the Standard Webhooks way. */
const signedHooksAt = (url: string) => {
  bc.hooks.splice(0, bc.hooks.length);
  for (const [i, scope] of BC_SCOPES.entries())
    bc.hooks.push({
      id: 100 + i,
      scope,
      destination: `${url}/webhooks/bigcommerce`,
      is_active: true,
      headers: null,
      created_at: 0,
      updated_at: 0,
    });
};

beforeAll(async () => {
  woo = await startFakeWooCommerce({ consumerKey: 'ck_test', consumerSecret: 'cs_test' });
  bc = await startFakeBigCommerce({ storeHash: BC_STORE, accessToken: 'bc-token' });
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg: string }) },
  });
  bridge = await startTestBridge(storeEnv(), logger);
});
afterAll(async () => {
  await bridge.stop();
  await woo.close();
  await bc.close();
});
beforeEach(() => {
  pointWooAt(bridge.http.localUrl);
  signedHooksAt(bridge.http.localUrl);
  bridge.sandbox?.faults.configure({});
});

const post = async (platform: string, body: string, headers: Record<string, string>, to = bridge) => {
  const response = await fetch(`${to.http.localUrl}/webhooks/${platform}`, { method: 'POST', headers, body });
  return { status: response.status, result: ((await response.json().catch(() => ({}))) as { result?: string }).result };
};
const admin = async <T>(path: string, init: RequestInit = {}, to = bridge): Promise<T> => {
  const response = await fetch(`${to.http.localUrl}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
  return (await response.json()) as T;
};
const earnings = (orderId: string, on = bridge) =>
  on.sandbox?.store.snapshot().earnings.filter((candidate) => candidate.orderId === orderId) ?? [];
const earning = (orderId: string, on = bridge) => earnings(orderId, on)[0];
const setWooOrder = (options: WooOrderOptions) =>
  woo.orders.set(options.id, JSON.parse(wooOrderJson(options)) as Record<string, unknown>);
const reconciliation = () =>
  bridge.engine.store.getRecord(raw<ReconciliationState>('reconciliation'), `woocommerce:${woo.host}`);
const settled = () => bridge.engine.drain();

describe('WooCommerce', () => {
  it('answers the ping of a new webhook with exactly 200', async () => {
    expect(
      (await post('woocommerce', 'webhook_id=3', { 'content-type': 'application/x-www-form-urlencoded' })).status,
    ).toBe(200);
  });

  it('earns on processing, approves on completed, cancels on refunded, from the deliveries WooCommerce sends', async () => {
    setWooOrder({ id: 5101, status: 'processing', modified: '2026-11-19T10:00:00' });
    expect(await woo.deliver('order.created', 5101)).toEqual([200]);
    await settled();
    expect(earning('5101')).toMatchObject({
      status: 'pending',
      email: 'katherine@example.com',
      mobile: '+33612345678',
    });
    setWooOrder({ id: 5101, status: 'completed', modified: '2026-11-19T11:00:00' });
    expect(await woo.deliver('order.updated', 5101)).toEqual([200]);
    await settled();
    expect(earning('5101')?.status).toBe('approved');
    setWooOrder({ id: 5101, status: 'refunded', modified: '2026-11-19T12:00:00' });
    await woo.deliver('order.updated', 5101);
    await settled();
    expect(earning('5101')?.status).toBe('cancelled');
  });

  it('answers 401 to an unsigned order and keeps nothing', async () => {
    const body = wooOrderJson({ id: 5102, status: 'processing' });
    expect((await post('woocommerce', body, { 'content-type': 'application/json' })).status).toBe(401);
    await settled();
    expect(earning('5102')).toBeUndefined();
    expect(await bridge.engine.store.getOrder(`woocommerce:${woo.host}:5102`)).toBeUndefined();
  });

  it('earns, at the next reconciliation, an order whose webhook was never delivered (WooCommerce never resends)', async () => {
    setWooOrder({
      id: 5199,
      status: 'processing',
      email: 'missed@example.com',
      modified: new Date(Date.now() - 60_000).toISOString().slice(0, 19),
    });
    await bridge.reconciler.run('woocommerce');
    await settled();
    expect(earning('5199')).toMatchObject({ status: 'pending', email: 'missed@example.com' });
    const state = await reconciliation();
    expect(state?.lastRun).toMatchObject({ failed: 0 });
    expect(state?.lastRun?.changed).toBeGreaterThanOrEqual(1);

    // The next run starts from the mark, less the overlap; the same order again changes nothing.
    await bridge.reconciler.run('woocommerce');
    const asked = woo.requests.filter((request) => request.path === '/wp-json/wc/v3/orders').at(-1);
    const overlapMs = 10 * 60_000;
    expect(Date.parse(`${asked?.query.modified_after}Z`)).toBe(
      Math.floor((Date.parse(state?.highWaterMark ?? '') - overlapMs) / 1000) * 1000,
    );
    expect((await reconciliation())?.lastRun).toMatchObject({ changed: 0 });
  });

  it('keeps the high-water mark where it was when a run fails', async () => {
    const before = (await reconciliation())?.highWaterMark;
    woo.failListingsWith = 500;
    try {
      await bridge.reconciler.run('woocommerce');
    } finally {
      woo.failListingsWith = undefined;
    }
    const after = await reconciliation();
    expect(after?.highWaterMark).toBe(before);
    expect(after?.lastRun?.errors[0]).toMatch(/500/);
  });

  /** The bridge was unreachable at the address the webhook has: more than five deliveries fail and WooCommerce disables it. */
  const disableByFailures = async (topic: string, orderId: number) => {
    const webhook = woo.webhooks.find((each) => each.topic === topic)!;
    const goodUrl = webhook.delivery_url;
    webhook.delivery_url = 'http://127.0.0.1:1/webhooks/woocommerce';
    for (let attempt = 0; attempt < 7; attempt++) await woo.deliver(topic, orderId);
    webhook.delivery_url = goodUrl;
    return webhook;
  };

  it('turns a webhook WooCommerce disabled after failed deliveries back on at the next reconciliation, and says so', async () => {
    setWooOrder({ id: 5140, status: 'processing', modified: new Date(Date.now() - 60_000).toISOString().slice(0, 19) });
    const updated = await disableByFailures('order.updated', 5140);
    expect(updated.status).toBe('disabled');
    const lines = logLines.length;
    await bridge.reconciler.run('woocommerce');
    expect(updated.status).toBe('active');
    expect(logLines.slice(lines).some((line) => line.level === 40 && line.msg === 'subscriptions put right')).toBe(
      true,
    );
    expect((await runCli(['status', '--url', bridge.http.localUrl, '--token', ADMIN_TOKEN], {})).stdout).not.toMatch(
      /!!/,
    );
    const { connections } = await admin<{
      connections: Array<{ platform: string; subscriptions: Array<{ repaired: string[]; problems: unknown[] }> }>;
    }>('/connections');
    expect(connections.find((each) => each.platform === 'woocommerce')?.subscriptions[0]).toMatchObject({
      problems: [],
      repaired: [expect.stringMatching(/^order\.updated: re-enabled webhook 2 \(it was disabled\)$/)],
    });
    await settled();
    expect(earning('5140')?.status).toBe('pending');
  });

  it('with a read-only key, only raises the alarm for a disabled webhook: status, dashboard data, metric, log line', async () => {
    woo.keys.get('ck_test')!.permissions = 'read';
    try {
      setWooOrder({
        id: 5150,
        status: 'processing',
        modified: new Date(Date.now() - 60_000).toISOString().slice(0, 19),
      });
      const updated = await disableByFailures('order.updated', 5150);
      expect(updated.status).toBe('disabled');

      await bridge.reconciler.run('woocommerce');
      expect(updated.status).toBe('disabled');
      const status = await runCli(['status', '--url', bridge.http.localUrl, '--token', ADMIN_TOKEN], {});
      expect(status.stdout).toMatch(
        /!! woocommerce .*disabled its webhook "loyalty-bridge order.updated".*set Status to Active/,
      );
      const { connections } = await admin<{
        connections: Array<{
          platform: string;
          subscriptions: Array<{ problems: Array<{ kind: string; fix: string }> }>;
        }>;
      }>('/connections');
      expect(connections.find((each) => each.platform === 'woocommerce')?.subscriptions[0]?.problems).toEqual([
        expect.objectContaining({
          kind: 'disabled',
          fix: expect.stringContaining('WooCommerce > Settings > Advanced > Webhooks'),
        }),
      ]);
      // /metrics names no shop (METRICS_SHOP_LABELS is off): the platform's sum.
      const metric = (text: string) =>
        /loyalty_bridge_subscription_problems\{platform="woocommerce",kind="disabled"\} (\d+)/.exec(text)?.[1];
      expect(metric(await (await fetch(`${bridge.http.localUrl}/metrics`)).text())).toBe('1');
      expect(logLines.some((line) => line.level >= 50 && /disabled its webhook/.test(line.msg))).toBe(true);
      // The order the failed deliveries carried was brought in by the same reconciliation.
      await settled();
      expect(earning('5150')?.status).toBe('pending');

      // The merchant turns it back on: the alarm clears at the next check.
      updated.status = 'active';
      await bridge.reconciler.run('woocommerce');
      expect(metric(await (await fetch(`${bridge.http.localUrl}/metrics`)).text())).toBe('0');
      expect((await runCli(['status', '--url', bridge.http.localUrl, '--token', ADMIN_TOKEN], {})).stdout).not.toMatch(
        /!!/,
      );
    } finally {
      woo.keys.get('ck_test')!.permissions = 'read_write';
    }
  });
});

describe('BigCommerce', () => {
  it('reads the order behind each thin, signed delivery after answering it: earns, approves, cancels', async () => {
    bc.orders.set(6101, bcOrder(6101, 11));
    expect(await bc.deliver('store/order/created', 6101, { signWith: BC_SECRET })).toEqual([200]);
    await settled();
    expect(earning('6101')).toMatchObject({ status: 'pending', email: 'dorothy@example.com' });
    bc.orders.set(6101, bcOrder(6101, 2));
    await bc.deliver('store/order/statusUpdated', 6101, { signWith: BC_SECRET });
    await settled();
    expect(earning('6101')?.status).toBe('approved');
    bc.orders.set(6101, bcOrder(6101, 4, { refunded: '150.0000' }));
    await bc.deliver('store/order/refund/created', 6101, { signWith: BC_SECRET });
    await settled();
    expect(earning('6101')?.status).toBe('cancelled');
  });

  it('acknowledges within the platform’s deadline while its API hangs, then reads and processes once it answers', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => 6300 + i);
    for (const id of ids) bc.orders.set(id, bcOrder(id, 11));
    const release = bc.hold();
    try {
      // Each delivery is given 5 s, as a platform gives it; the order read behind it waits on the held API.
      const statuses = [];
      for (const id of ids) statuses.push(...(await bc.deliver('store/order/created', id, { signWith: BC_SECRET })));
      expect(statuses).toEqual(ids.map(() => 200));
      await eventually(() => expect(bc.waiting).toBeGreaterThan(0));
      expect(ids.filter((id) => earning(String(id)))).toEqual([]);
    } finally {
      release();
    }
    await eventually(
      () => expect(ids.map((id) => earning(String(id))?.status)).toEqual(ids.map(() => 'pending')),
      20_000,
    );
    expect(await admin<{ deadLetters: unknown[] }>('/dead-letters')).toMatchObject({ deadLetters: [] });
  });

  it('register --platform bigcommerce creates the hooks with the secret header, and the deliveries they carry are accepted', async () => {
    bc.hooks.splice(0, bc.hooks.length);
    const env = { ...storeEnv(), PUBLIC_URL: bridge.http.localUrl, DATA_DIR: tempDataDir() };
    const first = await runCli(['register', '--platform', 'bigcommerce'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    for (const scope of BC_SCOPES)
      expect(first.stdout).toMatch(new RegExp(`created\\s+${scope.replaceAll('/', '\\/')}`));
    expect(bc.hooks.map((hook) => hook.headers)).toEqual(
      BC_SCOPES.map(() => ({ [BC_SECRET_HEADER]: BC_HEADER_SECRET })),
    );
    expect(first.stdout).not.toContain(BC_HEADER_SECRET);
    const again = await runCli(['register', '--platform', 'bigcommerce'], env);
    expect(again.stdout.match(/present/g)).toHaveLength(BC_SCOPES.length);
    expect(bc.hooks).toHaveLength(BC_SCOPES.length);

    bc.orders.set(6201, bcOrder(6201, 11));
    expect(await bc.deliver('store/order/created', 6201)).toEqual([200]);
    await settled();
    expect(earning('6201')?.status).toBe('pending');

    // The same delivery with another secret in the header is refused, and leaves nothing.
    const body = bcPayload('store/order/created', 6202);
    bc.orders.set(6202, bcOrder(6202, 11));
    expect(
      (
        await post('bigcommerce', body, {
          'content-type': 'application/json',
          [BC_SECRET_HEADER]: 'x'.repeat(BC_HEADER_SECRET.length),
        })
      ).status,
    ).toBe(401);
    expect((await post('bigcommerce', body, { 'content-type': 'application/json' })).status).toBe(401);
    await settled();
    expect(earning('6202')).toBeUndefined();
  });

  it('processes each update of an order although the payload hash is the same; the same delivery again is a duplicate', async () => {
    // For store/order/updated the payload is only {type, id}: its hash is the same for every update of the order.
    const hash = 'f0a4c2b0d6e5b1f4c2a9e8d7c6b5a4f3e2d1c0b9';
    const headers = { 'content-type': 'application/json', [BC_SECRET_HEADER]: BC_HEADER_SECRET };
    const now = Math.floor(Date.now() / 1000);
    bc.orders.set(6401, bcOrder(6401, 11));
    const paid = bcPayload('store/order/updated', 6401, {}, hash, now - 120);
    expect(await post('bigcommerce', paid, headers)).toMatchObject({ status: 200, result: 'accepted' });
    await settled();
    expect(earning('6401')?.status).toBe('pending');

    bc.orders.set(6401, bcOrder(6401, 2));
    expect(
      await post('bigcommerce', bcPayload('store/order/updated', 6401, {}, hash, now - 60), headers),
    ).toMatchObject({ status: 200, result: 'accepted' });
    expect(await post('bigcommerce', paid, headers)).toMatchObject({ status: 200, result: 'duplicate' });
    await settled();
    expect(earning('6401')?.status).toBe('approved');
  });

  it('turns a hook BigCommerce deactivated back on at the next reconciliation, logged and shown', async () => {
    const env = { ...storeEnv(), PUBLIC_URL: bridge.http.localUrl, DATA_DIR: tempDataDir() };
    bc.hooks.splice(0, bc.hooks.length);
    await runCli(['register', '--platform', 'bigcommerce'], env);
    const deactivated = bc.hooks.find((hook) => hook.scope === 'store/order/statusUpdated')!;
    deactivated.is_active = false;
    const lines = logLines.length;
    await bridge.reconciler.run('bigcommerce');
    expect(deactivated.is_active).toBe(true);
    expect(
      bc.requests.some(
        (request) =>
          request.method === 'PUT' && request.path === `/v3/hooks/${deactivated.id}` && request.status === 200,
      ),
    ).toBe(true);
    expect(logLines.slice(lines).some((line) => line.level === 40 && line.msg === 'subscriptions put right')).toBe(
      true,
    );
    const { connections } = await admin<{
      connections: Array<{ platform: string; subscriptions: Array<{ repaired: string[] }> }>;
    }>('/connections');
    expect(connections.find((each) => each.platform === 'bigcommerce')?.subscriptions[0]?.repaired).toEqual([
      `store/order/statusUpdated: reactivated hook ${deactivated.id}`,
    ]);
    expect((await runCli(['status', '--url', bridge.http.localUrl, '--token', ADMIN_TOKEN], {})).stdout).not.toMatch(
      /!!/,
    );
  });
});

describe('two stores on one loyalty account', () => {
  it('the same order number on a second store becomes a dead letter naming both orders and the setting, and never touches the first store’s points', async () => {
    setWooOrder({ id: 4242, status: 'processing', email: 'woo-customer@example.com' });
    await woo.deliver('order.created', 4242);
    await settled();
    expect(earning('4242')).toMatchObject({ status: 'pending', email: 'woo-customer@example.com' });

    bc.orders.set(4242, bcOrder(4242, 11, { email: 'bc-customer@example.com' }));
    await bc.deliver('store/order/created', 4242, { signWith: BC_SECRET });
    await settled();
    bc.orders.set(4242, bcOrder(4242, 5));
    await bc.deliver('store/order/statusUpdated', 4242, { signWith: BC_SECRET });
    await settled();

    expect(earnings('4242')).toEqual([
      expect.objectContaining({ status: 'pending', email: 'woo-customer@example.com' }),
    ]);
    const { deadLetters } = await admin<{ deadLetters: Array<{ reason: string; orderKey?: string }> }>('/dead-letters');
    const letter = deadLetters.find((each) => each.orderKey === `bigcommerce:${BC_STORE}:4242`);
    expect(letter?.reason).toContain(`woocommerce:${woo.host}:4242`);
    expect(letter?.reason).toContain('LOYALTY_ORDER_ID_PREFIXES');
  });

  it('with a prefix per platform, each store earns and cancels its own order 4343', async () => {
    const prefixed = await startTestBridge({ ...storeEnv(), LOYALTY_ORDER_ID_PREFIXES: 'woocommerce=1,bigcommerce=2' });
    try {
      pointWooAt(prefixed.http.localUrl);
      signedHooksAt(prefixed.http.localUrl);
      setWooOrder({ id: 4343, status: 'processing', email: 'woo-customer@example.com' });
      bc.orders.set(4343, bcOrder(4343, 11, { email: 'bc-customer@example.com' }));
      await woo.deliver('order.created', 4343);
      await bc.deliver('store/order/created', 4343, { signWith: BC_SECRET });
      await prefixed.engine.drain();
      expect(earning('14343', prefixed)).toMatchObject({ status: 'pending', email: 'woo-customer@example.com' });
      expect(earning('24343', prefixed)).toMatchObject({ status: 'pending', email: 'bc-customer@example.com' });

      bc.orders.set(4343, bcOrder(4343, 5));
      await bc.deliver('store/order/statusUpdated', 4343, { signWith: BC_SECRET });
      await prefixed.engine.drain();
      expect(earning('24343', prefixed)?.status).toBe('cancelled');
      expect(earning('14343', prefixed)?.status).toBe('pending');
      expect(await admin('/dead-letters', {}, prefixed)).toMatchObject({ deadLetters: [] });
    } finally {
      await prefixed.stop();
    }
  });
});

describe('refused credentials', () => {
  it('pause every call without a dead letter, show it, and resume when the merchant says try again', async () => {
    bridge.sandbox?.faults.configure({ forced: { status: 401, count: 1_000_000, message: 'Invalid auth' } });
    const ids = [5401, 5402, 5403];
    for (const id of ids) {
      setWooOrder({ id, status: 'processing' });
      await woo.deliver('order.created', id);
    }
    const before = (await admin<{ deadLetters: unknown[] }>('/dead-letters')).deadLetters.length;
    await eventually(async () =>
      expect((await admin<{ upstream: { credentialsRefused: boolean } }>('/status')).upstream.credentialsRefused).toBe(
        true,
      ),
    );
    expect((await runCli(['status', '--url', bridge.http.localUrl, '--token', ADMIN_TOKEN], {})).stdout).toMatch(
      /^!! The default account: the loyalty service refuses its API key or brand id, so its calls are paused\..* Put LOYALTY_API_KEY and LOYALTY_BRAND_ID right/m,
    );
    expect((await admin<{ deadLetters: unknown[] }>('/dead-letters')).deadLetters).toHaveLength(before);
    expect(await admin('/upstream/probe', { method: 'POST' })).toEqual({ paused: true, accounts: ['default'] });

    bridge.sandbox?.faults.configure({});
    expect(await admin('/upstream/probe', { method: 'POST' })).toEqual({ paused: false, accounts: [] });
    await eventually(() =>
      expect(ids.map((id) => earning(String(id))?.status)).toEqual(['pending', 'pending', 'pending']),
    );
    expect((await admin<{ deadLetters: unknown[] }>('/dead-letters')).deadLetters).toHaveLength(before);
  });
});
