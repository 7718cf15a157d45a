// The Shopify Admin GraphQL API through nock, with answers shaped like the
// real API's (data, errors with extensions.code, extensions.cost).
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { ShopifyAdminApi } from '../../adapters/shopify/admin-api.ts';
import { fetchShopifyOrders } from '../../adapters/shopify/graphql-orders.ts';
import { registerShopifyWebhooks } from '../../adapters/shopify/register.ts';
import { resync } from '../../src/core/resync.ts';
import { startTestEngine } from '../helpers/engine.ts';
import { SHOP, SHOPIFY_SECRET, shopifyRefundJson } from '../helpers/shopify.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

const BASE = `https://${SHOP}`;
const GRAPHQL = '/admin/api/2026-04/graphql.json';
const cost = (available = 1900) => ({ cost: { requestedQueryCost: 202, actualQueryCost: 30, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: available, restoreRate: 100 } } });
const noSleep = async () => undefined;
const api = () => new ShopifyAdminApi({ shop: SHOP, accessToken: 'shpat_test_token', sleep: noSleep });

function orderNode(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id: `gid://shopify/Order/${id}`,
    legacyResourceId: id,
    name: `#${id.slice(-4)}`,
    email: 'ada@example.com',
    phone: null,
    test: false,
    createdAt: '2026-11-10T10:00:00Z',
    updatedAt: '2026-11-10T12:00:00Z',
    cancelledAt: null,
    displayFinancialStatus: 'PAID',
    displayFulfillmentStatus: 'UNFULFILLED',
    sourceName: 'web',
    totalPriceSet: { shopMoney: { amount: '42.00', currencyCode: 'EUR' } },
    totalDiscountsSet: { shopMoney: { amount: '0.0' } },
    discountCodes: [],
    customAttributes: [{ key: 'loyalty_campaign', value: '8' }],
    customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 7911 123456', defaultAddress: { countryCodeV2: 'GB' } },
    billingAddress: { firstName: 'Ada', lastName: 'Lovelace', phone: null, countryCodeV2: 'GB' },
    shippingAddress: null,
    customerJourneySummary: { firstVisit: { landingPage: 'https://shop.example/?loyalty_campaign=8' } },
    refunds: [],
    ...overrides,
  };
}
const ordersPage = (nodes: unknown[], hasNextPage: boolean, endCursor: string | null) => ({ data: { orders: { pageInfo: { hasNextPage, endCursor }, nodes } }, extensions: cost() });

let sandbox: TestSandbox;
beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  sandbox = await startTestSandbox({ rateLimit: 100_000 });
});
afterAll(async () => {
  nock.enableNetConnect();
  await sandbox.close();
});
afterEach(() => nock.cleanAll());

describe('the Admin API client', () => {
  it('sends the access token and waits out a THROTTLED answer', async () => {
    let token: unknown;
    nock(BASE)
      .post(GRAPHQL)
      .reply(function () {
        token = this.req.headers['x-shopify-access-token'];
        return [200, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }], extensions: cost(10) }];
      })
      .post(GRAPHQL)
      .reply(200, { data: { shop: { name: 'x' } }, extensions: cost() });
    const sleeps: number[] = [];
    const client = new ShopifyAdminApi({ shop: SHOP, accessToken: 'shpat_test_token', sleep: async (ms) => void sleeps.push(ms) });
    expect(await client.query('{ shop { name } }')).toEqual({ shop: { name: 'x' } });
    expect(token).toBe('shpat_test_token');
    // 202 requested, 10 available, 100 a second restored: about 2 s.
    expect(sleeps[0]).toBeGreaterThanOrEqual(1_900);
  });

  it('says to check the token when Shopify answers 401', async () => {
    nock(BASE).post(GRAPHQL).reply(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    await expect(api().query('{ shop { name } }')).rejects.toThrow(/check SHOPIFY_ADMIN_TOKEN/);
  });
});

describe('resync', () => {
  it('fetches orders updated in the window, page by page, and a second run changes nothing', async () => {
    const queries: string[] = [];
    const reply = (page: unknown) =>
      function (this: unknown, _uri: string, sent: nock.Body) {
        const body = sent as { variables: { query: string; after: string | null } };
        queries.push(`${body.variables.query}|${body.variables.after}`);
        return [200, page] as [number, unknown];
      };
    const pages = () =>
      nock(BASE)
        .post(GRAPHQL)
        .reply(reply(ordersPage([orderNode('820982911946154508901'), orderNode('820982911946154508902', { displayFulfillmentStatus: 'FULFILLED' })], true, 'cursor-1')))
        .post(GRAPHQL)
        .reply(reply(ordersPage([orderNode('820982911946154508903', { cancelledAt: '2026-11-10T11:00:00Z', displayFinancialStatus: 'VOIDED' })], false, null)));
    pages();
    const engine = await startTestEngine(sandbox);
    const window = { since: new Date('2026-11-01T00:00:00Z'), until: new Date('2026-11-15T00:00:00Z') };
    const first = await resync(fetchShopifyOrders(api(), window), engine);
    expect(first).toMatchObject({ fetched: 3, changed: 3, failed: 0 });
    expect(queries).toEqual([
      "updated_at:>='2026-11-01T00:00:00.000Z' AND updated_at:<='2026-11-15T00:00:00.000Z'|null",
      "updated_at:>='2026-11-01T00:00:00.000Z' AND updated_at:<='2026-11-15T00:00:00.000Z'|cursor-1",
    ]);
    await engine.drain();
    const state = sandbox.store.snapshot();
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508901')).toMatchObject({ status: 'pending', mobile: '+447911123456' });
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508902')).toMatchObject({ status: 'approved' });
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508903')).toBeUndefined();
    expect(state.conversions.filter((conversion) => conversion.orderId.startsWith('8209829119461545089'))).toHaveLength(2);

    pages();
    const before = JSON.stringify(sandbox.store.snapshot());
    const second = await resync(fetchShopifyOrders(api(), window), engine);
    await engine.drain();
    expect(second).toMatchObject({ fetched: 3, changed: 0, unchanged: 3 });
    expect(JSON.stringify(sandbox.store.snapshot())).toBe(before);
    await engine.stop();
  });

  it('says that orders older than 60 days need read_all_orders when Shopify refuses', async () => {
    nock(BASE)
      .post(GRAPHQL)
      .reply(200, { errors: [{ message: 'Access denied for orders field.', extensions: { code: 'ACCESS_DENIED' } }], extensions: cost() });
    const engine = await startTestEngine(sandbox);
    const result = await resync(fetchShopifyOrders(api(), { since: new Date(Date.now() - 90 * 24 * 60 * 60 * 1000) }), engine);
    expect(result.errors[0]).toMatch(/read_all_orders/);
    await engine.stop();
  });
});

describe('webhooks that need the order', () => {
  it('re-fetches the order for orders/edited when Admin API access is set', async () => {
    nock(BASE).post(GRAPHQL).reply(200, { data: { order: orderNode('7001', { displayFulfillmentStatus: 'FULFILLED' }) }, extensions: cost() });
    const adapter = createShopifyAdapter({ apiSecret: SHOPIFY_SECRET, admin: api() });
    const translation = await adapter.toEvents({
      webhookId: 'edit-1',
      topic: 'orders/edited',
      shop: SHOP,
      apiVersion: '2026-04',
      triggeredAt: undefined,
      body: Buffer.from('{"order_edit": {"id": 1, "order_id": 7001, "line_items": {"additions": [], "removals": []}}}'),
      receivedAt: new Date(),
    });
    expect(translation).toMatchObject({ kind: 'events', events: [{ orderId: '7001', facts: expect.arrayContaining(['fulfilled']) }] });
  });

  it('adds the current order to refunds/create, which settles full or partial', async () => {
    nock(BASE)
      .post(GRAPHQL)
      .reply(200, { data: { order: orderNode('7002', { displayFinancialStatus: 'REFUNDED' }) }, extensions: cost() });
    const adapter = createShopifyAdapter({ apiSecret: SHOPIFY_SECRET, admin: api() });
    const translation = await adapter.toEvents({
      webhookId: 'refund-1',
      topic: 'refunds/create',
      shop: SHOP,
      apiVersion: '2026-04',
      triggeredAt: undefined,
      body: Buffer.from(shopifyRefundJson('7002', '55', '1.00')),
      receivedAt: new Date(),
    });
    expect(translation.kind === 'events' && translation.events.map((event) => event.facts)).toEqual([[], expect.arrayContaining(['fullyRefunded'])]);
  });
});

describe('registration', () => {
  it('creates only the missing subscriptions, keeps everything else, and a second run creates nothing', async () => {
    const created: string[] = [];
    const existing = [
      { id: 'gid://shopify/WebhookSubscription/1', topic: 'ORDERS_PAID', uri: 'https://bridge.example.com/webhooks/shopify' },
      { id: 'gid://shopify/WebhookSubscription/2', topic: 'ORDERS_PAID', uri: 'https://another-app.example.com/hooks' },
    ];
    nock(BASE)
      .post(GRAPHQL)
      .times(20)
      .reply((_uri, sent) => {
        const body = sent as { query: string; variables: Record<string, unknown> };
        if (body.query.includes('webhookSubscriptions(')) {
          return [200, { data: { webhookSubscriptions: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: existing } }, extensions: cost() }];
        }
        if (body.query.includes('webhookSubscriptionCreate')) {
          const topic = String(body.variables.topic);
          const input = body.variables.webhookSubscription as { uri: string };
          created.push(topic);
          existing.push({ id: `gid://shopify/WebhookSubscription/${existing.length + 1}`, topic, uri: input.uri });
          return [200, { data: { webhookSubscriptionCreate: { webhookSubscription: { id: 'x', topic, uri: input.uri }, userErrors: [] } }, extensions: cost() }];
        }
        return [400, { errors: [{ message: `unexpected query: ${body.query.slice(0, 60)}` }] }];
      });
    const first = await registerShopifyWebhooks(api(), 'https://bridge.example.com/');
    expect(first.alreadyThere).toEqual(['orders/paid']);
    expect(first.created).toHaveLength(8);
    expect(created).toContain('APP_UNINSTALLED');
    expect(created).toContain('REFUNDS_CREATE');

    const second = await registerShopifyWebhooks(api(), 'https://bridge.example.com');
    expect(second.created).toEqual([]);
    expect(existing.find((subscription) => subscription.uri.startsWith('https://another-app'))).toBeDefined();
  });
});
