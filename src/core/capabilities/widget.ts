// The store widget, where the platform needs the bridge to put it on the store (a script it registers).

/**
 * The bridge puts it when the merchant turns the storefront on, takes it off when they turn it off, and checks it
 * now and then while on, putting back one someone removed (core/storefront/widget-keeper.ts).
 */
export interface StoreWidget {
  /** scriptUrl: <PUBLIC_URL>/<platform>/storefront/widget.js?store=<shop>, which the module's own route serves. */
  put(shop: string, scriptUrl: string): Promise<void>;
  remove(shop: string): Promise<void>;
  /** Whether it is still there: reconciliation puts back one someone removed. */
  present(shop: string): Promise<boolean>;
}
