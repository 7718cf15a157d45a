// What follows once the bridge has got Admin API access to a shop, whichever
// way (an install by OAuth, or token exchange the first time the merchant
// opens the embedded app): the shop counts as installed again (an earlier
// uninstall is cleared), and its webhook subscriptions are put right in the
// background, so that the merchant's page does not wait for them.
import { shopifyModule } from '../../adapters/shopify/module.ts';
import type { Reconciler } from '../core/reconciler.ts';
import type { LedgerStore, ShopState } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';

export type ShopifyInstalled = (shop: string, how: 'oauth' | 'token_exchange') => Promise<void>;

export function shopifyInstalled({
  store,
  reconciler,
  logger,
  forgetScopes,
}: {
  store: LedgerStore;
  reconciler: Reconciler;
  logger: Logger;
  forgetScopes?: (shop: string) => void;
}): ShopifyInstalled {
  return async (shop, how) => {
    forgetScopes?.(shop);
    await store.putRecord<ShopState>('shop', `${shopifyModule.name}:${shop}`, {
      platform: shopifyModule.name,
      shop,
      uninstalledAt: null,
      installedAt: new Date().toISOString(),
    });
    logger.info({ shop, how }, 'Shopify app installed: the bridge has Admin API access to the shop');
    void reconciler
      .checkAllSubscriptions(shopifyModule.name, shop)
      .catch((error: unknown) =>
        logger.warn(
          { err: error, shop },
          'could not put the webhook subscriptions right after the install; the next reconciliation tries again',
        ),
      );
  };
}
