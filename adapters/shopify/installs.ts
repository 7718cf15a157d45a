// The operator's installs from the dashboard (/admin/api/shopify/shops and /installs): the shops the app has
// access to, each described, and an install started by the signed-in operator, which makes the shop one the
// bridge serves before the browser goes to /shopify/auth (install.ts).
import { z } from 'zod';
import type { PlatformInstalls } from '../../src/core/platform-module.ts';
import type { Logger } from '../../src/logger.ts';
import type { AllowedShops } from './allowed-shops.ts';
import type { ShopifyParts } from './parts.ts';

export function shopifyInstalls(shopify: ShopifyParts, allowed: AllowedShops, logger: Logger): PlatformInstalls {
  const canInstall = () => shopify.access.canInstall && Boolean(shopify.appUrl);
  return {
    canInstall,
    cannotInstall: 'installing needs SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL (or PUBLIC_URL)',
    shops: async () =>
      Promise.all(
        (await shopify.access.shops()).map(async (shop) => ({
          ...(await shopify.access.describe(shop)),
          allowed: (await allowed.check(shop)).allowed,
        })),
      ),
    describe: (shop) => shopify.access.describe(shop),
    input: z.strictObject({
      shop: z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, { error: 'must look like your-store.myshopify.com' }),
    }),
    async start(shop, by) {
      await allowed.allowByOperator(shop, by);
      logger.info({ shop, by }, 'the operator started a Shopify install: the shop is allowed');
      return { next: `/shopify/auth?shop=${encodeURIComponent(shop)}` };
    },
  };
}
