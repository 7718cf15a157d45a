// The operator's installs from the dashboard (/admin/api/shopify/shops and /installs): the shops the app has
// access to, each described, and an install started by the signed-in operator, which makes the shop one the
// bridge serves before the browser goes to /shopify/auth (install.ts).
import { z } from 'zod';
import type { PlatformInstalls } from '../../src/core/platform-module.ts';
import type { Logger } from '../../src/logger.ts';
import type { AllowedShops } from './allowed-shops.ts';
import type { ShopifyParts } from './parts.ts';

/** How the bridge came by a shop's access, in the operator's words. */
const ACCESS_WORDS: Readonly<Record<string, string>> = {
  client_credentials: 'own store (client credentials)',
  oauth_expiring: 'installed (expiring token)',
  token_exchange: 'installed by Shopify (expiring token)',
  oauth: 'installed',
  legacy: 'custom app token',
  none: 'none',
};

export function shopifyInstalls(shopify: ShopifyParts, allowed: AllowedShops, logger: Logger): PlatformInstalls {
  const canInstall = () => shopify.access.canInstall && Boolean(shopify.appUrl);
  const describe = async (shop: string) => {
    const described = await shopify.access.describe(shop);
    return { ...described, access: ACCESS_WORDS[described.mode] ?? described.mode };
  };
  return {
    canInstall,
    cannotInstall: 'installing needs SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL (or PUBLIC_URL)',
    shops: async () =>
      Promise.all(
        (await shopify.access.shops()).map(async (shop) => {
          const described = await describe(shop);
          const served = (await allowed.check(shop)).allowed;
          return {
            ...described,
            allowed: served,
            ...(served ? {} : { access: `${described.access}; not served (add it to SHOPIFY_SHOPS)` }),
          };
        }),
      ),
    describe,
    example: 'your-store.myshopify.com',
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
