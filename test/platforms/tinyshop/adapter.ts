// TinyShop's webhooks: the body signed with HMAC-SHA256 of the store's webhook secret, in base64, in
// x-tinyshop-hmac; the topic and the delivery's id in headers; the store in the signed body.
import { hmacBase64Matches } from '../../../adapters/shared/signature.ts';
import { redactBody } from '../../../adapters/shared/redact.ts';
import { deliveryBody } from '../../../src/core/delivery.ts';
import { orderEventSchema } from '../../../src/core/order-event.ts';
import { shopDeliveryKeys, type PlatformAdapter, type RawDelivery } from '../../../src/core/platform-adapter.ts';
import { isTinyOrder, orderEvent, PLATFORM, type TinyOrder } from './orders.ts';

export const SIGNATURE = 'x-tinyshop-hmac';
const TOPIC = 'x-tinyshop-topic';
const DELIVERY = 'x-tinyshop-delivery';
const keys = shopDeliveryKeys(PLATFORM);

interface TinyDelivery {
  store: string;
  topic: string;
  id: string;
  order: TinyOrder | undefined;
}

const header = (headers: RawDelivery['headers'], name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export function tinyShopAdapter(webhookSecret: string): PlatformAdapter<TinyDelivery> {
  return {
    platform: PLATFORM,
    orderIdsAreGlobal: false,
    actsOnce: {},
    keptBody: null,
    preflight: (headers) => (header(headers, SIGNATURE) ? { ok: true } : { ok: false, reason: 'no signature' }),
    async verify({ body, headers }) {
      if (!hmacBase64Matches(body, webhookSecret, header(headers, SIGNATURE)))
        return { ok: false, status: 401, reason: 'the signature does not match' };
      const topic = header(headers, TOPIC);
      const id = header(headers, DELIVERY);
      let parsed: { store?: unknown; order?: unknown };
      try {
        parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
      } catch {
        return { ok: false, status: 400, reason: 'the body is not JSON' };
      }
      if (!topic || !id || typeof parsed.store !== 'string')
        return { ok: false, status: 400, reason: 'a delivery names its topic, id and store' };
      return {
        ok: true,
        delivery: { store: parsed.store, topic, id, order: isTinyOrder(parsed.order) ? parsed.order : undefined },
      };
    },
    describe: ({ store, topic, id }) => ({ key: keys.key(store, id), topic, shop: store }),
    async translate(stored) {
      const { order } = JSON.parse(deliveryBody(stored).toString('utf8')) as { order?: unknown };
      if (!isTinyOrder(order)) return { kind: 'unusable', reason: 'the delivery carries no order' };
      const event = orderEventSchema.parse(orderEvent(stored.shop, order, `${stored.topic}:${order.updated_at}`));
      return { kind: 'events', events: [event] };
    },
    redact: (stored, match) =>
      redactBody(stored, match, {
        personal: new Set(['customer']),
        emailKeys: new Set(['email']),
        phoneKeys: new Set(['phone']),
        orderIdKeys: [],
      }),
    shopKeyPrefix: keys.prefix,
  };
}
