// The BigCommerce adapter. A delivery carries only the order id, so the order is read from the V2 API
// after the answer, within the store's rate limit, and asked for again with backoff while BigCommerce
// does not answer. The payload hash is the same for every update of one order, so it counts as a dedupe
// key only together with the scope and created_at (docs/bigcommerce.md).
import { deliveryBody, type StoredDelivery } from '../../src/core/delivery.ts';
import { PlatformUnavailableError, type PlatformAdapter, type Translation } from '../../src/core/platform-adapter.ts';
import { BigCommerceApiError, type BigCommerceApi } from './admin-api.ts';
import {
  bigCommerceDelivery,
  bigCommercePreflight,
  bigCommerceVerifier,
  type BigCommerceDelivery,
  type BigCommerceVerifierOptions,
} from './verify.ts';

export const BIGCOMMERCE_SCOPES = [
  'store/order/created',
  'store/order/updated',
  'store/order/statusUpdated',
  'store/order/refund/created',
  'store/order/archived',
] as const;
const ORDER_SCOPES = new Set([
  'store/order/created',
  'store/order/updated',
  'store/order/statusupdated',
  'store/order/refund/created',
]);

export interface BigCommerceAdapterOptions {
  /** The app's client secret (Standard Webhooks signatures). */
  clientSecret?: string | undefined;
  /** One header secret for every store: BIGCOMMERCE_WEBHOOK_SECRET, on the hooks `register` creates. */
  headerSecret?: string | undefined;
  /** Per store, in place of headerSecret: its header secrets (BigCommerceStores.headerSecretsFor: only the store configured by hand has one). */
  headerSecretsFor?: BigCommerceVerifierOptions['headerSecretsFor'] | undefined;
  /** The API of the store a delivery names, when the bridge can read it. */
  apiFor?: ((storeHash: string) => Promise<BigCommerceApi | undefined>) | undefined;
  /** The configured store, for the shop name when a delivery names none. */
  defaultShop?: string | undefined;
}

export type BigCommerceAdapter = PlatformAdapter<BigCommerceDelivery>;

export function createBigCommerceAdapter({
  clientSecret,
  headerSecret,
  headerSecretsFor,
  apiFor,
  defaultShop,
}: BigCommerceAdapterOptions): BigCommerceAdapter {
  const headerSecrets = headerSecretsFor ?? (async () => (headerSecret ? [headerSecret] : []));
  return {
    platform: 'bigcommerce',
    // Order ids are a store's own: order 6000 of two stores are two orders.
    orderIdsAreGlobal: false,
    actsOnce: {},
    // The ids and states translate reads are read again from the store's API: the body is kept as it came.
    keptBody: null,
    // The payload's key names the store (the webhook id does not): a store's erasure forgets it.
    shopKeyPrefix: (shop) => `bigcommerce:payload:${shop}:`,
    preflight: bigCommercePreflight,
    verify: bigCommerceVerifier({ clientSecrets: clientSecret ? [clientSecret] : [], headerSecretsFor: headerSecrets }),
    describe(delivery) {
      const scope = delivery.scope.toLowerCase();
      const shop = delivery.storeHash ?? defaultShop ?? delivery.storeId;
      // The hash is of {type, id} only: the same for order 6000 of two stores, so the store is part of the key.
      const payloadKey =
        delivery.hash && delivery.createdAt
          ? `bigcommerce:payload:${shop}:${scope}:${delivery.hash}:${delivery.createdAt}`
          : undefined;
      const key = delivery.webhookId
        ? `bigcommerce:${delivery.webhookId}`
        : (payloadKey ?? `bigcommerce:body:${delivery.digest}`);
      return {
        key,
        // A retry can come with a new webhook id but the same payload and time.
        aliases: payloadKey && payloadKey !== key ? [payloadKey] : [],
        topic: delivery.scope,
        shop,
        ...(delivery.createdAt && /^\d+$/.test(delivery.createdAt)
          ? { sentAt: new Date(Number(delivery.createdAt) * 1000).toISOString() }
          : {}),
        ...(delivery.webhookId ? { keep: { 'webhook-id': delivery.webhookId } } : {}),
        ...(ORDER_SCOPES.has(scope) || scope === 'store/order/archived' || !delivery.payload
          ? {}
          : { ignore: `scope ${delivery.scope} is not one loyalty-bridge uses` }),
      };
    },
    async translate(stored: StoredDelivery): Promise<Translation> {
      const delivery = bigCommerceDelivery(deliveryBody(stored), stored.headers['webhook-id']);
      if (!delivery.payload) return { kind: 'unusable', reason: 'the body is not valid JSON' };
      const scope = delivery.scope.toLowerCase();
      if (scope === 'store/order/archived')
        return { kind: 'recorded', reason: 'an archived order keeps its points until it is cancelled or refunded' };
      if (!ORDER_SCOPES.has(scope))
        return { kind: 'ignored', reason: `scope ${delivery.scope} is not one loyalty-bridge uses` };
      if (delivery.orderId === undefined) return { kind: 'unusable', reason: 'the payload names no order id' };
      const api = await apiFor?.(stored.shop);
      if (!api)
        return {
          kind: 'unusable',
          reason: `BigCommerce payloads carry only the order id, and the bridge has no access to store ${stored.shop}: install the app on it, or set BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN, so the order can be read; then retry`,
        };
      const deliveryId = delivery.webhookId
        ? `bigcommerce:${delivery.webhookId}`
        : `bigcommerce:${delivery.hash ?? delivery.digest}:${delivery.createdAt ?? ''}`;
      let event;
      try {
        event = await api.orderEvent(delivery.orderId, deliveryId, new Date(stored.sentAt));
      } catch (error) {
        // Down, slow or rate-limited, and a refused token (until someone fixes it): asked again later.
        if (error instanceof BigCommerceApiError) throw new PlatformUnavailableError(error.message);
        throw error;
      }
      if (!event) return { kind: 'unusable', reason: `BigCommerce says order ${delivery.orderId} does not exist` };
      return { kind: 'events', events: [event] };
    },
    // The payload names an order and nothing about a person.
    redact: (stored, match) => {
      const delivery = bigCommerceDelivery(deliveryBody(stored), undefined);
      return { about: delivery.orderId !== undefined && match.orderIds.includes(delivery.orderId), redacted: stored };
    },
  };
}
