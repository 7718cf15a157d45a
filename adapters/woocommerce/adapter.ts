// The WooCommerce adapter. WooCommerce never retries a failed delivery and
// builds a body when it sends it, so a delivery is read as the order's state
// at that moment (an order.created can already say completed), and
// reconciliation over the REST API catches what never arrived.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { PlatformAdapter, Translation } from '../adapter.ts';
import { parseJsonLossless } from '../shared/json.ts';
import { wooIdentity, wooOrderToEvent } from './order-events.ts';
import { fetchWooOrders, shopOfUrl, type FetchWindow, type WooRestOptions } from './rest-api.ts';
import { wooVerifier, type WooDelivery } from './verify.ts';

const ORDER_TOPICS = new Set(['order.created', 'order.updated', 'order.restored']);

export interface WooAdapterOptions {
  secret: string;
  /** The store's address, for the shop name when a delivery does not say it. */
  url?: string;
  rest?: WooRestOptions;
}

export interface WooAdapter extends PlatformAdapter<WooDelivery> {
  fetchOrders?: (window: FetchWindow) => AsyncIterable<OrderEvent>;
}

export function createWooAdapter({ secret, url, rest }: WooAdapterOptions): WooAdapter {
  const shopOf = (delivery: WooDelivery) => {
    const source = delivery.kind === 'event' ? delivery.source : '';
    try {
      return shopOfUrl(source || url || '');
    } catch {
      return 'woocommerce';
    }
  };
  const parse = (delivery: Extract<WooDelivery, { kind: 'event' }>) => (isUtf8(delivery.body) ? parseJsonLossless(delivery.body.toString('utf8')) : undefined);

  const describe: WooAdapter['describe'] = (delivery) => {
    if (delivery.kind === 'ping') return { key: `woocommerce:ping:${delivery.webhookId}:${delivery.digest}`, topic: 'ping', shop: shopOf(delivery) };
    // X-WC-Webhook-Delivery-ID has one-second resolution and repeats across orders: the key is what the delivery says.
    const parsed = parse(delivery);
    const identity = parsed?.ok ? wooIdentity(parsed.value) : { orderId: undefined, modified: '', status: '' };
    return {
      key: `woocommerce:${delivery.webhookId}:${identity.orderId ?? '-'}:${identity.modified}:${identity.status}:${delivery.digest.slice(0, 32)}`,
      topic: delivery.topic,
      shop: shopOf(delivery),
    };
  };

  return {
    platform: 'woocommerce',
    verify: wooVerifier(secret),
    ...(rest ? { fetchOrders: (window: FetchWindow) => fetchWooOrders(rest, window) } : {}),
    describe,
    restore: (stored) => ({
      kind: 'event',
      topic: stored.topic,
      source: `https://${stored.shop}`,
      webhookId: stored.key.split(':')[1] ?? '',
      body: stored.body,
      digest: createHash('sha256').update(stored.body).digest('hex'),
      receivedAt: stored.receivedAt,
    }),
    async toEvents(delivery): Promise<Translation> {
      if (delivery.kind === 'ping') return { kind: 'ignored', reason: `WooCommerce ping for webhook ${delivery.webhookId}` };
      if (delivery.topic === 'order.deleted') {
        // Trashed, not cancelled: it can be restored, and facts never become untrue.
        return { kind: 'recorded', reason: 'order.deleted moves an order to the trash; its points stay until it is cancelled or refunded' };
      }
      if (!ORDER_TOPICS.has(delivery.topic)) return { kind: 'ignored', reason: `topic ${delivery.topic} is not one loyalty-bridge uses` };
      const parsed = parse(delivery);
      if (!parsed) return { kind: 'unusable', reason: 'the body is not valid UTF-8' };
      if (!parsed.ok) return { kind: 'unusable', reason: parsed.reason };
      const { key } = describe(delivery);
      const result = wooOrderToEvent(parsed.value, shopOf(delivery), key, delivery.receivedAt);
      return result.ok ? { kind: 'events', events: [result.event] } : { kind: 'unusable', reason: result.reason };
    },
  };
}
