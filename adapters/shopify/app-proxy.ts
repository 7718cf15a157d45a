// A request Shopify's app proxy forwarded (shopify.app.toml, [app_proxy]): https://<shop>/apps/loyalty/<path>
// reaches the bridge at /shopify/storefront/<path> with shop, logged_in_customer_id, path_prefix and
// timestamp added, and signature: hex HMAC-SHA256, with the app's client secret, of every other parameter
// as key=value (several values of one key joined by commas), sorted, joined with nothing between
// (shopify.dev, "Authenticate app proxies"). @shopify/shopify-api's validateHmac (signator appProxy) makes
// that check and refuses a timestamp more than 90 seconds from now, either way: the freshness window.
//
// Beyond the library: the pairs are joined with no separator, so a parameter the browser added can carry
// text that reads, once split differently, as another customer's id with the same signature
// ("a=xlogged_in_customer_id=2m" + Shopify's own pairs). Only Shopify's own four parameters are accepted,
// each once and of its documented shape (none can hold an "="), so the signed text splits one way only; and the
// store page's own `reward`, of a shape that holds none either.
import { InvalidHmacError, type Shopify } from '@shopify/shopify-api';

export type AppProxyCheck = { ok: true; shop: string; customerId: string | undefined } | { ok: false; reason: string };

/** What Shopify adds, each of its shape: the signed text splits one way only. */
const SHAPES: ReadonlyMap<string, RegExp> = new Map([
  ['shop', /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/],
  // Empty (or absent) for a guest.
  ['logged_in_customer_id', /^\d{0,20}$/],
  // The prefix and the subpath, which a merchant may rename in their admin: /apps/loyalty by default.
  ['path_prefix', /^\/(apps|a|community|tools)\/[A-Za-z0-9_-]{1,30}$/],
  ['timestamp', /^\d{1,12}$/],
  // The store's own page's one parameter: which reward a customer redeems (POST …/points/redeem). Of a shape with
  // no "=" either, so the signed text still splits one way only.
  ['reward', /^[A-Za-z0-9-]{1,64}$/],
]);
const SIGNATURE = /^[0-9a-f]{64}$/;

/** The proxy's query as the route read it; checked with the current secret, then the previous one (a rotation). */
export async function checkAppProxy(
  apps: readonly Shopify[],
  query: Readonly<Record<string, unknown>>,
): Promise<AppProxyCheck> {
  const signed: Record<string, string> = Object.create(null) as Record<string, string>;
  let signature: string | undefined;
  for (const [sent, value] of Object.entries(query)) {
    // Named in the refusal's log line at most this long: anyone can send a parameter of any name.
    const name = sent.length > 40 ? `${sent.slice(0, 40)}…` : sent;
    // A repeated parameter (an array, or the route dropped it) is nothing Shopify signed for the bridge.
    if (typeof value !== 'string') return refused(`the parameter ${name} is not a single value`);
    const shape = SHAPES.get(sent);
    if (sent === 'signature') signature = value;
    else if (!shape) return refused(`the parameter ${name} is not one Shopify's app proxy adds`);
    else if (!shape.test(value)) return refused(`the parameter ${name} is not of the shape Shopify sends`);
    else signed[sent] = value;
  }
  if (!signature || !SIGNATURE.test(signature)) return refused('the request is not signed by Shopify’s app proxy');
  if (!signed.shop || !signed.timestamp || !signed.path_prefix)
    return refused('the request lacks a parameter Shopify’s app proxy always adds');
  for (const app of apps) {
    try {
      if (await app.utils.validateHmac({ ...signed, signature }, { signator: 'appProxy' }))
        return { ok: true, shop: signed.shop, customerId: signed.logged_in_customer_id || undefined };
    } catch (error) {
      if (error instanceof InvalidHmacError)
        return refused('the request is stale (its timestamp is more than 90 seconds off)');
      throw error;
    }
  }
  return refused('the signature does not match (not signed with this app’s secret, or changed after signing)');
}

const refused = (reason: string): AppProxyCheck => ({ ok: false, reason });
