// The records WooCommerce's module keeps of its own, and which of their fields the store seals at rest.
import type { SecretFields } from '../../src/core/store/record-secrets.ts';

declare module '../../src/core/store/roles/records.ts' {
  interface PlatformRecordKinds {
    /**
     * An approval awaiting the browser's return (connect-return.ts), for minutes: its store, and a re-entry's
     * offered key (secret). Names the shop as forShop, so it expires rather than erased.
     */
    'woocommerce-return': true;
    /** A store's name as its WordPress site tells it (shared/store-names.ts); names the shop, so erased with it. */
    'woocommerce-store-name': true;
    /**
     * A plugin connection code awaiting its exchange (plugin-connect.ts), for 15 minutes: by the SHA-256 of the code,
     * naming the platform and shop, so erased with the shop. Only the hash is kept: nothing to seal.
     */
    'woo-plugin-code': true;
    /** The WordPress plugin's key of a store (plugin-keys.ts), `woocommerce:<shop>`: the key is a secret. */
    'woo-plugin-key': true;
    /** A door nonce awaiting its signed return from wp-admin (plugin-door.ts), for 5 minutes: by its hash. */
    'woo-plugin-door': true;
  }
}

export const wooRecords: SecretFields = {
  'woocommerce-return': ['consumerKey', 'consumerSecret'],
  'woocommerce-store-name': [],
  'woo-plugin-code': [],
  'woo-plugin-key': ['key'],
  'woo-plugin-door': [],
};
