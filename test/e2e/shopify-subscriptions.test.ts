// A running bridge beside the fake Shopify, as Shopify runs webhooks: the
// bridge's own subscriptions at start, a topic also declared app-wide (two
// deliveries of one event), a shop without protected customer data approval,
// and the merchant taking read_orders away (app/scopes_update).
import { describe, expect, it } from 'vitest';
import type { SubscriptionHealth } from '../../src/core/order-source.ts';
import { eventually } from '../helpers/engine.ts';
import { shopifyAppSuite } from '../helpers/shopify-app-bridge.ts';
import { shopifyOrderJson } from '../helpers/shopify.ts';

const SHOP = 'own-store.myshopify.com';
const ADMIN_TOKEN = 'operator-token-for-the-subscriptions-test';
const suite = shopifyAppSuite({ SHOPIFY_SHOP: SHOP });

const health = async () => (await suite.running.bridge.engine.store.getRecord<SubscriptionHealth>('platform-health', `shopify:${SHOP}`)) ?? undefined;
const subscribedTopics = () =>
  suite.fake
    .shop(SHOP)
    .subscriptions.map((subscription) => subscription.topic)
    .sort();

describe('Shopify webhooks, as Shopify delivers them', () => {
  it('subscribes each topic once at start, and processes one event once although two subscriptions deliver it', async () => {
    suite.fake.shop(SHOP).subscriptions = [];
    const running = await suite.start();
    await eventually(() => expect(subscribedTopics()).toHaveLength(10));
    expect(subscribedTopics()).toContain('APP_SCOPES_UPDATE');

    // An old shopify.app.toml that still declares orders/paid app-wide: Shopify sends the event once per subscription.
    suite.fake.appSubscriptions.push({ topic: 'orders/paid', uri: `${running.url}/webhooks/shopify` });
    try {
      const id = '820982911946199001';
      const results = await suite.fake.deliver(SHOP, 'orders/paid', shopifyOrderJson({ id }));
      expect(results).toEqual([
        { status: 200, result: 'accepted' },
        { status: 200, result: 'duplicate' },
      ]);
      await running.bridge.engine.drain();
      expect(running.bridge.sandbox?.store.snapshot().earnings.filter((earning) => earning.orderId === id)).toHaveLength(1);
    } finally {
      suite.fake.appSubscriptions.length = 0;
    }
  });

  it('without protected customer data approval, still subscribes app/uninstalled and says per topic what to request', async () => {
    suite.fake.shop(SHOP).subscriptions = [];
    suite.fake.protectedDataGranted = false;
    try {
      await suite.start({ ADMIN_TOKEN });
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

  it('on app/scopes_update asks for the scopes again, and warns when read_orders is gone', async () => {
    await suite.start();
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
