// The Shopify Admin GraphQL API, against the fake Shopify over HTTP: tokens,
// throttling, resync, the orders a webhook alone cannot describe, partial
// data, and keeping the webhook subscriptions right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShopifyAccess } from '../../adapters/shopify/access.ts';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { ShopifyAdminApi, ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { fetchShopifyOrders } from '../../adapters/shopify/graphql-orders.ts';
import { syncShopifySubscriptions } from '../../adapters/shopify/register.ts';
import { orderToEvent } from '../../adapters/shopify/order-events.ts';
import { graphqlOrderToEvent } from '../../adapters/shopify/graphql-orders.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { applyEvent, newOrderRecord, refundedInShopMoney } from '../../src/core/order-record.ts';
import { resync } from '../../src/core/resync.ts';
import { translateRaw } from '../helpers/adapters.ts';
import { startTestEngine, tempDataDir } from '../helpers/engine.ts';
import { shopifyOrderNode, startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson, shopifyRefundJson } from '../helpers/shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

const VERSION = '2026-10';
const LEGACY_TOKEN = 'shpat_legacy_custom_app_token';
let sandbox: TestSandbox;
let fake: FakeShopify;
let store: LowdbStore;

/** A legacy custom app's fixed token, registered in the fake as Shopify would have issued it. */
function legacyAccess(token = LEGACY_TOKEN) {
  return new ShopifyAccess({ store, ownShop: SHOP, legacyToken: token });
}
const noSleep = async (_ms: number) => undefined;
const apiWith = (access: ShopifyAccess, sleep = noSleep) => new ShopifyAdminApi({ shop: SHOP, access, apiVersion: VERSION, baseUrl: fake.adminUrl(SHOP), sleep });

beforeAll(async () => {
  sandbox = await startTestSandbox({ rateLimit: 100_000 });
  fake = await startFakeShopify({ apiKey: 'client-id', apiSecret: SHOPIFY_SECRET });
  fake.registerToken(LEGACY_TOKEN, SHOP);
  store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
});
afterAll(async () => {
  await store.close();
  await fake.close();
  await sandbox.close();
});

describe('the Admin API client', () => {
  it('sends the token, at the configured API version, and waits out a THROTTLED answer', async () => {
    fake.throttleNext(1);
    const sleeps: number[] = [];
    const before = fake.requests.length;
    const client = apiWith(legacyAccess(), async (ms) => void sleeps.push(ms));
    expect(await client.query('query Probe { shop { name } }')).toEqual({ shop: { name: SHOP } });
    expect(fake.requests.slice(before).map((request) => request.token)).toEqual([LEGACY_TOKEN, LEGACY_TOKEN]);
    // 202 requested, 10 available, 100 a second restored: about 2 s.
    expect(sleeps[0]).toBeGreaterThanOrEqual(1_900);
  });

  it('says to check the token when Shopify refuses a legacy one', async () => {
    await expect(apiWith(legacyAccess('shpat_revoked')).query('{ shop { name } }')).rejects.toThrow(/check SHOPIFY_ADMIN_TOKEN/);
  });

  it('answers Shopify being down as something to try again later', async () => {
    fake.failNext(503, 20);
    await expect(new ShopifyAdminApi({ shop: SHOP, access: legacyAccess(), apiVersion: VERSION, baseUrl: fake.adminUrl(SHOP), sleep: noSleep, maxThrottleRetries: 2 }).query('{ shop { name } }')).rejects.toMatchObject({ transient: true });
    fake.failNext(503, 0);
  });
});

describe('resync', () => {
  it('fetches orders updated in the window, page by page, and a second run changes nothing', async () => {
    const orders = fake.shop(SHOP).orders;
    orders.clear();
    for (let i = 0; i < 101; i++) orders.set(`82098291194615450${8000 + i}`, shopifyOrderNode(`82098291194615450${8000 + i}`, { updatedAt: `2026-11-10T12:${String(i % 60).padStart(2, '0')}:00Z` }));
    orders.set('820982911946154508901', shopifyOrderNode('820982911946154508901', { displayFulfillmentStatus: 'FULFILLED', updatedAt: '2026-11-11T00:00:00Z' }));
    orders.set('820982911946154508902', shopifyOrderNode('820982911946154508902', { cancelledAt: '2026-11-10T11:00:00Z', displayFinancialStatus: 'VOIDED', updatedAt: '2026-11-11T00:00:01Z' }));
    const api = apiWith(legacyAccess());
    const engine = await startTestEngine(sandbox);
    const window = { since: new Date('2026-11-01T00:00:00Z'), until: new Date('2026-11-15T00:00:00Z') };
    const pagesBefore = fake.requests.filter((request) => request.what === 'LoyaltyBridgeOrders').length;
    const first = await resync(fetchShopifyOrders(api, window), engine.ingest);
    expect(first).toMatchObject({ fetched: 103, changed: 103, failed: 0 });
    expect(fake.requests.filter((request) => request.what === 'LoyaltyBridgeOrders').length - pagesBefore).toBe(2);
    await engine.drain();
    const state = sandbox.store.snapshot();
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508000')).toMatchObject({ status: 'pending', mobile: '+447911123456', email: 'ada@example.com' });
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508901')).toMatchObject({ status: 'approved' });
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508902')).toBeUndefined();

    const before = JSON.stringify(sandbox.store.snapshot());
    const second = await resync(fetchShopifyOrders(api, window), engine.ingest);
    await engine.drain();
    expect(second).toMatchObject({ fetched: 103, changed: 0, unchanged: 103 });
    expect(JSON.stringify(sandbox.store.snapshot())).toBe(before);
    await engine.stop();
  });

  it('says that orders older than 60 days need read_all_orders when Shopify refuses', async () => {
    const result = await resync(fetchShopifyOrders(apiWith(legacyAccess()), { since: new Date(Date.now() - 90 * 24 * 60 * 60 * 1000) }), { events: async () => 'accepted' });
    expect(result.errors[0]).toMatch(/read_all_orders/);
  });

  it('processes orders with what it has when Shopify withholds protected customer data, and says so', async () => {
    fake.protectedDataGranted = false;
    try {
      fake.shop(SHOP).orders.set('7100', shopifyOrderNode('7100', { updatedAt: '2026-11-12T00:00:00Z' }));
      const events = [];
      for await (const event of fetchShopifyOrders(apiWith(legacyAccess()), { since: new Date('2026-11-12T00:00:00Z'), until: new Date('2026-11-12T00:00:01Z') })) events.push(event);
      expect(events).toMatchObject([{ orderId: '7100', facts: expect.arrayContaining(['paid']), customer: { email: null, mobile: null }, protectedDataHidden: true }]);
    } finally {
      fake.protectedDataGranted = true;
    }
  });
});

describe('webhooks that need the order as it is now', () => {
  const adapter = () => createShopifyAdapter({ apiSecrets: [SHOPIFY_SECRET], admin: new ShopifyAdminApis({ access: legacyAccess(), apiVersion: VERSION, baseUrl: fake.adminUrl }) });

  it('reads the order again for orders/edited', async () => {
    fake.shop(SHOP).orders.set('7001', shopifyOrderNode('7001', { displayFulfillmentStatus: 'FULFILLED' }));
    const body = '{"order_edit": {"id": 1, "order_id": 7001, "line_items": {"additions": [], "removals": []}}}';
    expect(await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/edited', body }))).toMatchObject({ kind: 'events', events: [{ orderId: '7001', facts: expect.arrayContaining(['fulfilled']) }] });
  });

  it('adds the current order to refunds/create, which settles full or partial', async () => {
    fake.shop(SHOP).orders.set('7002', shopifyOrderNode('7002', { displayFinancialStatus: 'REFUNDED' }));
    const body = shopifyRefundJson('7002', '55', '1.00');
    const translation = await translateRaw(adapter(), body, shopifyHeaders({ topic: 'refunds/create', body }));
    expect(translation.kind === 'events' && translation.events.map((event) => event.facts)).toEqual([[], expect.arrayContaining(['fullyRefunded'])]);
  });

  it('dead-letters orders/edited for an order Shopify says does not exist', async () => {
    const body = '{"order_edit": {"id": 2, "order_id": 7999999}}';
    expect(await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/edited', body }))).toMatchObject({ kind: 'unusable', reason: expect.stringContaining('no order 7999999') });
  });

  it('tells the core to read it again later when Shopify does not answer', async () => {
    fake.failNext(503, 30);
    const body = '{"order_edit": {"id": 3, "order_id": 7001}}';
    const slow = createShopifyAdapter({ apiSecrets: [SHOPIFY_SECRET], admin: new ShopifyAdminApis({ access: legacyAccess(), apiVersion: VERSION, baseUrl: fake.adminUrl, sleep: noSleep, maxThrottleRetries: 1 }) });
    await expect(translateRaw(slow, body, shopifyHeaders({ topic: 'orders/edited', body }))).rejects.toMatchObject({ name: 'PlatformUnavailableError' });
    fake.failNext(503, 0);
  });
});

describe('the same order through the webhook and the Admin API', () => {
  it('gives the same facts and the same refunded amount, in the shop currency', async () => {
    // A shop in USD, a customer paying in EUR at 1 EUR = 1.10 USD: 100 EUR is 110 USD. 40 EUR refunded = 44 USD.
    const webhook = orderToEvent(
      JSON.parse(
        shopifyOrderJson({
          id: '9100',
          financialStatus: 'partially_refunded',
          totalPrice: '110.00',
          subtotalPrice: '96.00',
          refunds: [{ id: 31, transactions: [{ kind: 'refund', status: 'success', amount: '40.00', currency: 'EUR' }] }],
        }).replace('"currency":"USD"', '"currency":"USD","presentment_currency":"EUR","total_price_set":{"shop_money":{"amount":"110.00","currency_code":"USD"},"presentment_money":{"amount":"100.00","currency_code":"EUR"}}'),
      ),
      { shop: SHOP, deliveryId: 'w', topic: 'orders/updated', receivedAt: new Date() },
    );
    const graphql = graphqlOrderToEvent(
      shopifyOrderNode('9100', {
        displayFinancialStatus: 'PARTIALLY_REFUNDED',
        totalPriceSet: { shopMoney: { amount: '110.00', currencyCode: 'USD' }, presentmentMoney: { amount: '100.00', currencyCode: 'EUR' } },
        subtotalPriceSet: { shopMoney: { amount: '96.00' } },
        refunds: [{ id: 'gid://shopify/Refund/31', totalRefundedSet: { shopMoney: { amount: '44.00' } } }],
      }),
      SHOP,
      'g',
      new Date(),
    );
    if (!webhook.ok || !graphql) throw new Error('not read');
    const fold = (event: typeof graphql) => {
      const record = newOrderRecord(event, '2026-11-20T00:00:00Z');
      applyEvent(record, event, 'd', '2026-11-20T00:00:00Z');
      return { facts: record.facts, refunded: refundedInShopMoney(record), total: record.snapshot.total.amount, subtotal: record.snapshot.subtotal };
    };
    expect(fold(webhook.event)).toEqual(fold(graphql));
    expect(fold(graphql)).toEqual({ facts: ['placed', 'paid', 'partiallyRefunded'], refunded: '44', total: '110.00', subtotal: '96.00' });
  });
});

describe('keeping the subscriptions right', () => {
  it('creates what is missing, moves one at an old address, replaces one at another version, leaves others alone, and a second run changes nothing', async () => {
    const theShop = fake.shop(SHOP);
    theShop.subscriptions = [
      { id: 'gid://shopify/WebhookSubscription/1', topic: 'ORDERS_PAID', uri: 'https://bridge.example.com/webhooks/shopify', apiVersion: VERSION },
      { id: 'gid://shopify/WebhookSubscription/2', topic: 'ORDERS_CREATE', uri: 'https://old-bridge.example.com/webhooks/shopify', apiVersion: VERSION },
      { id: 'gid://shopify/WebhookSubscription/3', topic: 'ORDERS_CANCELLED', uri: 'https://bridge.example.com/webhooks/shopify', apiVersion: '2025-01' },
      { id: 'gid://shopify/WebhookSubscription/4', topic: 'ORDERS_PAID', uri: 'https://bridge.example.com/webhooks/shopify', apiVersion: VERSION },
      { id: 'gid://shopify/WebhookSubscription/5', topic: 'PRODUCTS_UPDATE', uri: 'https://another-place.example.com/hooks', apiVersion: '2025-01' },
    ];
    const api = apiWith(legacyAccess());
    const first = await syncShopifySubscriptions(api, 'https://bridge.example.com/');
    expect(first).toMatchObject({ alreadyThere: ['orders/paid'], moved: ['orders/create'], upgraded: ['orders/cancelled'], removed: ['orders/paid'] });
    expect(first.created).toHaveLength(6);
    const ours = theShop.subscriptions.filter((subscription) => subscription.uri === 'https://bridge.example.com/webhooks/shopify');
    expect(ours).toHaveLength(9);
    expect(new Set(ours.map((subscription) => subscription.topic)).size).toBe(9);
    expect(ours.every((subscription) => subscription.apiVersion === VERSION)).toBe(true);
    expect(theShop.subscriptions.find((subscription) => subscription.uri.startsWith('https://another-place'))).toBeDefined();

    const second = await syncShopifySubscriptions(api, 'https://bridge.example.com');
    expect(second).toMatchObject({ created: [], moved: [], upgraded: [], removed: [] });
    expect(second.alreadyThere).toHaveLength(9);
  });
});
