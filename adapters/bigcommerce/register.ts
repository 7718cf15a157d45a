// The CLI's register for BigCommerce: a store's hooks put right (subscriptions.ts), each carrying the
// header secret the bridge checks.
import type { Subscriptions } from '../../src/core/platform-module.ts';
import type { BigCommerceStores } from './stores.ts';
import { registerBigCommerceHooks } from './subscriptions.ts';

export const bigCommerceSubscriptions = (
  stores: BigCommerceStores,
  publicUrl: string | undefined,
  headerSecret: string | undefined,
): Subscriptions => ({
  async register(shop, say) {
    const storeHash = shop ?? stores.environmentShop;
    const api = storeHash ? (await stores.get(storeHash))?.api : undefined;
    if (!api)
      return {
        refused: shop
          ? `the bridge has no access token for store ${shop}`
          : 'set BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN (with the Information & settings scope)',
      };
    if (!publicUrl)
      return { refused: 'set PUBLIC_URL to the https address BigCommerce can reach this bridge at (port 443)' };
    if (!headerSecret)
      return {
        refused:
          'set BIGCOMMERCE_WEBHOOK_SECRET (24 characters or more): the hooks carry it in a header, and the bridge checks it',
      };
    const result = await registerBigCommerceHooks(api, publicUrl, headerSecret);
    say(`Hooks for store ${api.shop} go to ${result.destination}`);
    for (const scope of result.created) say(`  created      ${scope}`);
    for (const scope of result.reactivated) say(`  reactivated  ${scope}`);
    for (const scope of result.alreadyThere) say(`  present      ${scope}`);
    return { failed: false };
  },
});
