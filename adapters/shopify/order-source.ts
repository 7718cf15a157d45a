// Shopify as the core reads it for resync and reconciliation: the shops the
// bridge serves (nothing of another shop is read, so nothing of it earns),
// large windows through a bulk operation, and at each check the shop's
// webhook subscriptions put right, not only reported (Shopify deletes one
// whose deliveries keep failing).
import type { OrderSource, SubscriptionHealth } from '../../src/core/order-source.ts';
import type { ShopifyAccess } from './access.ts';
import type { ShopifyAdminApis } from './admin-api.ts';
import type { AllowedShops } from './allowed-shops.ts';
import { shopifyOrdersInWindow } from './bulk-orders.ts';
import type { DeclaredDeliveries } from './declared-deliveries.ts';
import { fetchShopifyOrder } from './graphql-orders.ts';
import { syncShopifySubscriptions, type SubscriptionSource } from './subscriptions.ts';

export interface ShopifySourceParts {
  access: ShopifyAccess;
  apis: ShopifyAdminApis;
  /** Where subscriptions point; undefined without SHOPIFY_APP_URL. */
  appUrl: string | undefined;
  declared: DeclaredDeliveries;
}

export interface ShopifySourceOptions {
  /** Windows of at least this many orders are read through a bulk operation (SHOPIFY_BULK_THRESHOLD). */
  bulkThreshold: number;
  /** One bulk operation per shop at a time, across the bridges on one ledger. */
  exclusive: <T>(name: string, fn: () => Promise<T>) => Promise<{ ran: true; value: T } | { ran: false }>;
}

export function shopifyOrderSource(
  shopify: ShopifySourceParts,
  allowed: AllowedShops,
  options: ShopifySourceOptions,
): OrderSource {
  return {
    platform: 'shopify',
    shops: async () => allowed.filter(await shopify.access.shops()),
    fetchOrders: (shop, window) =>
      shopifyOrdersInWindow(shopify.apis.for(shop), window, {
        threshold: options.bulkThreshold,
        exclusive: options.exclusive,
      }),
    fetchOrder: (shop, orderId) => fetchShopifyOrder(shopify.apis.for(shop), orderId, 'shopify-resync'),
    checkSubscriptions: (shop) => shopifySubscriptionHealth(shopify, shop),
  };
}

/** A legacy custom app (a fixed token made in the shop's admin) has no app configuration to declare topics in: its shop subscribes them. */
export async function subscriptionSource(
  shopify: Pick<ShopifySourceParts, 'access'>,
  shop: string,
): Promise<SubscriptionSource> {
  return (await shopify.access.describe(shop)).mode === 'legacy' ? 'shop' : 'app';
}

async function shopifySubscriptionHealth(shopify: ShopifySourceParts, shop: string): Promise<SubscriptionHealth> {
  const checkedAt = new Date().toISOString();
  if (!shopify.appUrl) {
    return {
      platform: 'shopify',
      shop,
      checkedAt,
      healthy: 0,
      repaired: [],
      problems: [],
      error: 'SHOPIFY_APP_URL is not set, so the bridge cannot tell Shopify where to send webhooks',
    };
  }
  const result = await syncShopifySubscriptions(
    shopify.apis.for(shop),
    shopify.appUrl,
    await subscriptionSource(shopify, shop),
    await shopify.declared.proven(shop),
  );
  return {
    platform: 'shopify',
    shop,
    checkedAt,
    // Seen delivered through the app's configuration, or through a subscription of ours on the shop.
    healthy: result.alreadyThere.length + result.declared.length,
    repaired: [
      ...result.created.map((topic) => `${topic}: created`),
      ...result.moved.map((topic) => `${topic}: moved to ${result.callbackUrl}`),
      ...result.removed.map((topic) => `${topic}: duplicate removed`),
    ],
    problems: result.problems,
    scopes: result.scopes,
    ...(result.unconfirmed.length > 0 ? { unconfirmed: result.unconfirmed } : {}),
  };
}
