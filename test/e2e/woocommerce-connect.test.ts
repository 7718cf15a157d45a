// Connecting WooCommerce stores as a merchant does, against the running
// bridge behind https (test/helpers/https-front.ts) and fakes of WordPress
// with WooCommerce over HTTP: the admin API starts the connect, the merchant
// logs in to WordPress and approves, WooCommerce POSTs the keys to the
// bridge's callback, and the bridge makes its webhooks through the store's
// REST API. Then two stores on one bridge, each with its own key and secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WooConnection } from '../../adapters/woocommerce/stores.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable, startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { outboundPost } from '../helpers/outbound-post.ts';
import { signWoo, wooOrderJson, type WooOrderOptions } from '../helpers/woocommerce.ts';
import { answerConsent } from '../helpers/wordpress-merchant.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'connect-admin-token-0123456789abcdef';
const TOPICS = ['order.created', 'order.deleted', 'order.restored', 'order.updated'];

let front: HttpsFront;
let bridge: RunningBridge;
let storeA: FakeWooCommerce;
let storeB: FakeWooCommerce;
const logText: string[] = [];

const admin = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; text: string }> => {
  const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as T, text };
};
const startConnect = (store: string) =>
  admin<{ authorizeUrl: string; shop: string; error?: string }>('/stores/woocommerce/connect', {
    method: 'POST',
    body: JSON.stringify({ store }),
  });
const connection = (shop: string) =>
  bridge.engine.store.getRecord(raw<WooConnection>('session'), `woocommerce:${shop}`);
const shopOf = (fake: FakeWooCommerce) => fake.host;
const setOrder = (fake: FakeWooCommerce, options: WooOrderOptions) =>
  fake.orders.set(options.id, JSON.parse(wooOrderJson(options)) as Record<string, unknown>);
const earnings = (orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];
/** A callback as WooCommerce's server POSTs it, to the bridge's https address. */
const callback = (body: unknown) =>
  outboundPost(
    `${front.url}/woocommerce/auth/callback`,
    { 'content-type': 'application/json;charset=UTF-8' },
    JSON.stringify(body),
    5_000,
  );

/** Connects a store from start to end; returns where the merchant landed. */
async function connect(fake: FakeWooCommerce): Promise<URL> {
  const started = await startConnect(fake.url);
  expect(started.status).toBe(201);
  const back = await answerConsent(started.body.authorizeUrl, 'approve');
  await eventually(
    async () =>
      expect(
        fake.webhooks
          .filter((webhook) => webhook.status === 'active')
          .map((webhook) => webhook.topic)
          .sort(),
      ).toEqual(TOPICS),
    10_000,
  );
  return back;
}

describe.skipIf(!opensslAvailable)('connecting WooCommerce stores', () => {
  beforeAll(async () => {
    front = await startHttpsFront();
    storeA = await startFakeWooCommerce();
    storeB = await startFakeWooCommerce();
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logText.push(line) } });
    bridge = await startTestBridge(
      {
        PUBLIC_URL: front.url,
        ADMIN_TOKEN,
        RECONCILE_INTERVAL_MINUTES: '0',
        LOYALTY_ORDER_ID_PREFIXES: `woocommerce:${shopOf(storeA)}=1,woocommerce:${shopOf(storeB)}=2`,
      },
      logger,
    );
    front.forwardTo(bridge.http.localUrl);
  }, 30_000);
  afterAll(async () => {
    await bridge?.stop();
    await front?.close();
    await storeA?.close();
    await storeB?.close();
  });

  it('connects a store: the keys come to the callback, the webhooks are made with a secret of its own, and its orders earn', async () => {
    const started = await startConnect(storeA.url);
    const authorize = new URL(started.body.authorizeUrl);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${storeA.url}/wc-auth/v1/authorize`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      app_name: 'loyalty-bridge',
      scope: 'read_write',
      callback_url: `${front.url}/woocommerce/auth/callback`,
    });
    expect(authorize.searchParams.get('return_url')).toMatch(new RegExp(`^${front.url}/admin/`));

    const back = await answerConsent(started.body.authorizeUrl, 'approve');
    expect(back.searchParams.get('success')).toBe('1');
    expect(back.searchParams.get('woocommerce_store')).toBe(shopOf(storeA));
    // WooCommerce keeps the key only when the callback answered exactly 200.
    expect(storeA.lastCallback).toEqual({ url: `${front.url}/woocommerce/auth/callback`, status: 200 });
    const kept = await connection(shopOf(storeA));
    expect(kept).toMatchObject({ keyPermissions: 'read_write', url: storeA.url });
    expect(storeA.keys.get(kept!.consumerKey)?.consumerSecret).toBe(kept!.consumerSecret);

    await eventually(() => expect(storeA.webhooks.map((webhook) => webhook.topic).sort()).toEqual(TOPICS), 10_000);
    for (const webhook of storeA.webhooks)
      expect(webhook).toMatchObject({
        status: 'active',
        delivery_url: `${front.url}/webhooks/woocommerce`,
        secret: kept!.webhookSecret,
      });

    setOrder(storeA, { id: 7001, status: 'processing', email: 'a-customer@example.com' });
    expect(await storeA.deliver('order.created', 7001)).toEqual([200]);
    await bridge.engine.drain();
    expect(earnings('17001')).toEqual([
      expect.objectContaining({ status: 'pending', email: 'a-customer@example.com' }),
    ]);
    expect(await bridge.engine.store.getOrder(`woocommerce:${shopOf(storeA)}:7001`)).toBeDefined();
  }, 30_000);

  it('never shows or logs the keys or the webhook secret', async () => {
    const kept = (await connection(shopOf(storeA)))!;
    const { text } = await admin('/stores');
    const everything = `${text}${(await admin('/status')).text}${(await admin('/connections')).text}${logText.join('')}`;
    for (const secret of [kept.consumerKey, kept.consumerSecret, kept.webhookSecret])
      expect(everything).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({
      stores: expect.arrayContaining([
        expect.objectContaining({
          platform: 'woocommerce',
          shop: shopOf(storeA),
          via: 'connect',
          keyPermissions: 'read_write',
        }),
      ]),
    });
  });

  it('takes a nonce once: the same callback again, or an unknown nonce, is 401 and keeps nothing', async () => {
    const started = await startConnect(storeB.url);
    const nonce = new URL(started.body.authorizeUrl).searchParams.get('user_id')!;
    const keys = {
      key_id: 99,
      consumer_key: `ck_${'a'.repeat(40)}`,
      consumer_secret: `cs_${'b'.repeat(40)}`,
      key_permissions: 'read_write',
    };
    const sessions = async () => (await bridge.engine.store.listRecords(raw('session'))).length;
    const before = await sessions();
    expect((await callback({ ...keys, user_id: 'x'.repeat(43) })).status).toBe(401);
    expect((await callback({ ...keys })).status).toBe(401);
    expect(await sessions()).toBe(before);

    expect((await callback({ ...keys, user_id: nonce })).status).toBe(200);
    expect(await connection(shopOf(storeB))).toMatchObject({ consumerKey: keys.consumer_key });
    const after = await sessions();
    expect((await callback({ ...keys, consumer_key: `ck_${'c'.repeat(40)}`, user_id: nonce })).status).toBe(401);
    expect(await sessions()).toBe(after);
    expect(await connection(shopOf(storeB))).toMatchObject({ consumerKey: keys.consumer_key });
  });

  it('serves two stores on one bridge, each with its own keys and secret, apart in orders, points, resync and status', async () => {
    // Store B is connected for real (its earlier keys were made up): its own key, its own webhooks.
    await connect(storeB);
    const [a, b] = [(await connection(shopOf(storeA)))!, (await connection(shopOf(storeB)))!];
    expect(a.webhookSecret).not.toBe(b.webhookSecret);

    // The same order number in both stores: each store's customer, each store's points.
    setOrder(storeA, { id: 4242, status: 'processing', email: 'a@example.com' });
    setOrder(storeB, { id: 4242, status: 'processing', email: 'b@example.com' });
    expect(await storeA.deliver('order.created', 4242)).toEqual([200]);
    expect(await storeB.deliver('order.created', 4242)).toEqual([200]);
    setOrder(storeB, { id: 4242, status: 'cancelled', email: 'b@example.com', modified: '2026-11-19T12:00:00' });
    expect(await storeB.deliver('order.updated', 4242)).toEqual([200]);
    await bridge.engine.drain();
    expect(earnings('14242')).toEqual([expect.objectContaining({ status: 'pending', email: 'a@example.com' })]);
    expect(earnings('24242')).toEqual([expect.objectContaining({ status: 'cancelled', email: 'b@example.com' })]);
    expect((await admin<{ deadLetters: unknown[] }>('/dead-letters')).body.deadLetters).toEqual([]);

    // A's delivery claiming to come from B is checked with B's secret: refused, nothing kept.
    const body = wooOrderJson({ id: 4343, status: 'processing' });
    const forged = await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-wc-webhook-source': storeB.homeUrl,
        'x-wc-webhook-topic': 'order.created',
        'x-wc-webhook-signature': signWoo(body, a.webhookSecret),
      },
      body,
    });
    expect(forged.status).toBe(401);
    await bridge.engine.drain();
    expect(await bridge.engine.store.getOrder(`woocommerce:${shopOf(storeB)}:4343`)).toBeUndefined();

    // Resync one store: only its API is read.
    setOrder(storeB, {
      id: 4444,
      status: 'processing',
      email: 'b@example.com',
      modified: new Date(Date.now() - 60_000).toISOString().slice(0, 19),
    });
    const readA = storeA.requests.length;
    const started = await admin<{ job: { id: string; shops: string[] } }>('/resync', {
      method: 'POST',
      body: JSON.stringify({
        platform: 'woocommerce',
        shop: shopOf(storeB),
        since: new Date(Date.now() - 3_600_000).toISOString(),
      }),
    });
    expect(started.body.job.shops).toEqual([shopOf(storeB)]);
    await eventually(async () =>
      expect((await admin<{ job: { status: string } }>(`/resync/${started.body.job.id}`)).body.job.status).toBe('done'),
    );
    await bridge.engine.drain();
    expect(earnings('24444')).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(storeA.requests.length).toBe(readA);

    // Reconciliation and status, per store.
    await bridge.reconciler.runAll();
    const { body: status } = await admin<{
      reconciliation: Record<string, { shop: string }>;
      connections: Array<{ platform: string; subscriptions: Array<{ shop: string }> }>;
    }>('/status');
    expect(
      Object.values(status.reconciliation)
        .filter((each) => each.shop !== 'null')
        .map((each) => each.shop),
    ).toEqual(expect.arrayContaining([shopOf(storeA), shopOf(storeB)]));
    expect(
      status.connections
        .find((each) => each.platform === 'woocommerce')
        ?.subscriptions.map((each) => each.shop)
        .sort(),
    ).toEqual([shopOf(storeA), shopOf(storeB)].sort());
  }, 60_000);

  it('turns a webhook WooCommerce disabled back on, and makes a deleted one again, within one reconciliation', async () => {
    const updated = storeA.webhooks.find((webhook) => webhook.topic === 'order.updated')!;
    const goodUrl = updated.delivery_url;
    updated.delivery_url = 'https://127.0.0.1:1/webhooks/woocommerce';
    setOrder(storeA, {
      id: 7100,
      status: 'processing',
      email: 'missed@example.com',
      modified: new Date(Date.now() - 60_000).toISOString().slice(0, 19),
    });
    // More than five failures in a row, and WooCommerce disables it.
    for (let attempt = 0; attempt < 7; attempt++) await storeA.deliver('order.updated', 7100);
    expect(updated.status).toBe('disabled');
    updated.delivery_url = goodUrl;
    storeA.webhooks.splice(
      storeA.webhooks.findIndex((webhook) => webhook.topic === 'order.restored'),
      1,
    );

    const lines = logText.length;
    await bridge.reconciler.run('woocommerce', shopOf(storeA));
    expect(updated.status).toBe('active');
    expect(
      storeA.requests.some(
        (request) => request.method === 'PUT' && request.path === `/wp-json/wc/v3/webhooks/${updated.id}`,
      ),
    ).toBe(true);
    expect(storeA.webhooks.map((webhook) => webhook.topic).sort()).toEqual(TOPICS);
    const repaired = logText
      .slice(lines)
      .map((line) => JSON.parse(line) as { msg: string; repaired?: string[] })
      .find((line) => line.msg === 'subscriptions put right');
    expect(repaired?.repaired).toEqual([
      expect.stringMatching(/^order\.updated: re-enabled webhook \d+ \(it was disabled\)$/),
      expect.stringMatching(/^order\.restored: created webhook \d+$/),
    ]);
    const { body } = await admin<{
      stores: Array<{ shop: string; subscriptions: { repaired: string[]; problems: unknown[] } }>;
    }>('/stores');
    expect(body.stores.find((each) => each.shop === shopOf(storeA))?.subscriptions).toMatchObject({
      problems: [],
      repaired: [expect.stringContaining('re-enabled'), expect.stringContaining('created')],
    });

    // The order the failed deliveries carried came in through the same reconciliation, and the next delivery arrives.
    await bridge.engine.drain();
    expect(earnings('17100')).toEqual([expect.objectContaining({ status: 'pending', email: 'missed@example.com' })]);
    setOrder(storeA, {
      id: 7100,
      status: 'completed',
      email: 'missed@example.com',
      modified: new Date().toISOString().slice(0, 19),
    });
    expect(await storeA.deliver('order.updated', 7100)).toEqual([200]);
  }, 30_000);

  it('reconciles a store whose server drops the Authorization header, through the query string, and remembers that for the store', async () => {
    storeB.dropsAuthorization = true;
    try {
      setOrder(storeB, {
        id: 4500,
        status: 'processing',
        email: 'b@example.com',
        modified: new Date(Date.now() - 60_000).toISOString().slice(0, 19),
      });
      await bridge.reconciler.run('woocommerce', shopOf(storeB));
      await bridge.engine.drain();
      expect(earnings('24500')).toEqual([expect.objectContaining({ status: 'pending' })]);
      expect(await connection(shopOf(storeB))).toMatchObject({ authMode: 'query' });
      const { body } = await admin<{
        stores: Array<{ shop: string; authMode: string; subscriptions: { problems: unknown[] } }>;
      }>('/stores');
      expect(body.stores.find((each) => each.shop === shopOf(storeB))).toMatchObject({
        authMode: 'query',
        subscriptions: { problems: [] },
      });
      // From then on the key goes in the query string at once.
      const before = storeB.requests.length;
      await bridge.reconciler.run('woocommerce', shopOf(storeB));
      expect(storeB.requests.slice(before).every((request) => request.auth === 'query' && request.status < 400)).toBe(
        true,
      );
    } finally {
      storeB.dropsAuthorization = false;
    }
  }, 30_000);

  it('refuses to start a connect without an address, or with one that is not a web address', async () => {
    expect((await admin('/stores/woocommerce/connect', { method: 'POST', body: JSON.stringify({}) })).status).toBe(400);
    expect(
      (
        await admin<{ error: string }>('/stores/woocommerce/connect', {
          method: 'POST',
          body: JSON.stringify({ store: 'ftp://store.example' }),
        })
      ).body.error,
    ).toMatch(/^store: /);
    expect(
      (
        await fetch(`${bridge.http.localUrl}/admin/api/stores/woocommerce/connect`, {
          method: 'POST',
          body: '{"store":"https://x.example"}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(401);
  });
});

describe('a bridge whose PUBLIC_URL is not https', () => {
  it('says why a WooCommerce store cannot connect, instead of sending the merchant where the keys would be refused', async () => {
    const plain = await startTestBridge({
      PUBLIC_URL: 'http://127.0.0.1:3999',
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
    });
    try {
      const response = await fetch(`${plain.http.localUrl}/admin/api/stores/woocommerce/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ store: 'https://store.example' }),
      });
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: string }).error).toMatch(/PUBLIC_URL must be https/);
    } finally {
      await plain.stop();
    }
  });
});
