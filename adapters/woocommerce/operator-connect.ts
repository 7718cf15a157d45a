// A connect the operator starts (the dashboard, `loyalty-bridge connect`): a link to the store's WordPress,
// where someone approves, and WooCommerce sends the key to the callback (key-callback.ts). Made for its
// merchant (landing "store-page"), the link lands on the store's own page and the store earns on the
// merchant's own loyalty account; the operator's lands back on the dashboard.
import type { StoreConnect } from '../../src/core/platform-module.ts';
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import type { Logger } from '../../src/logger.ts';
import type { UserAddressPolicy } from '../../src/net/user-address.ts';
import { beginWooConnect, CONNECT_TTL_MS } from './connect.ts';
import { wooConnectProblem } from './connect-problem.ts';
import { StoreAddressError, wooShopOf, wooStoreUrl } from './shop-identity.ts';
import { RETURN_PATH } from './store-pages.ts';

export interface OperatorConnectParts {
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>;
  publicUrl: string | undefined;
  appName: string;
  addresses: UserAddressPolicy;
  logger: Logger;
}

export function operatorConnect({ store, publicUrl, appName, addresses, logger }: OperatorConnectParts): StoreConnect {
  return {
    problem: () => wooConnectProblem(publicUrl),
    ttlMs: CONNECT_TTL_MS,
    async begin(address, landing) {
      const forMerchant = landing === 'store-page';
      try {
        // The dashboard is told which store came back, and whose: it names no platform of its own.
        const shop = wooShopOf(wooStoreUrl(address));
        const began = await beginWooConnect(store, address, {
          publicUrl: publicUrl!,
          appName,
          returnPath: forMerchant
            ? `/woocommerce${RETURN_PATH}`
            : `/admin/?connected=woocommerce&store=${encodeURIComponent(shop)}`,
          // Made for the merchant, the link is theirs, and so is the loyalty account the store earns on.
          forMerchant,
          addresses,
        });
        logger.info(
          { shop: began.shop },
          'a WooCommerce connect was started; waiting for the merchant to approve it in WordPress',
        );
        return { ok: true, began };
      } catch (error) {
        if (error instanceof StoreAddressError) return { ok: false, problem: error.message };
        throw error;
      }
    },
  };
}
