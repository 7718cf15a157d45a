// Shopify's webhook headers. Shopify sends X-Shopify-* and, newer, shopify-*;
// both mean the same, so the second style is read as the first.
export const SHOPIFY_HEADER = {
  hmac: 'x-shopify-hmac-sha256',
  topic: 'x-shopify-topic',
  shop: 'x-shopify-shop-domain',
  apiVersion: 'x-shopify-api-version',
  webhookId: 'x-shopify-webhook-id',
  /** The event a delivery tells of: the same on every subscription's copy of it (Shopify's key for duplicates). */
  eventId: 'x-shopify-event-id',
  triggeredAt: 'x-shopify-triggered-at',
  /** The name of the subscription that delivered it, when it has one (shopify.app.toml names the bridge's). Not signed. */
  name: 'x-shopify-name',
} as const;

export type HeaderMap = Record<string, string>;

/**
 * One value per header, lower-case names, and shopify-* read as x-shopify-*
 * (where both come, x-shopify-* wins). The shopify-* names are then dropped:
 * @shopify/shopify-api takes a shopify-hmac-sha256 header to mean an Events
 * delivery, which needs headers an order webhook does not carry.
 */
export function normaliseShopifyHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): HeaderMap {
  const flat: HeaderMap = {};
  const newStyle: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    const single = Array.isArray(value) ? value[0] : value;
    if (single === undefined) continue;
    const lower = name.toLowerCase();
    if (lower.startsWith('shopify-')) newStyle[`x-${lower}`] = single;
    else flat[lower] = single;
  }
  for (const [name, value] of Object.entries(newStyle)) flat[name] ??= value;
  return flat;
}
