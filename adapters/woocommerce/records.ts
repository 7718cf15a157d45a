// The records WooCommerce's module keeps of its own, and which of their fields the store seals at rest.
import type { SecretFields } from '../../src/core/store/record-secrets.ts';

declare module '../../src/core/store/ledger-store.ts' {
  interface PlatformRecordKinds {
    /**
     * An approval awaiting the browser's return (connect-return.ts), for minutes: its store, and a re-entry's
     * offered key (secret). Names the shop as forShop, so it expires rather than erased.
     */
    'woocommerce-return': true;
    /** A store's name as its WordPress site tells it (shared/store-names.ts); names the shop, so erased with it. */
    'woocommerce-store-name': true;
  }
}

export const wooRecords: SecretFields = {
  'woocommerce-return': ['consumerKey', 'consumerSecret'],
  'woocommerce-store-name': [],
};
