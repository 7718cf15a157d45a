// TinyShop's API, as resync and reconciliation read it: GET /orders?updated_since=…&until=… and
// GET /orders/<id>, with the store's token as a bearer. Through the bridge's outbound policy: no redirect.
import { RequestError } from 'got';
import { orderEventSchema } from '../../../src/core/order-event.ts';
import type { OrderSource } from '../../../src/core/order-source.ts';
import { PlatformUnavailableError } from '../../../src/core/platform-adapter.ts';
import { outboundGot } from '../../../src/net/outbound.ts';
import { isTinyOrder, orderEvent, PLATFORM } from './orders.ts';

export function tinyShopOrderSource(apiUrl: string, token: string, store: string): OrderSource {
  const api = outboundGot(
    { userAddress: false },
    {
      prefixUrl: apiUrl,
      headers: { authorization: `Bearer ${token}` },
      retry: { limit: 0 },
      timeout: { request: 10_000 },
    },
  );
  const read = async (path: string, searchParams?: Record<string, string>) => {
    try {
      return await api.get(path, { searchParams }).json<unknown>();
    } catch (error) {
      if (error instanceof RequestError && error.response?.statusCode === 404) return undefined;
      throw new PlatformUnavailableError(`TinyShop did not answer: ${(error as Error).message}`);
    }
  };
  const event = (order: unknown) =>
    isTinyOrder(order) ? orderEventSchema.parse(orderEvent(store, order, `resync:${order.updated_at}`)) : undefined;
  return {
    platform: PLATFORM,
    shops: async () => [store],
    checkSubscriptions: null,
    async *fetchOrders(shop, { since, until }) {
      if (shop !== store) return;
      const page = (await read('orders', {
        updated_since: since.toISOString(),
        ...(until ? { until: until.toISOString() } : {}),
      })) as { orders?: unknown[] } | undefined;
      for (const order of page?.orders ?? []) {
        const each = event(order);
        if (each) yield each;
      }
    },
    async fetchOrder(shop, orderId) {
      return shop === store ? event(await read(`orders/${orderId}`)) : undefined;
    },
  };
}
