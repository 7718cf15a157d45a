// Which platform adapters the configuration enables, built once for the
// bridge and the CLI alike.
import { BigCommerceApi } from '../adapters/bigcommerce/rest-api.ts';
import { createBigCommerceAdapter, type BigCommerceAdapter } from '../adapters/bigcommerce/adapter.ts';
import { ShopifyAdminApi } from '../adapters/shopify/admin-api.ts';
import { createShopifyAdapter, type ShopifyAdapter } from '../adapters/shopify/adapter.ts';
import { fetchShopifyOrder, fetchShopifyOrders } from '../adapters/shopify/graphql-orders.ts';
import { createWooAdapter, type WooAdapter } from '../adapters/woocommerce/adapter.ts';
import { fetchWooOrder, fetchWooOrders, type WooRestOptions } from '../adapters/woocommerce/rest-api.ts';
import type { Config } from './config.ts';
import type { ReconcileSource } from './core/reconciler.ts';

export const PLATFORMS = ['shopify', 'woocommerce', 'bigcommerce'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface PlatformAdapters {
  shopify?: ShopifyAdapter;
  woocommerce?: WooAdapter;
  bigcommerce?: BigCommerceAdapter;
}

export function shopifyAdminApi(config: Config): ShopifyAdminApi | undefined {
  if (!config.SHOPIFY_SHOP || !config.SHOPIFY_ADMIN_TOKEN) return undefined;
  return new ShopifyAdminApi({ shop: config.SHOPIFY_SHOP, accessToken: config.SHOPIFY_ADMIN_TOKEN });
}

export function wooRestOptions(config: Config): WooRestOptions | undefined {
  if (!config.WOOCOMMERCE_URL || !config.WOOCOMMERCE_CONSUMER_KEY || !config.WOOCOMMERCE_CONSUMER_SECRET) return undefined;
  return { url: config.WOOCOMMERCE_URL, consumerKey: config.WOOCOMMERCE_CONSUMER_KEY, consumerSecret: config.WOOCOMMERCE_CONSUMER_SECRET };
}

export function bigCommerceApi(config: Config): BigCommerceApi | undefined {
  if (!config.BIGCOMMERCE_STORE_HASH || !config.BIGCOMMERCE_ACCESS_TOKEN) return undefined;
  return new BigCommerceApi({ storeHash: config.BIGCOMMERCE_STORE_HASH, accessToken: config.BIGCOMMERCE_ACCESS_TOKEN });
}

/** Webhook adapters, for the platforms whose webhook secret is set. */
export function platformAdapters(config: Config): PlatformAdapters {
  const admin = shopifyAdminApi(config);
  const rest = wooRestOptions(config);
  const api = bigCommerceApi(config);
  return {
    ...(config.SHOPIFY_API_SECRET ? { shopify: createShopifyAdapter({ apiSecret: config.SHOPIFY_API_SECRET, ...(admin ? { admin } : {}) }) } : {}),
    ...(config.WOOCOMMERCE_WEBHOOK_SECRET
      ? { woocommerce: createWooAdapter({ secret: config.WOOCOMMERCE_WEBHOOK_SECRET, ...(config.WOOCOMMERCE_URL ? { url: config.WOOCOMMERCE_URL } : {}), ...(rest ? { rest } : {}) }) }
      : {}),
    ...(config.BIGCOMMERCE_CLIENT_SECRET ? { bigcommerce: createBigCommerceAdapter({ clientSecret: config.BIGCOMMERCE_CLIENT_SECRET, ...(api ? { api } : {}) }) } : {}),
  };
}

/** Order sources for resync and reconciliation: every platform with API access, webhook secret or not. */
export function orderSources(config: Config): ReconcileSource[] {
  const sources: ReconcileSource[] = [];
  const admin = shopifyAdminApi(config);
  if (admin) {
    sources.push({ platform: 'shopify', fetchOrders: (window) => fetchShopifyOrders(admin, window), fetchOrder: (id) => fetchShopifyOrder(admin, id, 'shopify-resync') });
  }
  const rest = wooRestOptions(config);
  if (rest) sources.push({ platform: 'woocommerce', fetchOrders: (window) => fetchWooOrders(rest, window), fetchOrder: (id) => fetchWooOrder(rest, id) });
  const api = bigCommerceApi(config);
  if (api) sources.push({ platform: 'bigcommerce', fetchOrders: (window) => api.orders(window), fetchOrder: (id) => api.orderEvent(id) });
  return sources;
}
