// Signed Shopify deliveries, as real bytes, posted to the running bridge; the
// sandbox it serves shows what happened to each order's points.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import {
  SHOP,
  SHOPIFY_SECRET,
  shopifyHeaders,
  shopifyOrderJson,
  shopifyRefundJson,
  signShopify,
} from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await startTestBridge({
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    SHOPIFY_SHOPS: `${SHOP},leaving-store.myshopify.com`,
  });
});
afterAll(() => bridge.stop());

async function deliver(
  topic: string,
  body: string,
  options: { webhookId?: string; headers?: Record<string, string>; shop?: string; triggeredAt?: Date } = {},
) {
  const headers =
    options.headers ??
    shopifyHeaders({
      topic,
      body,
      ...(options.webhookId ? { webhookId: options.webhookId } : {}),
      ...(options.shop ? { shop: options.shop } : {}),
      ...(options.triggeredAt ? { triggeredAt: options.triggeredAt } : {}),
    });
  const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, { method: 'POST', headers, body });
  return {
    status: response.status,
    body: (await response.json()) as { result?: string; error?: string; reason?: string },
  };
}
const earning = (orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.find((candidate) => candidate.orderId === orderId);
const settle = () => bridge.engine.drain();

describe('POST /webhooks/shopify', () => {
  it('earns on orders/paid, approves on orders/fulfilled', async () => {
    const id = '820982911946154508001';
    expect((await deliver('orders/paid', shopifyOrderJson({ id }))).body.result).toBe('accepted');
    await settle();
    expect(earning(id)).toMatchObject({
      status: 'pending',
      points: 100,
      email: 'grace@example.com',
      mobile: '+12125550142',
      name: 'Grace Hopper',
    });
    await deliver(
      'orders/fulfilled',
      shopifyOrderJson({ id, fulfillmentStatus: 'fulfilled', updatedAt: '2026-11-21T10:00:00-05:00' }),
    );
    await settle();
    expect(earning(id)?.status).toBe('approved');
  });

  it('cancels the points of another order on refunds/create for a full refund', async () => {
    const id = '820982911946154508002';
    await deliver('orders/fulfilled', shopifyOrderJson({ id, fulfillmentStatus: 'fulfilled', totalPrice: '75.00' }));
    await settle();
    expect(earning(id)?.status).toBe('approved');
    await deliver('refunds/create', shopifyRefundJson(id, '930001', '75.00'));
    await settle();
    expect(earning(id)?.status).toBe('cancelled');
  });

  it('makes one earn for three deliveries with one webhook id', async () => {
    const id = '820982911946154508003';
    const body = shopifyOrderJson({ id });
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push((await deliver('orders/paid', body, { webhookId: 'same-webhook-id-1' })).body.result);
    expect(results).toEqual(['accepted', 'duplicate', 'duplicate']);
    await settle();
    expect(bridge.sandbox?.store.snapshot().earnings.filter((candidate) => candidate.orderId === id)).toHaveLength(1);
  });

  it('answers duplicate to a second subscription’s copy of one event (same X-Shopify-Event-Id, another webhook id)', async () => {
    const id = '820982911946154508009';
    const body = shopifyOrderJson({ id });
    const eventId = '98880550-7158-44d4-b7cd-2c97c8a091b5';
    const first = await deliver('orders/paid', body, {
      headers: shopifyHeaders({ topic: 'orders/paid', body, eventId, webhookId: 'subscription-a-copy' }),
    });
    const second = await deliver('orders/paid', body, {
      headers: shopifyHeaders({ topic: 'orders/paid', body, eventId, webhookId: 'subscription-b-copy' }),
    });
    // Shopify's retry of the first copy, and the same event on another topic (a different delivery).
    const retry = await deliver('orders/paid', body, {
      headers: shopifyHeaders({ topic: 'orders/paid', body, eventId, webhookId: 'subscription-a-copy' }),
    });
    const otherTopic = await deliver('orders/updated', body, {
      headers: shopifyHeaders({ topic: 'orders/updated', body, eventId }),
    });
    expect([first.body.result, second.body.result, retry.body.result, otherTopic.body.result]).toEqual([
      'accepted',
      'duplicate',
      'duplicate',
      'accepted',
    ]);
    await settle();
    expect(bridge.sandbox?.store.snapshot().earnings.filter((candidate) => candidate.orderId === id)).toHaveLength(1);
  });

  it('skips an order whose e-mail Shopify hides, and the merchant can see why', async () => {
    const id = '820982911946154508004';
    await deliver('orders/paid', shopifyOrderJson({ id, email: null, customer: null }));
    await settle();
    expect(earning(id)).toBeUndefined();
    expect((await bridge.engine.store.getOrder(`shopify:lb-test-store.myshopify.com:${id}`))?.target).toEqual({
      state: 'skipped',
      reason: 'missing_email',
    });
  });

  it('answers 401 to a wrong signature and keeps nothing', async () => {
    const id = '820982911946154508005';
    const body = shopifyOrderJson({ id });
    const headers = {
      ...shopifyHeaders({ topic: 'orders/paid', body, webhookId: 'forged-1' }),
      'X-Shopify-Hmac-Sha256': signShopify(body, 'not-our-secret'),
    };
    const response = await deliver('orders/paid', body, { headers });
    expect(response.status).toBe(401);
    expect(await bridge.engine.store.hasSeen('shopify:forged-1')).toBe(false);
    await settle();
    expect(await bridge.engine.store.getOrder(`shopify:lb-test-store.myshopify.com:${id}`)).toBeUndefined();
  });

  it('answers 400 to a signed delivery without its topic header, and keeps nothing', async () => {
    const body = shopifyOrderJson({ id: '820982911946154508006' });
    const headers = shopifyHeaders({ topic: 'orders/paid', body, webhookId: 'no-topic-1' });
    delete headers['X-Shopify-Topic'];
    expect((await deliver('orders/paid', body, { headers })).status).toBe(400);
    expect(await bridge.engine.store.hasSeen('shopify:no-topic-1')).toBe(false);
  });

  it('acknowledges an authentic delivery it cannot use, and keeps it as a dead letter with the reason', async () => {
    // Authentic and shaped as an order, but no order Shopify would send: its id is not a whole number.
    const response = await deliver(
      'orders/paid',
      '{"id": 12.5, "order_number": 1012, "financial_status": "paid", "email": "broken@example.com"}',
      { webhookId: 'broken-json-1' },
    );
    expect(response).toMatchObject({ status: 200, body: { result: 'accepted' } });
    await settle();
    // Listed letters leave their bodies out: each is read whole.
    const letters = await Promise.all(
      (await bridge.engine.store.listDeadLetters()).map((listed) => bridge.engine.store.getDeadLetter(listed.id)),
    );
    const letter = letters.find(
      (candidate) => candidate?.kind === 'delivery' && candidate.delivery?.body.startsWith('{"id":12.5'),
    );
    // What translation reads of it, written again (so without the spaces it came with).
    expect(letter?.delivery?.body).toBe(
      '{"id":12.5,"order_number":1012,"email":"broken@example.com","financial_status":"paid"}',
    );
    expect(letter).toMatchObject({ platform: 'shopify', topic: 'orders/paid' });
    expect(letter?.reason).toMatch(/no numeric id/);
  });

  it('acknowledges and ignores a topic it does not use', async () => {
    expect(await deliver('products/update', '{"id": 1}')).toMatchObject({ status: 200, body: { result: 'ignored' } });
  });

  it('answers 413 to a body over the limit', async () => {
    const body = `{"id": 1, "padding": "${'x'.repeat(1_100_000)}"}`;
    expect((await deliver('orders/paid', body)).status).toBe(413);
  });

  it('after app/uninstalled ignores what the shop sent before it, and takes one sent after it as a reinstall', async () => {
    const shop = 'leaving-store.myshopify.com';
    const uninstalledAt = new Date();
    const uninstall = JSON.stringify({ id: 1, name: 'Leaving', domain: 'leaving.example', myshopify_domain: shop });
    expect((await deliver('app/uninstalled', uninstall, { shop, triggeredAt: uninstalledAt })).body.result).toBe(
      'accepted',
    );
    await settle();
    // A delivery from before the uninstall, arriving late (a retry): ignored.
    const late = '820982911946154508007';
    expect(
      (
        await deliver('orders/paid', shopifyOrderJson({ id: late }), {
          shop,
          triggeredAt: new Date(uninstalledAt.getTime() - 60_000),
        })
      ).body.result,
    ).toBe('accepted');
    await settle();
    expect(earning(late)).toBeUndefined();
    expect(await bridge.engine.store.getRecord(raw('shop'), `shopify:${shop}`)).toMatchObject({
      uninstalledAt: uninstalledAt.toISOString(),
    });
    // The app was put back (without OAuth): its next delivery counts, and clears the uninstall.
    const after = '820982911946154508017';
    // Sent after the uninstall: no time later than its arrival is taken from its header.
    await deliver('orders/paid', shopifyOrderJson({ id: after, updatedAt: new Date().toISOString() }), {
      shop,
      triggeredAt: new Date(),
    });
    await settle();
    expect(earning(after)).toMatchObject({ status: 'pending' });
    expect(await bridge.engine.store.getRecord(raw('shop'), `shopify:${shop}`)).toMatchObject({ uninstalledAt: null });
  });

  it('accepts the newer shopify-* headers', async () => {
    const id = '820982911946154508008';
    const body = shopifyOrderJson({ id });
    const response = await deliver('orders/paid', body, {
      headers: shopifyHeaders({ topic: 'orders/paid', body, newStyle: true }),
    });
    expect(response.body.result).toBe('accepted');
    await eventually(() => expect(earning(id)).toBeDefined());
  });
});

describe('while Shopify’s Admin API hangs', () => {
  it('acknowledges refunds/create within Shopify’s 5 s, and reads the order and cancels the points once the API answers', async () => {
    const { startFakeShopify, shopifyOrderNode } = await import('../helpers/fake-shopify.ts');
    const { loadConfig } = await import('../../src/config.ts');
    const { createLogger } = await import('../../src/logger.ts');
    const { startBridge } = await import('../../src/composition/main.ts');
    const { tempDataDir } = await import('../helpers/engine.ts');
    const { SHOP } = await import('../helpers/shopify.ts');
    const fake = await startFakeShopify({ apiKey: 'unused', apiSecret: 'unused' });
    fake.registerToken('shpat_legacy_hang_test', SHOP);
    const loaded = loadConfig({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: tempDataDir(),
        LOG_LEVEL: 'silent',
        DEMO_STORE: 'off',
        SHOPIFY_API_SECRET: SHOPIFY_SECRET,
        SHOPIFY_SHOP: SHOP,
        SHOPIFY_ADMIN_TOKEN: 'shpat_legacy_hang_test',
        RECONCILE_INTERVAL_MINUTES: '0',
      },
    });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const hung = await startBridge(loaded.config, createLogger({ level: 'silent' }), {
      platformOverrides: { apiUrls: { shopify: (shop) => fake.adminUrl(shop) } },
    });
    try {
      const paid = shopifyOrderJson({ id: '7300000000001' });
      await fetch(`${hung.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body: paid }),
        body: paid,
      });
      await hung.engine.drain();
      expect(hung.sandbox?.store.snapshot().earnings.find((each) => each.orderId === '7300000000001')?.status).toBe(
        'pending',
      );

      // The order as Shopify's API will give it, fully refunded; but every API call now takes 6 s, past Shopify's deadline.
      fake.shop(SHOP).orders.set(
        '7300000000001',
        shopifyOrderNode('7300000000001', {
          displayFinancialStatus: 'REFUNDED',
          updatedAt: '2026-11-21T09:00:00Z',
          refunds: [
            {
              id: 'gid://shopify/Refund/91',
              createdAt: '2026-11-21T09:00:00Z',
              totalRefundedSet: { shopMoney: { amount: '120.00', currencyCode: 'USD' } },
            },
          ],
          totalPriceSet: {
            shopMoney: { amount: '120.00', currencyCode: 'USD' },
            presentmentMoney: { amount: '120.00', currencyCode: 'USD' },
          },
        }),
      );
      fake.hangMs = 6_000;
      // The refund itself says 1.00 (a partial refund earns its keep); only the order read from the API says it was all refunded.
      const refund = shopifyRefundJson('7300000000001', '91', '1.00');
      const response = await fetch(`${hung.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'refunds/create', body: refund }),
        body: refund,
        signal: AbortSignal.timeout(5_000),
      });
      expect(response.status).toBe(200);
      await eventually(
        () =>
          expect(hung.sandbox?.store.snapshot().earnings.find((each) => each.orderId === '7300000000001')?.status).toBe(
            'cancelled',
          ),
        20_000,
      );
      // The read was made after the answer, and waited out the hang.
      expect(fake.requests.filter((request) => request.what === 'LoyaltyBridgeOrder')).toHaveLength(1);
    } finally {
      await hung.stop();
      await fake.close();
    }
  }, 40_000);
});
