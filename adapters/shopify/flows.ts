// Shopify's flows as routes of its module, under /shopify: the App URL (and the merchant page's views under it,
// which App Bridge keeps in the admin's address), the bounce page, install by OAuth; and the merchant page's
// door. Only with the app (client id and secret); its page's sessions are keyed from the client secret.
import { MERCHANT_VIEW_SEGMENT, type PlatformParts, type PlatformWiring } from '../../src/core/platform-module.ts';
import type { AllowedShops } from './allowed-shops.ts';
import { shopifyAppUrl } from './app-url.ts';
import { bounceRoute } from './bounce.ts';
import { shopifyInstall } from './install.ts';
import { shopifyInstalled } from './installed.ts';
import type { ShopifyParts } from './parts.ts';
import { shopifyPageDoor } from './door.ts';
import { forgetScopes } from './scopes.ts';

export function shopifyFlows(
  {
    platform,
    shopify,
    allowed,
    apiKey,
    secrets,
  }: {
    /** The module's name, in the shop's record. */
    platform: string;
    shopify: ShopifyParts | undefined;
    allowed: AllowedShops;
    apiKey: string | undefined;
    /** The client secret, then the previous one during a rotation. */
    secrets: readonly string[];
  },
  wiring: Pick<PlatformWiring, 'store' | 'logger' | 'subscriptionsChanged'>,
): Pick<PlatformParts, 'routes' | 'door'> {
  const app = shopify?.app;
  const signatures = shopify?.signatures;
  if (!shopify || !app || !signatures || !apiKey || secrets.length === 0) return {};
  const { store, logger } = wiring;
  const parts = {
    shopify,
    app,
    allowed,
    signatures,
    // A new install may grant other scopes than the ones remembered.
    installed: shopifyInstalled({
      platform,
      store,
      logger,
      subscriptionsChanged: wiring.subscriptionsChanged,
      forgetScopes: (shop) => forgetScopes(shopify.apis.for(shop)),
    }),
    embedded: shopify.embedded,
    apiKey,
    usedLinks: store,
    logger,
  };
  const install = shopifyInstall(parts);
  const appUrl = shopify.appUrl ?? '';
  const handle = shopifyAppUrl({ ...parts, install, appUrl });
  return {
    routes: [
      { method: 'GET', path: '/app', handle },
      { method: 'GET', path: `/app${MERCHANT_VIEW_SEGMENT}`, handle },
      ...(appUrl
        ? [bounceRoute({ apiKey, appUrl, sanitizeShop: (shop: string) => app.utils.sanitizeShop(shop) ?? undefined })]
        : []),
      ...install.routes,
    ],
    door: { ...shopifyPageDoor(parts), pageKeys: secrets },
  };
}
