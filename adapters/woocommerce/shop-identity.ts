// One name per WooCommerce store, so that webhooks (by X-WC-Webhook-Source) and the REST API (by the
// configured or connected address) name the same shop, and so the same orders. Merchants type an address
// with or without "www." or a trailing slash, so the name is the host without "www.", in lower case, with a
// port that is not the scheme's, then the path without its trailing slash: https://www.Store.example/ is
// store.example, http://store.example/shop/ is store.example/shop.

export class StoreAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreAddressError';
  }
}

/** The store's address as the bridge keeps it: scheme, host and path, no query, no trailing slash. */
export function wooStoreUrl(address: string): string {
  const text = address.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new StoreAddressError(
      `"${address}" is not a web address; give the store's address, like https://store.example`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new StoreAddressError(`"${address}" is not an http(s) address`);
  if (url.username || url.password)
    throw new StoreAddressError('the store address must not carry a user name or password');
  return `${url.protocol}//${url.host.toLowerCase()}${storePath(url.pathname)}`;
}

/**
 * The store's path: its segments, without empty and "." ones, up to the REST
 * API's wp-json, without a trailing slash. The same whatever form it comes
 * in, once or twice over: the name a delivery's signature is checked under
 * (its source) must be the name its orders go to (translate names them again
 * from the kept name), or a source such as https://store.example///wp-json
 * was checked as one store's and earned as another's. In one pass: the
 * source is anyone's text, read before the signature is.
 */
function storePath(pathname: string): string {
  const segments = pathname.split('/').filter((segment) => segment !== '' && segment !== '.');
  const api = segments.indexOf('wp-json');
  return (api === -1 ? segments : segments.slice(0, api)).map((segment) => `/${segment}`).join('');
}

/** The shop's name in the ledger, from any form of its address (a webhook source, WOOCOMMERCE_URL, what a merchant typed). */
export function wooShopOf(address: string): string {
  const name = nameOnce(address);
  // The name is read again wherever it is kept (translate, the identity migration): an address whose name reads
  // otherwise a second time (http://store.example:443, www.www.store.example) would have its signature checked
  // under one store's name and its orders kept under another's. Such an address names no store.
  if (nameOnce(name) !== name) throw new StoreAddressError(`"${address}" does not name one store`);
  return name;
}

function nameOnce(address: string): string {
  const url = new URL(wooStoreUrl(address));
  const host = url.host.replace(/^www\./, '');
  if (host === '' || host.startsWith('.') || host.startsWith(':'))
    throw new StoreAddressError(`"${address}" has no host`);
  return `${host}${storePath(url.pathname.toLowerCase())}`;
}

/**
 * The names earlier versions gave this store: the host alone, as it was
 * configured or as webhooks carried it, with and without "www.". Orders kept
 * under them are moved to the one name (identity-migration.ts).
 */
export function legacyWooShopNames(shop: string): string[] {
  const host = shop.split('/')[0] ?? shop;
  return [host, `www.${host}`].filter((name) => name !== shop);
}

/**
 * LOYALTY_ORDER_ID_PREFIXES names shops as the merchant wrote them
 * ("woocommerce:www.store.example"): WooCommerce ones in their one name, so
 * that the prefix still applies.
 */
export function canonicalPrefixTargets(prefixes: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(prefixes).map(([target, prefix]) => {
      const shop = /^woocommerce:(.+)$/.exec(target)?.[1];
      return [shop ? `woocommerce:${wooShopNamed(shop)}` : target, prefix];
    }),
  );
}

/** A store's one name from how a person wrote it ("www.Store.example/"); as written when it names no store. */
export function wooShopNamed(written: string): string {
  try {
    return wooShopOf(written);
  } catch {
    return written;
  }
}
