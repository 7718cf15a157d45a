// Which platform adapters the configuration enables, built once for the
// bridge and the CLI alike.
import { ShopifyAdminApi } from '../adapters/shopify/admin-api.ts';
import { createShopifyAdapter, type ShopifyAdapter } from '../adapters/shopify/adapter.ts';
import type { Config } from './config.ts';

export interface PlatformAdapters {
  shopify?: ShopifyAdapter;
}

export function shopifyAdminApi(config: Config): ShopifyAdminApi | undefined {
  if (!config.SHOPIFY_SHOP || !config.SHOPIFY_ADMIN_TOKEN) return undefined;
  return new ShopifyAdminApi({ shop: config.SHOPIFY_SHOP, accessToken: config.SHOPIFY_ADMIN_TOKEN });
}

export function platformAdapters(config: Config): PlatformAdapters {
  const admin = shopifyAdminApi(config);
  return {
    ...(config.SHOPIFY_API_SECRET ? { shopify: createShopifyAdapter({ apiSecret: config.SHOPIFY_API_SECRET, ...(admin ? { admin } : {}) }) } : {}),
  };
}
