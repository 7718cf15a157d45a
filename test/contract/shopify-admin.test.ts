// The Shopify Admin GraphQL API, against the fake Shopify over HTTP: tokens,
// throttling, resync, the orders a webhook alone cannot describe, partial
// data, and keeping the webhook subscriptions right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShopifyAccess } from '../../adapters/shopify/access.ts';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { ShopifyAdminApi, ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { fetchShopifyOrders } from '../../adapters/shopify/graphql-orders.ts';
import { syncShopifySubscriptions } from '../../adapters/shopify/subscriptions.ts';
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
const apiWith = (access: ShopifyAccess, sleep = noSleep) =>
  new ShopifyAdminApi({ shop: SHOP, access, apiVersion: VERSION, baseUrl: fake.adminUrl(SHOP), sleep });

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
    await expect(apiWith(legacyAccess('shpat_revoked')).query('{ shop { name } }')).rejects.toThrow(
      /check SHOPIFY_ADMIN_TOKEN/,
    );
  });

  it('answers Shopify being down as something to try again later', async () => {
    fake.failNext(503, 20);
    await expect(
      new ShopifyAdminApi({
        shop: SHOP,
        access: legacyAccess(),
        apiVersion: VERSION,
        baseUrl: fake.adminUrl(SHOP),
        sleep: noSleep,
        maxThrottleRetries: 2,
      }).query('{ shop { name } }'),
    ).rejects.toMatchObject({ transient: true });
    fake.failNext(503, 0);
  });
});

describe('resync', () => {
  it('fetches orders updated in the window, page by page, and a second run changes nothing', async () => {
    const orders = fake.shop(SHOP).orders;
    orders.clear();
    for (let i = 0; i < 101; i++)
      orders.set(
        `82098291194615450${8000 + i}`,
        shopifyOrderNode(`82098291194615450${8000 + i}`, {
          updatedAt: `2026-11-10T12:${String(i % 60).padStart(2, '0')}:00Z`,
        }),
      );
    orders.set(
      '820982911946154508901',
      shopifyOrderNode('820982911946154508901', {
        displayFulfillmentStatus: 'FULFILLED',
        updatedAt: '2026-11-11T00:00:00Z',
      }),
    );
    orders.set(
      '820982911946154508902',
      shopifyOrderNode('820982911946154508902', {
        cancelledAt: '2026-11-10T11:00:00Z',
        displayFinancialStatus: 'VOIDED',
        updatedAt: '2026-11-11T00:00:01Z',
      }),
    );
    // The customer's phone is on the customer record here, which read_customers reads.
    fake.scopes = 'read_orders,read_customers';
    const api = apiWith(legacyAccess());
    const engine = await startTestEngine(sandbox);
    const window = { since: new Date('2026-11-01T00:00:00Z'), until: new Date('2026-11-15T00:00:00Z') };
    const pagesBefore = fake.requests.filter((request) => request.what === 'LoyaltyBridgeOrders').length;
    const first = await resync(fetchShopifyOrders(api, window), engine.ingest);
    expect(first).toMatchObject({ fetched: 103, changed: 103, failed: 0 });
    expect(fake.requests.filter((request) => request.what === 'LoyaltyBridgeOrders').length - pagesBefore).toBe(2);
    await engine.drain();
    const state = sandbox.store.snapshot();
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508000')).toMatchObject({
      status: 'pending',
      mobile: '+447911123456',
      email: 'ada@example.com',
    });
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508901')).toMatchObject({
      status: 'approved',
    });
    expect(state.earnings.find((earning) => earning.orderId === '820982911946154508902')).toBeUndefined();

    const before = JSON.stringify(sandbox.store.snapshot());
    const second = await resync(fetchShopifyOrders(api, window), engine.ingest);
    await engine.drain();
    expect(second).toMatchObject({ fetched: 103, changed: 0, unchanged: 103 });
    expect(JSON.stringify(sandbox.store.snapshot())).toBe(before);
    await engine.stop();
    fake.scopes = 'read_orders';
  });

  it('says that orders older than 60 days need read_all_orders when Shopify refuses', async () => {
    const result = await resync(
      fetchShopifyOrders(apiWith(legacyAccess()), { since: new Date(Date.now() - 90 * 24 * 60 * 60 * 1000) }),
      { events: async () => 'accepted' },
    );
    expect(result.errors[0]).toMatch(/read_all_orders/);
  });

  it('processes orders with what it has when Shopify withholds protected customer data, and says so', async () => {
    fake.protectedDataGranted = false;
    try {
      fake.shop(SHOP).orders.set('7100', shopifyOrderNode('7100', { updatedAt: '2026-11-12T00:00:00Z' }));
      const events = [];
      for await (const event of fetchShopifyOrders(apiWith(legacyAccess()), {
        since: new Date('2026-11-12T00:00:00Z'),
        until: new Date('2026-11-12T00:00:01Z'),
      }))
        events.push(event);
      expect(events).toMatchObject([
        {
          orderId: '7100',
          facts: expect.arrayContaining(['paid']),
          customer: { email: null, mobile: null },
          protectedDataHidden: true,
        },
      ]);
    } finally {
      fake.protectedDataGranted = true;
    }
  });
});

describe('the customer’s contact with the scopes the app holds', () => {
  const onlyOrder = (id: string) =>
    shopifyOrderNode(id, {
      updatedAt: '2026-11-13T00:00:00Z',
      email: 'lin@example.com',
      billingAddress: { firstName: 'Lin', lastName: 'Wu', phone: '+44 7700 900123', countryCodeV2: 'GB' },
      customer: {
        firstName: 'Other',
        lastName: 'Record',
        defaultEmailAddress: { emailAddress: 'record@example.com' },
        defaultPhoneNumber: { phoneNumber: '+44 7911 000000' },
        defaultAddress: { countryCodeV2: 'GB' },
      },
    });
  const window = { since: new Date('2026-11-13T00:00:00Z'), until: new Date('2026-11-13T00:00:01Z') };
  const fetchAll = async (api: ShopifyAdminApi) => {
    const events = [];
    for await (const event of fetchShopifyOrders(api, window)) events.push(event);
    return events;
  };

  it('reads e-mail, phone and name from the order itself with read_orders alone, and never asks for the customer', async () => {
    fake.scopes = 'read_orders';
    fake.shop(SHOP).orders.set('7200', onlyOrder('7200'));
    const before = fake.requests.length;
    const events = await fetchAll(apiWith(legacyAccess()));
    expect(events).toMatchObject([
      {
        orderId: '7200',
        customer: { name: 'Lin Wu', email: 'lin@example.com', mobile: '+447700900123' },
        protectedDataHidden: false,
      },
    ]);
    expect(fake.requests.slice(before).map((request) => request.what)).toEqual([
      'LoyaltyBridgeScopes',
      'LoyaltyBridgeOrders',
    ]);
  });

  it('reads the customer record too once read_customers is granted', async () => {
    fake.scopes = 'read_orders,read_customers';
    try {
      fake.shop(SHOP).orders.set('7200', onlyOrder('7200'));
      const events = await fetchAll(apiWith(legacyAccess()));
      // The order's own contact comes first; the record fills what the order lacks.
      expect(events).toMatchObject([
        { orderId: '7200', customer: { name: 'Other Record', email: 'lin@example.com' }, protectedDataHidden: false },
      ]);
    } finally {
      fake.scopes = 'read_orders';
    }
  });

  it('tells a scope taken away from withheld protected data: not hidden, and the next read leaves the customer out', async () => {
    fake.scopes = 'read_orders,read_customers';
    const api = apiWith(legacyAccess());
    fake.shop(SHOP).orders.set('7200', onlyOrder('7200'));
    await fetchAll(api);
    // The merchant removes read_customers; the bridge still remembers it.
    fake.scopes = 'read_orders';
    const [refused] = await fetchAll(api);
    expect(refused).toMatchObject({
      protectedDataHidden: false,
      customer: { email: 'lin@example.com', mobile: '+447700900123' },
    });
    const before = fake.requests.length;
    const [again] = await fetchAll(api);
    expect(again).toMatchObject({ protectedDataHidden: false, customer: { name: 'Lin Wu' } });
    expect(fake.requests.slice(before).map((request) => request.what)).toEqual([
      'LoyaltyBridgeScopes',
      'LoyaltyBridgeOrders',
    ]);
  });
});

describe('webhooks that need the order as it is now', () => {
  const adapter = () =>
    createShopifyAdapter({
      apiSecrets: [SHOPIFY_SECRET],
      admin: new ShopifyAdminApis({ access: legacyAccess(), apiVersion: VERSION, baseUrl: fake.adminUrl }),
    });

  it('reads the order again for orders/edited', async () => {
    fake.shop(SHOP).orders.set('7001', shopifyOrderNode('7001', { displayFulfillmentStatus: 'FULFILLED' }));
    const body = '{"order_edit": {"id": 1, "order_id": 7001, "line_items": {"additions": [], "removals": []}}}';
    expect(await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/edited', body }))).toMatchObject({
      kind: 'events',
      events: [{ orderId: '7001', facts: expect.arrayContaining(['fulfilled']) }],
    });
  });

  it('adds the current order to refunds/create, which settles full or partial', async () => {
    fake.shop(SHOP).orders.set('7002', shopifyOrderNode('7002', { displayFinancialStatus: 'REFUNDED' }));
    const body = shopifyRefundJson('7002', '55', '1.00');
    const translation = await translateRaw(adapter(), body, shopifyHeaders({ topic: 'refunds/create', body }));
    expect(translation.kind === 'events' && translation.events.map((event) => event.facts)).toEqual([
      [],
      expect.arrayContaining(['fullyRefunded']),
    ]);
  });

  it('dead-letters orders/edited for an order Shopify says does not exist', async () => {
    const body = '{"order_edit": {"id": 2, "order_id": 7999999}}';
    expect(await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/edited', body }))).toMatchObject({
      kind: 'unusable',
      reason: expect.stringContaining('no order 7999999'),
    });
  });

  it('reads the order when orders/paid comes with a body that does not show it paid, and takes the facts Shopify has', async () => {
    const body = shopifyOrderJson({ id: '7003', financialStatus: 'pending' });
    fake.shop(SHOP).orders.set('7003', shopifyOrderNode('7003', { displayFinancialStatus: 'PENDING' }));
    const unpaid = await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/paid', body }));
    expect(unpaid.kind === 'events' && unpaid.events.flatMap((event) => event.facts)).not.toContain('paid');
    fake.shop(SHOP).orders.set('7003', shopifyOrderNode('7003', { displayFinancialStatus: 'PAID' }));
    const paid = await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/paid', body }));
    expect(paid.kind === 'events' && paid.events.map((event) => event.facts.includes('paid'))).toEqual([false, true]);
  });

  it('does not read the order when the body shows what its topic says', async () => {
    const body = shopifyOrderJson({ id: '7004', financialStatus: 'paid' });
    const before = fake.requests.length;
    expect(await translateRaw(adapter(), body, shopifyHeaders({ topic: 'orders/paid', body }))).toMatchObject({
      kind: 'events',
      events: [{ facts: expect.arrayContaining(['paid']) }],
    });
    expect(fake.requests.length).toBe(before);
  });

  it('acts on an app/uninstalled that names no shop only once Shopify refuses the shop’s token', async () => {
    const shop = 'unnamed-uninstall.myshopify.com';
    const token = 'shpat_unnamed_uninstall_token';
    fake.registerToken(token, shop);
    const access = new ShopifyAccess({ store, ownShop: shop, legacyToken: token });
    const withAccess = createShopifyAdapter({
      apiSecrets: [SHOPIFY_SECRET],
      admin: new ShopifyAdminApis({ access, apiVersion: VERSION, baseUrl: fake.adminUrl }),
    });
    const body = JSON.stringify({ id: 1, name: 'Unnamed', domain: null, myshopify_domain: null });
    const headers = shopifyHeaders({ topic: 'app/uninstalled', body, shop });
    // Still installed (a copy of an old body, or one re-labelled): asked again later, nothing forgotten.
    await expect(translateRaw(withAccess, body, headers)).rejects.toMatchObject({
      name: 'PlatformUnavailableError',
      message: expect.stringContaining('still accepts'),
    });
    fake.uninstall(shop);
    expect(await translateRaw(withAccess, body, headers)).toEqual({ kind: 'uninstalled' });
  });

  it('tells the core to read it again later when Shopify does not answer', async () => {
    fake.failNext(503, 30);
    const body = '{"order_edit": {"id": 3, "order_id": 7001}}';
    const slow = createShopifyAdapter({
      apiSecrets: [SHOPIFY_SECRET],
      admin: new ShopifyAdminApis({
        access: legacyAccess(),
        apiVersion: VERSION,
        baseUrl: fake.adminUrl,
        sleep: noSleep,
        maxThrottleRetries: 1,
      }),
    });
    await expect(translateRaw(slow, body, shopifyHeaders({ topic: 'orders/edited', body }))).rejects.toMatchObject({
      name: 'PlatformUnavailableError',
    });
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
          refunds: [
            { id: 31, transactions: [{ kind: 'refund', status: 'success', amount: '40.00', currency: 'EUR' }] },
          ],
        }).replace(
          '"currency":"USD"',
          '"currency":"USD","presentment_currency":"EUR","total_price_set":{"shop_money":{"amount":"110.00","currency_code":"USD"},"presentment_money":{"amount":"100.00","currency_code":"EUR"}}',
        ),
      ),
      { shop: SHOP, deliveryId: 'w', receivedAt: new Date() },
    );
    const graphql = graphqlOrderToEvent(
      shopifyOrderNode('9100', {
        displayFinancialStatus: 'PARTIALLY_REFUNDED',
        totalPriceSet: {
          shopMoney: { amount: '110.00', currencyCode: 'USD' },
          presentmentMoney: { amount: '100.00', currencyCode: 'EUR' },
        },
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
      return {
        facts: record.facts,
        refunded: refundedInShopMoney(record),
        total: record.snapshot.total.amount,
        subtotal: record.snapshot.subtotal,
      };
    };
    expect(fold(webhook.event)).toEqual(fold(graphql));
    expect(fold(graphql)).toEqual({
      facts: ['placed', 'paid', 'partiallyRefunded'],
      refunded: '44',
      total: '110.00',
      subtotal: '96.00',
    });
  });
});

describe('keeping the subscriptions right', () => {
  const BRIDGE = 'https://bridge.example.com/webhooks/shopify';
  const ours = () => fake.shop(SHOP).subscriptions.filter((subscription) => subscription.uri === BRIDGE);

  it('creates what is missing, moves one at an old address, removes a duplicate, leaves others alone, and a second run changes nothing', async () => {
    const theShop = fake.shop(SHOP);
    theShop.subscriptions = [
      { id: 'gid://shopify/WebhookSubscription/1', topic: 'ORDERS_PAID', uri: BRIDGE, apiVersion: VERSION },
      {
        id: 'gid://shopify/WebhookSubscription/2',
        topic: 'ORDERS_CREATE',
        uri: 'https://old-bridge.example.com/webhooks/shopify',
        apiVersion: VERSION,
      },
      { id: 'gid://shopify/WebhookSubscription/4', topic: 'ORDERS_PAID', uri: BRIDGE, apiVersion: VERSION },
      {
        id: 'gid://shopify/WebhookSubscription/5',
        topic: 'PRODUCTS_UPDATE',
        uri: 'https://another-place.example.com/hooks',
        apiVersion: '2025-01',
      },
    ];
    const api = apiWith(legacyAccess());
    const first = await syncShopifySubscriptions(api, 'https://bridge.example.com/', 'shop');
    expect(first).toMatchObject({
      alreadyThere: ['orders/paid'],
      moved: ['orders/create'],
      removed: ['orders/paid'],
      problems: [],
      scopes: ['read_orders'],
    });
    expect(first.created).toHaveLength(8);
    // The app's own topics come first: they need no protected-data approval.
    expect(first.created.slice(0, 2)).toEqual(['app/uninstalled', 'app/scopes_update']);
    expect(ours()).toHaveLength(10);
    expect(new Set(ours().map((subscription) => subscription.topic)).size).toBe(10);
    expect(
      theShop.subscriptions.find((subscription) => subscription.uri.startsWith('https://another-place')),
    ).toBeDefined();

    const second = await syncShopifySubscriptions(api, 'https://bridge.example.com', 'shop');
    expect(second).toMatchObject({ created: [], moved: [], removed: [], problems: [] });
    expect(second.alreadyThere).toHaveLength(10);
  });

  it('for an app, whose configuration declares every topic, creates none, and removes its own from earlier releases only for topics Shopify delivers through the configuration, leaving others alone', async () => {
    fake.shop(SHOP).subscriptions = [
      { id: 'gid://shopify/WebhookSubscription/11', topic: 'ORDERS_PAID', uri: BRIDGE, apiVersion: VERSION },
      {
        id: 'gid://shopify/WebhookSubscription/12',
        topic: 'APP_UNINSTALLED',
        uri: 'https://old-bridge.example.com/webhooks/shopify',
        apiVersion: VERSION,
      },
      {
        id: 'gid://shopify/WebhookSubscription/13',
        topic: 'PRODUCTS_UPDATE',
        uri: 'https://another-place.example.com/hooks',
        apiVersion: '2025-01',
      },
    ];
    // Nothing seen through the configuration yet (it may not be deployed): ours stay, at this address.
    const before = await syncShopifySubscriptions(apiWith(legacyAccess()), 'https://bridge.example.com', 'app');
    expect(before).toMatchObject({
      source: 'app',
      created: [],
      moved: ['app/uninstalled'],
      removed: [],
      alreadyThere: ['orders/paid'],
      declared: [],
      problems: [],
    });
    expect(before.unconfirmed).toHaveLength(8);
    expect(
      ours()
        .map((subscription) => subscription.topic)
        .sort(),
    ).toEqual(['APP_UNINSTALLED', 'ORDERS_PAID']);

    const after = await syncShopifySubscriptions(
      apiWith(legacyAccess()),
      'https://bridge.example.com',
      'app',
      new Set(['orders/paid', 'app/uninstalled']),
    );
    expect(after).toMatchObject({
      created: [],
      moved: [],
      removed: ['app/uninstalled', 'orders/paid'],
      declared: ['app/uninstalled', 'orders/paid'],
      problems: [],
    });
    expect(fake.shop(SHOP).subscriptions.map((subscription) => subscription.topic)).toEqual(['PRODUCTS_UPDATE']);
  });

  it('without protected customer data approval, still creates app/uninstalled and app/scopes_update, and says per topic what to request', async () => {
    fake.shop(SHOP).subscriptions = [];
    fake.protectedDataGranted = false;
    try {
      const result = await syncShopifySubscriptions(apiWith(legacyAccess()), 'https://bridge.example.com', 'shop');
      expect(result.created).toEqual(['app/uninstalled', 'app/scopes_update']);
      expect(
        ours()
          .map((subscription) => subscription.topic)
          .sort(),
      ).toEqual(['APP_SCOPES_UPDATE', 'APP_UNINSTALLED']);
      expect(result.problems.map((problem) => problem.topic)).toEqual([
        'orders/create',
        'orders/paid',
        'orders/fulfilled',
        'orders/partially_fulfilled',
        'orders/updated',
        'orders/cancelled',
        'refunds/create',
        'orders/edited',
      ]);
      for (const problem of result.problems) {
        expect(problem.kind).toBe('protected_data');
        expect(problem.fix).toMatch(/Dev Dashboard.*Protected customer data.*Name, Email and Phone/);
      }
    } finally {
      fake.protectedDataGranted = true;
    }
    // Once approved, the next run adds the order topics.
    const after = await syncShopifySubscriptions(apiWith(legacyAccess()), 'https://bridge.example.com', 'shop');
    expect(after.created).toHaveLength(8);
    expect(after.problems).toEqual([]);
  });

  it('never deletes a subscription for its API version (Shopify gives every one the app’s webhook version), and says how to align the two', async () => {
    const api = apiWith(legacyAccess());
    fake.shop(SHOP).subscriptions = [];
    fake.webhookApiVersion = '2026-07';
    try {
      const deletions = () => fake.requests.filter((request) => request.what === 'LoyaltyBridgeUnsubscribe').length;
      const before = deletions();
      const first = await syncShopifySubscriptions(api, 'https://bridge.example.com', 'shop');
      expect(first.created).toHaveLength(10);
      expect(first.problems).toEqual([
        expect.objectContaining({
          kind: 'wrong_version',
          detail: expect.stringMatching(/at API version 2026-07.*calls 2026-10/),
          fix: expect.stringMatching(/api_version in shopify\.app\.toml/),
        }),
      ]);
      for (let i = 0; i < 3; i++) {
        const again = await syncShopifySubscriptions(api, 'https://bridge.example.com', 'shop');
        expect(again).toMatchObject({ created: [], removed: [], moved: [] });
        expect(again.problems.map((problem) => problem.kind)).toEqual(['wrong_version']);
      }
      expect(deletions() - before).toBe(0);
      expect(ours()).toHaveLength(10);
      // Aligned in the app's settings: the report goes, still nothing recreated.
      fake.webhookApiVersion = VERSION;
      for (const subscription of fake.shop(SHOP).subscriptions) subscription.apiVersion = VERSION;
      expect((await syncShopifySubscriptions(api, 'https://bridge.example.com', 'shop')).problems).toEqual([]);
      expect(deletions() - before).toBe(0);
    } finally {
      fake.webhookApiVersion = VERSION;
    }
  });

  it('warns when read_orders is gone', async () => {
    fake.scopes = 'read_customers';
    try {
      const result = await syncShopifySubscriptions(apiWith(legacyAccess()), 'https://bridge.example.com', 'shop');
      expect(result.problems).toContainEqual(expect.objectContaining({ kind: 'scope', topic: 'read_orders' }));
    } finally {
      fake.scopes = 'read_orders';
    }
  });
});
