// BigCommerce as the core reads it for resync and reconciliation: every store
// the bridge has a token for, and at each check the store's hooks kept alive
// (hooks.ts).
import type { OrderSource, OrderWindow, SubscriptionHealth } from '../../src/core/order-source.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { BC_WEBHOOK_PATH, keepBigCommerceHooks } from './hooks.ts';
import type { BigCommerceApi } from './rest-api.ts';
import type { BigCommerceStores } from './stores.ts';

export function bigCommerceOrderSource(stores: BigCommerceStores, publicUrl: string | undefined): OrderSource {
  const api = async (shop: string): Promise<BigCommerceApi> => {
    const found = (await stores.get(shop))?.api;
    if (!found) throw new Error(`loyalty-bridge has no access token for the BigCommerce store ${shop}`);
    return found;
  };
  return {
    platform: 'bigcommerce',
    shops: async () => (await stores.list()).map((store) => store.shop),
    async *fetchOrders(shop: string, window: OrderWindow): AsyncGenerator<OrderEvent> {
      yield* (await api(shop)).orders(window);
    },
    fetchOrder: async (shop, orderId) => (await api(shop)).orderEvent(orderId),
    async checkSubscriptions(shop: string): Promise<SubscriptionHealth> {
      const store = await stores.get(shop);
      if (!store) throw new Error(`loyalty-bridge has no access token for the BigCommerce store ${shop}`);
      const result = await keepBigCommerceHooks(store.api, {
        destination: publicUrl ? `${publicUrl.replace(/\/+$/, '')}${BC_WEBHOOK_PATH}` : undefined,
        headerSecret: store.headerSecret,
      });
      return { platform: 'bigcommerce', shop, checkedAt: new Date().toISOString(), ...result };
    },
  };
}
