// A running bridge beside the fake Shopify, as Shopify runs webhooks. An app
// declares every topic in its configuration (shopify.app.toml, read by the
// test and given to the fake with each topic's include_fields): a shop the
// app was installed on, and that never opened the app, earns on its first
// order; the bridge makes no shop-scoped subscription of its own and removes
// those an earlier release made, which would double every delivery. A
// legacy custom app (a fixed token, no app configuration) subscribes per
// shop: without protected customer data approval, app/uninstalled still; and
// app/scopes_update asks for the scopes again.
import { describe, expect, it } from 'vitest';
import type { SubscriptionHealth } from '../../src/core/order-source.ts';
import { eventually } from '../helpers/engine.ts';
import { shopifyAppSuite, type ShopifyAppBridge } from '../helpers/shopify-app-bridge.ts';
import { declaredSubscriptions } from '../helpers/shopify-app-config.ts';
import { shopifyOrderJson, shopifyRefundJson } from '../helpers/shopify.ts';

const SHOP = 'own-store.myshopify.com';
const MANAGED = 'installed-never-opened.myshopify.com';
const LEGACY_TOKEN = 'shpat_legacy_custom_app_for_subscriptions';
const ADMIN_TOKEN = 'operator-token-for-the-subscriptions-test';
const suite = shopifyAppSuite({ SHOPIFY_SHOP: SHOP, SHOPIFY_SHOPS: MANAGED });

const health = async () => (await suite.running.bridge.engine.store.getRecord<SubscriptionHealth>('platform-health', `shopify:${SHOP}`)) ?? undefined;
const subscribedTopics = () =>
  suite.fake
    .shop(SHOP)
    .subscriptions.map((subscription) => subscription.topic)
    .sort();
const earning = (running: ShopifyAppBridge, orderId: string) => running.bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];

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
    expect(await running.bridge.platforms.shopify?.access.hasAccess(MANAGED)).toBe(false);
    // Everything an earn needs came in the declared fields: the customer's name, e-mail and phone.
    expect(earning(running, id)).toEqual([expect.objectContaining({ status: 'pending', email: 'grace@example.com', name: 'Grace Hopper', mobile: '+12125550100' })]);

    expect(await suite.fake.deliver(MANAGED, 'refunds/create', shopifyRefundJson(id, '77001', '80.00'))).toEqual([{ status: 200, result: 'accepted' }]);
    await running.bridge.engine.drain();
    expect(earning(running, id)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
  });

  it('makes no shop-scoped subscription, removes the ones an earlier release made, and so takes each event once', async () => {
    // An earlier release's subscriptions on the own shop, at this bridge's address.
    const before = await startDeclared();
    const uri = `${before.url}/webhooks/shopify`;
    suite.fake.shop(SHOP).subscriptions = [
      { id: 'gid://shopify/WebhookSubscription/901', topic: 'ORDERS_PAID', uri, apiVersion: '2026-10' },
      { id: 'gid://shopify/WebhookSubscription/902', topic: 'APP_UNINSTALLED', uri, apiVersion: '2026-10' },
    ];
    await before.bridge.reconciler.checkAllSubscriptions('shopify', SHOP);
    await eventually(() => expect(subscribedTopics()).toEqual([]));
    expect(await health()).toMatchObject({ repaired: ['orders/paid: duplicate removed', 'app/uninstalled: duplicate removed'], problems: [] });

    const id = '820982911946199001';
    expect(await suite.fake.deliver(SHOP, 'orders/paid', shopifyOrderJson({ id }))).toEqual([{ status: 200, result: 'accepted' }]);
    await before.bridge.engine.drain();
    expect(earning(before, id)).toHaveLength(1);
  });

  it('on app/scopes_update asks for the scopes again, and warns when read_orders is gone', async () => {
    await startDeclared();
    await suite.running.bridge.reconciler.checkAllSubscriptions('shopify', SHOP);
    await eventually(async () => expect((await health())?.scopes).toEqual(['read_orders']));
    suite.fake.scopes = 'read_customers';
    try {
      const results = await suite.fake.deliver(SHOP, 'app/scopes_update', JSON.stringify({ id: 1, previous: ['read_orders'], current: ['read_customers'], updated_at: '2026-11-22T10:00:00Z' }));
      expect(results).toEqual([{ status: 200, result: 'accepted' }]);
      await eventually(async () => expect((await health())?.scopes).toEqual(['read_customers']));
      expect((await health())?.problems).toContainEqual(expect.objectContaining({ kind: 'scope', topic: 'read_orders' }));
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
      const answer = await fetch(`${suite.running.url}/admin/api/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const status = (await answer.json()) as { connections: Array<{ platform: string; subscriptions: SubscriptionHealth[] }> };
      expect(status.connections.find((connection) => connection.platform === 'shopify')?.subscriptions[0]?.problems).toHaveLength(8);
    } finally {
      suite.fake.protectedDataGranted = true;
    }
  });
});
