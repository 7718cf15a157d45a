// TinyShop's webhooks: the body signed with HMAC-SHA256 of the store's webhook secret, in base64, in
// x-tinyshop-hmac; the topic and the delivery's id in headers; the store in the signed body. The rest of what an
// adapter must do is the shared builder's (adapters/shared/signed-webhooks.ts).
import { signedWebhookAdapter } from '../../../adapters/shared/signed-webhooks.ts';
import type { PlatformAdapter } from '../../../src/core/platform-adapter.ts';
import { isTinyOrder, orderEvent, PLATFORM, type TinyOrder } from './orders.ts';

export const SIGNATURE = 'x-tinyshop-hmac';
const TOPIC = 'x-tinyshop-topic';
const DELIVERY = 'x-tinyshop-delivery';

interface TinyDelivery {
  store: string;
  topic: string;
  id: string;
  order: TinyOrder | undefined;
}

export function tinyShopAdapter(webhookSecret: string): PlatformAdapter<TinyDelivery> {
  return signedWebhookAdapter<TinyDelivery>({
    platform: PLATFORM,
    signature: { header: SIGNATURE, encoding: 'base64' },
    secrets: async () => [webhookSecret],
    read: (body, headers) => ({
      store: typeof body.store === 'string' ? body.store : '',
      topic: headers[TOPIC] ?? '',
      id: headers[DELIVERY] ?? '',
      order: isTinyOrder(body.order) ? body.order : undefined,
    }),
    describe: ({ store, topic, id }) => ({ topic, shop: store, id }),
    async translate({ order }, stored) {
      if (!isTinyOrder(order)) return { kind: 'unusable', reason: 'the delivery carries no order' };
      return { kind: 'events', events: [orderEvent(stored.shop, order, `${stored.topic}:${order.updated_at}`)] };
    },
    kept: null,
    personal: {
      personal: new Set(['customer']),
      emailKeys: new Set(['email']),
      phoneKeys: new Set(['phone']),
      orderIdKeys: [],
    },
  });
}
