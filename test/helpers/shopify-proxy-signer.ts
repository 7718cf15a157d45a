// Shopify's app proxy as its documentation describes it ("Authenticate app proxies", shopify.dev): the
// forwarded request's query gains shop, logged_in_customer_id (empty for a guest), path_prefix and
// timestamp; every parameter but signature becomes key=value, a key given more than once with its values
// joined by commas; those are sorted and joined with nothing between; signature is the hex HMAC-SHA256 of
// that text with the app's shared secret (its client secret). Written from the documentation, not from
// the bridge's code.
import { createHmac } from 'node:crypto';

export function signProxyQuery(pairs: ReadonlyArray<readonly [string, string]>, secret: string): string {
  const byKey = new Map<string, string[]>();
  for (const [key, value] of pairs) byKey.set(key, [...(byKey.get(key) ?? []), value]);
  const text = [...byKey]
    .map(([key, values]) => `${key}=${values.join(',')}`)
    .sort()
    .join('');
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** The query string Shopify forwards: the storefront's own parameters, Shopify's, then the signature. */
export function proxiedQuery(
  {
    shop,
    customerId = '',
    extra = [],
    pathPrefix = '/apps/loyalty',
    timestamp = Math.floor(Date.now() / 1000),
  }: {
    shop: string;
    customerId?: string;
    extra?: ReadonlyArray<readonly [string, string]>;
    pathPrefix?: string;
    timestamp?: number;
  },
  secret: string,
): string {
  const pairs: Array<readonly [string, string]> = [
    ...extra,
    ['shop', shop],
    ['logged_in_customer_id', customerId],
    ['path_prefix', pathPrefix],
    ['timestamp', String(timestamp)],
  ];
  const query = new URLSearchParams(pairs.map(([key, value]): [string, string] => [key, value]));
  query.append('signature', signProxyQuery(pairs, secret));
  return query.toString();
}
