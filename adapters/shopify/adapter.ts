// The Shopify adapter: verified deliveries of the order topics to OrderEvents.
import { isUtf8 } from 'node:buffer';
import type { PlatformAdapter, Translation } from '../adapter.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { asRecord, idDigits, parseJsonLossless } from '../shared/json.ts';
import type { ShopifyAdminApi } from './admin-api.ts';
import { fetchShopifyOrder, fetchShopifyOrders, type FetchWindow } from './graphql-orders.ts';
import { orderToEvent, refundToEvent, type EventContext } from './order-events.ts';
import { ORDER_TOPICS } from './topics.ts';
import { shopifyVerifier, type ShopifyDelivery } from './verify.ts';

export interface ShopifyAdapterOptions {
  apiSecret: string;
  /** With Admin API access: resync, and re-fetching orders a webhook cannot fully describe. */
  admin?: ShopifyAdminApi;
}

export interface ShopifyAdapter extends PlatformAdapter<ShopifyDelivery> {
  fetchOrders?: (window: FetchWindow) => AsyncIterable<OrderEvent>;
}

export function createShopifyAdapter({ apiSecret, admin }: ShopifyAdapterOptions): ShopifyAdapter {
  const verify = shopifyVerifier(apiSecret);
  /** The order as Shopify has it now, added to what a delivery itself says. */
  const withCurrentOrder = async (events: OrderEvent[], orderId: string, deliveryId: string, shop: string): Promise<OrderEvent[]> => {
    if (!admin || admin.shop !== shop) return events;
    try {
      const current = await fetchShopifyOrder(admin, orderId, `shopify-fetch:${deliveryId}`);
      return current ? [...events, current] : events;
    } catch {
      // The delivery's own events still count; reconciliation and resync catch up later.
      return events;
    }
  };
  return {
    ...(admin ? { fetchOrders: (window: FetchWindow) => fetchShopifyOrders(admin, window) } : {}),
    platform: 'shopify',
    verify,
    describe: (delivery) => ({ key: `shopify:${delivery.webhookId}`, topic: delivery.topic, shop: delivery.shop }),
    restore: (stored) => ({
      webhookId: stored.key.replace(/^shopify:/, ''),
      topic: stored.topic,
      shop: stored.shop,
      apiVersion: '',
      triggeredAt: undefined,
      body: stored.body,
      receivedAt: stored.receivedAt,
    }),
    async toEvents(delivery): Promise<Translation> {
      const { topic } = delivery;
      if (topic === 'app/uninstalled') return { kind: 'uninstalled', shop: delivery.shop };
      if (!ORDER_TOPICS.has(topic) && topic !== 'refunds/create' && topic !== 'orders/edited') {
        return { kind: 'ignored', reason: `topic ${topic} is not one loyalty-bridge uses` };
      }
      if (!isUtf8(delivery.body)) return { kind: 'unusable', reason: 'the body is not valid UTF-8' };
      const parsed = parseJsonLossless(delivery.body.toString('utf8'));
      if (!parsed.ok) return { kind: 'unusable', reason: parsed.reason };
      if (topic === 'orders/edited') {
        // The edit alone says nothing about the order's state: fetch the order, or record the delivery and wait for the next order update.
        const orderId = idDigits(asRecord(asRecord(parsed.value).order_edit).order_id);
        if (!admin || orderId === undefined) {
          return { kind: 'recorded', reason: 'orders/edited carries only the edit; set SHOPIFY_SHOP and SHOPIFY_ADMIN_TOKEN to re-fetch the order' };
        }
        const events = await withCurrentOrder([], orderId, delivery.webhookId, delivery.shop);
        return events.length > 0 ? { kind: 'events', events } : { kind: 'recorded', reason: `order ${orderId} was not found` };
      }
      const context: EventContext = { shop: delivery.shop, deliveryId: delivery.webhookId, topic, receivedAt: delivery.receivedAt };
      const result = topic === 'refunds/create' ? refundToEvent(parsed.value, context) : orderToEvent(parsed.value, context);
      if (!result.ok) return { kind: 'unusable', reason: result.reason };
      // A refund alone cannot always tell full from partial: with API access, the order settles it.
      const events = topic === 'refunds/create' ? await withCurrentOrder([result.event], result.event.orderId, delivery.webhookId, delivery.shop) : [result.event];
      return { kind: 'events', events };
    },
  };
}
