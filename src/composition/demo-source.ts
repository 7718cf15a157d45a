// The demo shops' "API", for resync on a first run: a demo shop has no platform to ask, so it answers from what
// it sent this run, as a platform answers from what it holds. Each order as it stands now is its last delivery,
// read by the platform's own adapter (verified, described, translated) exactly as the webhook route and intake
// read it: a resync of the demo finds every order it already has unchanged, under the same delivery ids.
import type { PlatformAdapter } from '../core/platform-adapter.ts';
import { storedDelivery } from '../core/platform-adapter.ts';
import type { OrderEvent } from '../core/order-event.ts';
import type { OrderSource, OrderWindow } from '../core/order-source.ts';
import type { DemoPlayer, SentOrder } from './demo-store.ts';

export interface DemoSourceParts {
  player: DemoPlayer;
  adapter: PlatformAdapter<unknown>;
  /** The orders the demo sent to this shop, oldest first. */
  sent(): readonly SentOrder[];
}

/** An order as its last delivery says it stands: the events the platform's adapter makes of it. */
async function eventsOf(adapter: PlatformAdapter<unknown>, order: SentOrder): Promise<OrderEvent[]> {
  const last = order.deliveries.at(-1);
  if (!last) return [];
  const body = Buffer.from(last.body);
  const receivedAt = new Date(last.at);
  const { demo, secret } = order.player;
  // Read now, as the route would read it: a signature that ages is made again for the same message.
  const headers = demo.resigned?.(last, secret, new Date()) ?? last.headers;
  const verified = await adapter.verify({ body, headers, receivedAt });
  if (!verified.ok)
    throw new Error(`the demo's order ${order.number} does not read as its platform's: ${verified.reason}`);
  const info = adapter.describe(verified.delivery);
  const kept = adapter.keptBody?.(info.topic, body);
  const translated = await adapter.translate(storedDelivery(adapter.platform, info, body, receivedAt, kept));
  // Under the key the webhook route took the delivery by: an order the ledger has as it stands is a duplicate.
  return translated.kind === 'events' ? translated.events.map((event) => ({ ...event, deliveryId: info.key })) : [];
}

export function demoSource({ player, adapter, sent }: DemoSourceParts): OrderSource {
  const { platform, shop } = player;
  const ofShop = (asked: string) => (asked === shop ? sent() : []);
  return {
    platform,
    shops: async () => [shop],
    // The demo shop's deliveries are the bridge's own: no subscriptions to read.
    checkSubscriptions: null,
    fetchOrders(asked: string, { since, until }: OrderWindow) {
      // Modified in the window: the time of its last delivery.
      const inWindow = ofShop(asked).filter(({ deliveries }) => {
        const at = Date.parse(deliveries.at(-1)?.at ?? '');
        return at >= since.getTime() && (until === undefined || at <= until.getTime());
      });
      const orders = async function* () {
        for (const order of inWindow) yield* await eventsOf(adapter, order);
      };
      return Object.assign(orders(), { expected: inWindow.length });
    },
    async fetchOrder(asked: string, orderId: string) {
      const order = ofShop(asked).find(({ id }) => String(id) === orderId);
      return order ? (await eventsOf(adapter, order)).at(-1) : undefined;
    },
  };
}
