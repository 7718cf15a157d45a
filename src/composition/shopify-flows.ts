// Shopify's flows wired by hand until they are routes of its module: the App URL and install by OAuth under
// /shopify, and the admin API's door for a shop's own page (src/http/shopify-surface.ts).
import { shopifySurface, type ShopifySurface } from '../http/shopify-surface.ts';
import type { FlowContext } from './flow-context.ts';

export function shopifyFlows({
  config,
  platforms,
  store,
  reconciler,
  logger,
  adminToken,
  shopRoutes,
}: FlowContext): ShopifySurface {
  return shopifySurface({
    platforms,
    store,
    reconciler,
    logger,
    adminToken,
    apiKey: config.SHOPIFY_API_KEY,
    secrets: [config.SHOPIFY_API_SECRET, config.SHOPIFY_API_SECRET_PREVIOUS].filter((secret): secret is string =>
      Boolean(secret),
    ),
    shopRoutes,
  });
}
