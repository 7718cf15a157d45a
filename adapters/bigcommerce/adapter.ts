// The BigCommerce adapter. Payloads are thin ({scope, store_id, data: {type,
// id}, hash, ...}): the order itself is read from the V2 API.
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { PlatformAdapter, Translation } from '../adapter.ts';
import type { BigCommerceApi } from './rest-api.ts';
import { bigCommerceDelivery, bigCommerceVerifier, type BigCommerceDelivery } from './verify.ts';

const ORDER_SCOPES = new Set(['store/order/created', 'store/order/updated', 'store/order/statusupdated', 'store/order/refund/created']);

export interface BigCommerceAdapterOptions {
  clientSecret: string;
  api?: BigCommerceApi;
}

export interface BigCommerceAdapter extends PlatformAdapter<BigCommerceDelivery> {
  fetchOrders?: (window: { since: Date; until?: Date }) => AsyncIterable<OrderEvent>;
}

export function createBigCommerceAdapter({ clientSecret, api }: BigCommerceAdapterOptions): BigCommerceAdapter {
  return {
    platform: 'bigcommerce',
    verify: bigCommerceVerifier(clientSecret),
    ...(api ? { fetchOrders: (window: { since: Date; until?: Date }) => api.orders(window) } : {}),
    describe: (delivery) => ({
      key: `bigcommerce:${delivery.webhookId}`,
      // A retry can come with a new webhook-id but the same payload hash.
      aliases: delivery.hash ? [`bigcommerce:hash:${delivery.hash}`] : [],
      topic: delivery.scope,
      shop: api?.shop ?? delivery.storeId,
    }),
    restore: (stored) => bigCommerceDelivery(stored.key.replace(/^bigcommerce:/, ''), stored.body, stored.receivedAt),
    async toEvents(delivery): Promise<Translation> {
      if (!delivery.payload) return { kind: 'unusable', reason: 'the body is not valid JSON' };
      const scope = delivery.scope.toLowerCase();
      if (scope === 'store/order/archived') return { kind: 'recorded', reason: 'an archived order keeps its points until it is cancelled or refunded' };
      if (!ORDER_SCOPES.has(scope)) return { kind: 'ignored', reason: `scope ${delivery.scope} is not one loyalty-bridge uses` };
      if (delivery.orderId === undefined) return { kind: 'unusable', reason: 'the payload names no order id' };
      if (!api) return { kind: 'unusable', reason: 'BigCommerce payloads carry only the order id: set BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN so the order can be read' };
      const event = await api.orderEvent(delivery.orderId, `bigcommerce:${delivery.webhookId}`, delivery.receivedAt);
      if (!event) return { kind: 'unusable', reason: `order ${delivery.orderId} was not found in the store` };
      return { kind: 'events', events: [event] };
    },
  };
}
