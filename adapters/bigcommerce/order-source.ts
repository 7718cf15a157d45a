// BigCommerce as the core reads it for resync and reconciliation: every store
// the bridge has a token for and is allowed to serve (allowed-shops.ts:
// nothing of another store is read, so nothing of it earns), and at each
// check the store's hooks kept alive (subscriptions.ts).
import type { OrderSource, OrderWindow, SubscriptionHealth } from '../../src/core/order-source.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { AllowedStores } from './allowed-shops.ts';
import { BC_WEBHOOK_PATH, keepBigCommerceHooks } from './subscriptions.ts';
import type { BigCommerceStore, BigCommerceStores } from './stores.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

export function bigCommerceOrderSource(
  stores: BigCommerceStores,
  publicUrl: string | undefined,
  allowed: AllowedStores,
): OrderSource {
  const served = async (shop: string): Promise<BigCommerceStore> => {
    const allowance = await allowed.check(shop);
    if (!allowance.allowed) throw new Error(allowance.reason);
    const store = await stores.get(shop);
    if (!store) throw new Error(`loyalty-bridge has no access token for the BigCommerce store ${shop}`);
    return store;
  };
  return {
    platform: 'bigcommerce',
    shops: async () => allowed.filter((await stores.list()).map((store) => store.shop)),
    async *fetchOrders(shop: string, window: OrderWindow): AsyncGenerator<OrderEvent> {
      yield* (await served(shop)).api.orders(window);
    },
    fetchOrder: async (shop, orderId) => (await served(shop)).api.orderEvent(orderId),
    async checkSubscriptions(shop: string): Promise<SubscriptionHealth> {
      const store = await served(shop);
      const result = await keepBigCommerceHooks(store.api, {
        destination: publicUrl ? `${trimTrailing(publicUrl, '/')}${BC_WEBHOOK_PATH}` : undefined,
        proof: store.proof,
      });
      return { platform: 'bigcommerce', shop, checkedAt: new Date().toISOString(), ...result };
    },
  };
}
