// WooCommerce as the core reads it for resync and reconciliation: every store
// the bridge has a key for, each with its own key, and at each check the
// store's webhooks kept alive (subscriptions.ts).
import type { OrderSource, OrderWindow, SubscriptionHealth } from '../../src/core/order-source.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { fetchWooOrder, fetchWooOrders, type WooRestClient } from './admin-api.ts';
import type { WooStores } from './stores.ts';
import { keepWooWebhooks, WOO_WEBHOOK_PATH } from './subscriptions.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

export function wooOrderSource(stores: WooStores, publicUrl: string | undefined): OrderSource {
  const rest = async (shop: string): Promise<WooRestClient> => {
    const client = (await stores.get(shop))?.rest;
    if (!client) throw new Error(`loyalty-bridge has no key for the WooCommerce store ${shop}`);
    return client;
  };
  return {
    platform: 'woocommerce',
    shops: async () => (await stores.list()).filter((store) => store.rest).map((store) => store.shop),
    async *fetchOrders(shop: string, window: OrderWindow): AsyncGenerator<OrderEvent> {
      yield* fetchWooOrders(await rest(shop), window);
    },
    fetchOrder: async (shop, orderId) => fetchWooOrder(await rest(shop), orderId),
    async checkSubscriptions(shop: string): Promise<SubscriptionHealth> {
      const store = await stores.get(shop);
      if (!store?.rest) throw new Error(`loyalty-bridge has no key for the WooCommerce store ${shop}`);
      const result = await keepWooWebhooks(store.rest, {
        deliveryUrl: publicUrl ? `${trimTrailing(publicUrl, '/')}${WOO_WEBHOOK_PATH}` : undefined,
        secret: store.webhookSecret,
        canWrite: store.keyPermissions === undefined ? undefined : store.keyPermissions !== 'read',
      });
      return { platform: 'woocommerce', shop, checkedAt: new Date().toISOString(), ...result };
    },
  };
}
