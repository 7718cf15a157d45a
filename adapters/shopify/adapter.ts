// The Shopify adapter: verified deliveries of the order topics to OrderEvents.
import { isUtf8 } from 'node:buffer';
import type { PlatformAdapter, Translation } from '../adapter.ts';
import { parseJsonLossless } from '../shared/json.ts';
import { orderToEvent, refundToEvent, type EventContext } from './order-events.ts';
import { shopifyVerifier, type ShopifyDelivery } from './verify.ts';

export const SHOPIFY_TOPICS = [
  'orders/create',
  'orders/paid',
  'orders/fulfilled',
  'orders/partially_fulfilled',
  'orders/updated',
  'orders/cancelled',
  'refunds/create',
  'orders/edited',
  'app/uninstalled',
] as const;

const ORDER_TOPICS = new Set(['orders/create', 'orders/paid', 'orders/fulfilled', 'orders/partially_fulfilled', 'orders/updated', 'orders/cancelled']);

export interface ShopifyAdapterOptions {
  apiSecret: string;
}

export function createShopifyAdapter({ apiSecret }: ShopifyAdapterOptions): PlatformAdapter<ShopifyDelivery> {
  const verify = shopifyVerifier(apiSecret);
  return {
    platform: 'shopify',
    verify,
    describe: (delivery) => ({ key: `shopify:${delivery.webhookId}`, topic: delivery.topic, shop: delivery.shop }),
    async toEvents(delivery): Promise<Translation> {
      const { topic } = delivery;
      if (topic === 'app/uninstalled') return { kind: 'uninstalled', shop: delivery.shop };
      if (!ORDER_TOPICS.has(topic) && topic !== 'refunds/create' && topic !== 'orders/edited') {
        return { kind: 'ignored', reason: `topic ${topic} is not one loyalty-bridge uses` };
      }
      if (topic === 'orders/edited') {
        return { kind: 'recorded', reason: 'orders/edited carries only the edit, not the order; the next order update brings the change' };
      }
      if (!isUtf8(delivery.body)) return { kind: 'unusable', reason: 'the body is not valid UTF-8' };
      const parsed = parseJsonLossless(delivery.body.toString('utf8'));
      if (!parsed.ok) return { kind: 'unusable', reason: parsed.reason };
      const context: EventContext = { shop: delivery.shop, deliveryId: delivery.webhookId, topic, receivedAt: delivery.receivedAt };
      const result = topic === 'refunds/create' ? refundToEvent(parsed.value, context) : orderToEvent(parsed.value, context);
      return result.ok ? { kind: 'events', events: [result.event] } : { kind: 'unusable', reason: result.reason };
    },
  };
}
