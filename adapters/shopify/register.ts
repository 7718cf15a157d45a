// The CLI's register for Shopify: each shop's webhook subscriptions put right (subscriptions.ts), as the
// running bridge does by itself at start, after each install and on each reconciliation.
import type { Subscriptions } from '../../src/core/platform-module.ts';
import type { ShopifyAccess } from './access.ts';
import type { ShopifyAdminApis } from './admin-api.ts';
import type { DeclaredDeliveries } from './declared-deliveries.ts';
import { subscriptionSource } from './order-source.ts';
import { syncShopifySubscriptions, UNCONFIRMED } from './subscriptions.ts';

export const shopifySubscriptions = (shopify: {
  access: ShopifyAccess;
  apis: ShopifyAdminApis;
  appUrl: string | undefined;
  declared: DeclaredDeliveries;
}): Subscriptions => ({
  async register(shop, say) {
    const { appUrl } = shopify;
    if (!appUrl)
      return { refused: 'set SHOPIFY_APP_URL (or PUBLIC_URL) to the address Shopify can reach this bridge at' };
    const shops = shop ? [shop] : await shopify.access.shops();
    if (shops.length === 0)
      return { refused: 'no shop to register: set SHOPIFY_SHOP, or install the app on a shop first' };
    let failed = false;
    for (const each of shops) {
      const result = await syncShopifySubscriptions(
        shopify.apis.for(each),
        appUrl,
        await subscriptionSource(shopify, each),
        await shopify.declared.proven(each),
      );
      say(
        `Webhooks for ${each} go to ${result.callbackUrl} (API version ${result.apiVersion}; scopes ${result.scopes.join(', ') || 'none'})`,
      );
      if (result.declared.length > 0)
        say(`  delivered through the app's configuration (shopify.app.toml): ${result.declared.join(', ')}`);
      if (result.unconfirmed.length > 0) say(`  ${UNCONFIRMED}: ${result.unconfirmed.join(', ')}`);
      for (const topic of result.created) say(`  created   ${topic}`);
      for (const topic of result.moved) say(`  moved     ${topic}`);
      for (const topic of result.removed) say(`  removed   ${topic} (a duplicate)`);
      for (const topic of result.alreadyThere) say(`  present   ${topic}`);
      for (const problem of result.problems) say(`  !! ${problem.topic}: ${problem.detail}. ${problem.fix}.`);
      if (result.problems.length > 0) failed = true;
    }
    return { failed };
  },
});
