// What follows once the bridge has got Admin API access to a shop, whichever way (an install by OAuth, or token
// exchange the first time the merchant opens the embedded app): the shop counts as installed again (an earlier
// uninstall is cleared), and its webhook subscriptions are put right in the background, so that the merchant's
// page does not wait for them.
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import { SHOP_KIND } from '../../src/core/store/roles/core-kinds.ts';

export type ShopifyInstalled = (shop: string, how: 'oauth' | 'token_exchange') => Promise<void>;

export function shopifyInstalled({
  platform,
  store,
  logger,
  subscriptionsChanged,
  forgetScopes,
}: {
  platform: string;
  store: Pick<RecordRole, 'putRecord'>;
  logger: Logger;
  /** The bridge checks the shop's subscriptions, after the answer. */
  subscriptionsChanged: (shop: string) => void;
  forgetScopes?: (shop: string) => void;
}): ShopifyInstalled {
  return async (shop, how) => {
    forgetScopes?.(shop);
    await store.putRecord(SHOP_KIND, `${platform}:${shop}`, {
      platform,
      shop,
      uninstalledAt: null,
      installedAt: new Date().toISOString(),
    });
    logger.info({ shop, how }, 'Shopify app installed: the bridge has Admin API access to the shop');
    subscriptionsChanged(shop);
  };
}
