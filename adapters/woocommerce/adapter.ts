// The WooCommerce adapter. WooCommerce never retries a failed delivery and
// builds a body when it sends it, so a delivery is read as the order's state
// at that moment (an order.created can already say completed), and
// reconciliation over the REST API catches what never arrived.
import { wooKeptBody } from './kept-fields.ts';
import { isUtf8 } from 'node:buffer';
import type { PlatformAdapter, Translation } from '../../src/core/platform-adapter.ts';
import { deliveryBody, type StoredDelivery } from '../../src/core/delivery.ts';
import { parseJsonLossless } from '../shared/json.ts';
import { redactBody, type BodyShape } from '../shared/redact.ts';
import { wooIdentity, wooOrderToEvent } from './order-events.ts';
import { wooShopOf } from './shop-identity.ts';
import { WC_HEADER, wooPreflight, wooVerifier, type WooDelivery, type WooSecrets } from './verify.ts';

const ORDER_TOPICS = new Set(['order.created', 'order.updated', 'order.restored']);
const HANDLED_TOPICS = new Set([...ORDER_TOPICS, 'order.deleted']);

/** What in a WooCommerce order is a person. */
const WOO_BODY: BodyShape = {
  personal: new Set([
    'billing',
    'shipping',
    'customer_ip_address',
    'customer_user_agent',
    'customer_note',
    'first_name',
    'last_name',
    'email',
    'phone',
    'address_1',
    'address_2',
    'postcode',
  ]),
  emailKeys: new Set(['email']),
  phoneKeys: new Set(['phone']),
  orderIdKeys: ['id'],
};

export interface WooAdapterOptions {
  /** The secrets of the store a delivery names (WooStores.secretsFor), or one secret for every delivery. */
  secrets: WooSecrets | string;
  /** The configured store's address, for the shop name when a delivery does not say it. */
  url?: string | undefined;
}

export type WooAdapter = PlatformAdapter<WooDelivery>;

/** A shop name as stored, in today's form: deliveries kept by an earlier version carry "www." names. */
const canonical = (shop: string) => {
  try {
    return wooShopOf(shop);
  } catch {
    return shop;
  }
};

export function createWooAdapter({ secrets, url }: WooAdapterOptions): WooAdapter {
  const fallbackShop = url ? canonical(url) : 'woocommerce';
  const secretsFor: WooSecrets = typeof secrets === 'string' ? async () => [secrets] : secrets;
  const parse = (body: Buffer) => (isUtf8(body) ? parseJsonLossless(body.toString('utf8')) : undefined);

  return {
    platform: 'woocommerce',
    // Order ids are a site's own.
    orderIdsAreGlobal: false,
    actsOnce: {},
    preflight: wooPreflight,
    verify: wooVerifier(secretsFor),
    describe(delivery) {
      if (delivery.kind === 'ping')
        return {
          key: `woocommerce:ping:${delivery.webhookId}:${delivery.digest}`,
          topic: 'ping',
          shop: fallbackShop,
          ignore: `WooCommerce ping for webhook ${delivery.webhookId}`,
        };
      // X-WC-Webhook-Delivery-ID has one-second resolution and repeats across orders: the key is what the delivery says.
      const parsed = parse(delivery.body);
      const identity = parsed?.ok ? wooIdentity(parsed.value) : { orderId: undefined, modified: '', status: '' };
      // Webhook ids are per site: two stores can both have webhook 7, so the shop is part of the key.
      const shop = delivery.shop ?? fallbackShop;
      return {
        key: `woocommerce:${shop}:${delivery.webhookId}:${identity.orderId ?? '-'}:${identity.modified}:${identity.status}:${delivery.digest.slice(0, 32)}`,
        topic: delivery.topic,
        shop,
        keep: { [WC_HEADER.webhookId]: delivery.webhookId },
        ...(HANDLED_TOPICS.has(delivery.topic)
          ? {}
          : { ignore: `topic ${delivery.topic} is not one loyalty-bridge uses` }),
      };
    },
    async translate(stored: StoredDelivery): Promise<Translation> {
      if (stored.topic === 'order.deleted') {
        // Trashed, not cancelled: it can be restored, and facts never become untrue.
        return {
          kind: 'recorded',
          reason: 'order.deleted moves an order to the trash; its points stay until it is cancelled or refunded',
        };
      }
      if (!ORDER_TOPICS.has(stored.topic))
        return { kind: 'ignored', reason: `topic ${stored.topic} is not one loyalty-bridge uses` };
      const parsed = parse(deliveryBody(stored));
      if (!parsed) return { kind: 'unusable', reason: 'the body is not valid UTF-8' };
      if (!parsed.ok) return { kind: 'unusable', reason: parsed.reason };
      const { orderId, modified, status } = wooIdentity(parsed.value);
      const deliveryId = `woocommerce:${stored.headers[WC_HEADER.webhookId] ?? ''}:${orderId ?? '-'}:${modified}:${status}`;
      const result = wooOrderToEvent(parsed.value, canonical(stored.shop), deliveryId, new Date(stored.sentAt));
      return result.ok ? { kind: 'events', events: [result.event] } : { kind: 'unusable', reason: result.reason };
    },
    keptBody: (topic, body) => wooKeptBody(topic, body, ORDER_TOPICS),
    redact: (stored, match) => redactBody(stored, match, WOO_BODY),
    // Every order delivery's key names its shop (describe). A store whose name is this one's and a port
    // (example.com:8443) has keys under this prefix too: its dedupe memory goes with it, which only means
    // a delivery it sent before is folded once more, changing nothing.
    shopKeyPrefix: (shop) => `woocommerce:${shop}:`,
  };
}
