// A running bridge beside the fake Shopify, as Shopify runs webhooks. An app
// declares every topic in its configuration (shopify.app.toml, read by the
// test and given to the fake with each topic's include_fields): a shop the
// app was installed on, and that never opened the app, earns on its first
// order; the bridge makes no shop-scoped subscription of its own. Those an
// earlier release made stay until Shopify delivers their topic through the
// configuration (a bridge upgraded before `shopify app deploy` would
// otherwise lose every order), then go: they would double every delivery;
// and a topic nothing is seen to deliver is not counted healthy. A
// legacy custom app (a fixed token, no app configuration) subscribes per
// shop: without protected customer data approval, app/uninstalled still; and
// app/scopes_update asks for the scopes again.
import { describe, expect, it } from 'vitest';
import type { SubscriptionHealth } from '../../src/core/order-source.ts';
import { eventually } from '../helpers/engine.ts';
import { shopifyAppSuite, type ShopifyAppBridge } from '../helpers/shopify-app-bridge.ts';
import { declaredSubscriptions } from '../helpers/shopify-app-config.ts';
import { shopifyOrderJson, shopifyPartsOf, shopifyRefundJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'own-store.myshopify.com';
const MANAGED = 'installed-never-opened.myshopify.com';
const LEGACY_TOKEN = 'shpat_legacy_custom_app_for_subscriptions';
const ADMIN_TOKEN = 'operator-token-for-the-subscriptions-test';
const suite = shopifyAppSuite({ SHOPIFY_SHOP: SHOP, SHOPIFY_SHOPS: MANAGED });

const health = async () =>
  (await suite.running.bridge.engine.store.getRecord(raw<SubscriptionHealth>('platform-health'), `shopify:${SHOP}`)) ??
  undefined;
const subscribedTopics = () =>
  suite.fake
    .shop(SHOP)
    .subscriptions.map((subscription) => subscription.topic)
    .sort();
const earning = (running: ShopifyAppBridge, orderId: string) =>
  running.bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];

/** A bridge as a deployed app: Shopify delivers what shopify.app.toml declares to it. */
async function startDeclared(env: Record<string, string> = {}): Promise<ShopifyAppBridge> {
  const running = await suite.start(env);
  suite.fake.appSubscriptions.splice(0, Infinity, ...declaredSubscriptions(running.url));
  return running;
}

describe('an app, whose configuration declares every topic', () => {
  it('earns on the first order of a shop that installed the app and never opened it, from the fields it declares alone', async () => {
    suite.fake.install(MANAGED);
    const running = await startDeclared();
    const id = '820982911946199101';
    const order = shopifyOrderJson({ id, customerPhone: '+1 212 555 0100', totalPrice: '80.00' });
    expect(await suite.fake.deliver(MANAGED, 'orders/paid', order)).toEqual([{ status: 200, result: 'accepted' }]);
    await running.bridge.engine.drain();
    // The bridge never had a token for this shop: nothing but the delivery made it earn.
    expect(await shopifyPartsOf(running.bridge.platforms)?.access.hasAccess(MANAGED)).toBe(false);
    // Everything an earn needs came in the declared fields: the customer's name, e-mail and phone.
    expect(earning(running, id)).toEqual([
      expect.objectContaining({
        status: 'pending',
        email: 'grace@example.com',
        name: 'Grace Hopper',
        mobile: '+12125550100',
      }),
    ]);

    expect(await suite.fake.deliver(MANAGED, 'refunds/create', shopifyRefundJson(id, '77001', '80.00'))).toEqual([
      { status: 200, result: 'accepted' },
    ]);
    await running.bridge.engine.drain();
    expect(earning(running, id)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
  });

  it('upgraded before shopify app deploy: keeps the subscriptions an earlier release made, so orders still come, and removes each once Shopify delivers its topic through the configuration', async () => {
    // The configuration Shopify runs is the earlier one: compliance topics only.
    const running = await suite.start();
    suite.fake.appSubscriptions.length = 0;
    const uri = `${running.url}/webhooks/shopify`;
    suite.fake.shop(SHOP).subscriptions = [
      { id: 'gid://shopify/WebhookSubscription/901', topic: 'ORDERS_PAID', uri, apiVersion: '2026-10' },
      { id: 'gid://shopify/WebhookSubscription/902', topic: 'APP_UNINSTALLED', uri, apiVersion: '2026-10' },
    ];
    await running.bridge.reconciler.checkAllSubscriptions('shopify', SHOP);
    expect(subscribedTopics()).toEqual(['APP_UNINSTALLED', 'ORDERS_PAID']);
    // Only what delivers counts: the two kept, not the eight nothing delivers yet.
    expect(await health()).toMatchObject({
      healthy: 2,
      repaired: [],
      problems: [],
      unconfirmed: expect.arrayContaining(['orders/create', 'refunds/create', 'app/scopes_update']),
    });
    expect((await health())?.unconfirmed).toHaveLength(8);
    const first = '820982911946199001';
    expect(await suite.fake.deliver(SHOP, 'orders/paid', shopifyOrderJson({ id: first }))).toEqual([
      { status: 200, result: 'accepted' },
    ]);
    await running.bridge.engine.drain();
    expect(earning(running, first)).toHaveLength(1);

    // Then `shopify app deploy`: Shopify delivers each event through both, the second copy a duplicate.
    suite.fake.appSubscriptions.splice(0, Infinity, ...declaredSubscriptions(running.url));
    const second = '820982911946199002';
    expect(await suite.fake.deliver(SHOP, 'orders/paid', shopifyOrderJson({ id: second }))).toEqual([
      { status: 200, result: 'accepted' },
      { status: 200, result: 'duplicate' },
    ]);
    await running.bridge.engine.drain();
    expect(earning(running, second)).toHaveLength(1);
    await eventually(async () => {
      await running.bridge.reconciler.checkAllSubscriptions('shopify', SHOP);
      // orders/paid came trimmed to the configuration's fields (signed): the configuration Shopify runs is this one,
      // which declares every topic, app/uninstalled among them, so each copy goes.
      expect(subscribedTopics()).toEqual([]);
    });
    expect(await health()).toMatchObject({ healthy: 10, problems: [] });
    expect((await health())?.repaired).toEqual(
      expect.arrayContaining(['orders/paid: duplicate removed', 'app/uninstalled: duplicate removed']),
    );
    expect((await health())?.unconfirmed ?? []).toHaveLength(0);

    const third = '820982911946199003';
    expect(await suite.fake.deliver(SHOP, 'orders/paid', shopifyOrderJson({ id: third }))).toEqual([
      { status: 200, result: 'accepted' },
    ]);
  });

  it('on app/scopes_update asks for the scopes again, and warns when read_orders is gone', async () => {
    await startDeclared();
    await suite.running.bridge.reconciler.checkAllSubscriptions('shopify', SHOP);
    await eventually(async () => expect((await health())?.scopes).toEqual(['read_orders']));
    suite.fake.scopes = 'read_customers';
    try {
      const results = await suite.fake.deliver(
        SHOP,
        'app/scopes_update',
        JSON.stringify({
          id: 1,
          previous: ['read_orders'],
          current: ['read_customers'],
          updated_at: '2026-11-22T10:00:00Z',
        }),
      );
      expect(results).toEqual([{ status: 200, result: 'accepted' }]);
      await eventually(async () => expect((await health())?.scopes).toEqual(['read_customers']));
      expect((await health())?.problems).toContainEqual(
        expect.objectContaining({ kind: 'scope', topic: 'read_orders' }),
      );
    } finally {
      suite.fake.scopes = 'read_orders';
    }
  });
});

describe('a legacy custom app, which has no configuration to declare topics in', () => {
  it('subscribes each topic on its shop once, and without protected customer data approval still app/uninstalled, saying per topic what to request', async () => {
    suite.fake.registerToken(LEGACY_TOKEN, SHOP);
    suite.fake.appSubscriptions.length = 0;
    suite.fake.shop(SHOP).subscriptions = [];
    await suite.start({ SHOPIFY_ADMIN_TOKEN: LEGACY_TOKEN });
    await eventually(() => expect(subscribedTopics()).toHaveLength(10));
    expect(subscribedTopics()).toContain('APP_SCOPES_UPDATE');
    await suite.running.stop();

    suite.fake.shop(SHOP).subscriptions = [];
    suite.fake.protectedDataGranted = false;
    try {
      await suite.start({ SHOPIFY_ADMIN_TOKEN: LEGACY_TOKEN, ADMIN_TOKEN });
      await eventually(async () => expect((await health())?.problems.length).toBe(8));
      expect(subscribedTopics()).toEqual(['APP_SCOPES_UPDATE', 'APP_UNINSTALLED']);
      const report = await health();
      expect(new Set(report?.problems.map((problem) => problem.kind))).toEqual(new Set(['protected_data']));
      expect(report?.problems[0]?.fix).toMatch(/Protected customer data/);
      // The operator sees it where problems are shown.
      const answer = await fetch(`${suite.running.url}/admin/api/status`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const status = (await answer.json()) as {
        connections: Array<{ platform: string; subscriptions: SubscriptionHealth[] }>;
      };
      expect(
        status.connections.find((connection) => connection.platform === 'shopify')?.subscriptions[0]?.problems,
      ).toHaveLength(8);
    } finally {
      suite.fake.protectedDataGranted = true;
    }
  });
});
