// The deliveries that change a shop's standing (an uninstall, a redaction, a data request, a change of
// scopes) act only on a body shaped as Shopify sends that topic, for the shop the header names. Shopify
// signs the body alone, with one secret for every shop and topic, so a genuine body could be sent again
// under another topic or shop. The shapes are Shopify's (its compliance documentation, its 2026-04
// webhook samples). Pure: it runs before the answer.
import { asRecord } from '../shared/json.ts';

export type GuardedTopic =
  'app/uninstalled' | 'app/scopes_update' | 'shop/redact' | 'customers/redact' | 'customers/data_request';

export const GUARDED_TOPICS: ReadonlySet<string> = new Set<GuardedTopic>([
  'app/uninstalled',
  'app/scopes_update',
  'shop/redact',
  'customers/redact',
  'customers/data_request',
]);

export type BodyCheck =
  /** Fits its topic and names the header's shop. */
  | { fits: true; confirmed: true }
  /** An uninstall whose body names no shop (myshopify_domain null): Shopify is asked before anything is forgotten. */
  | { fits: true; confirmed: false }
  | { fits: false; reason: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
// A shape check on a body parsed without lossless numbers: an id past 2^53 is still a whole number here.
const hasId = (value: unknown) =>
  (typeof value === 'number' && Number.isInteger(value) && value > 0) ||
  (typeof value === 'string' && /^\d{1,40}$/.test(value));
const sameShop = (named: unknown, shop: string) => typeof named === 'string' && named.trim().toLowerCase() === shop;

function compliance(
  body: Record<string, unknown>,
  shop: string,
  required: readonly string[],
  forbidden: readonly string[],
): BodyCheck {
  if (!hasId(body.shop_id)) return { fits: false, reason: 'names no shop_id' };
  if (!sameShop(body.shop_domain, shop))
    return { fits: false, reason: 'names another shop than X-Shopify-Shop-Domain in shop_domain' };
  const missing = required.filter((key) => !(key in body));
  if (missing.length > 0) return { fits: false, reason: `has no ${missing.join(', ')}` };
  const extra = forbidden.filter((key) => key in body);
  if (extra.length > 0) return { fits: false, reason: `carries ${extra.join(', ')}, which its topic never does` };
  return { fits: true, confirmed: true };
}

/** Whether a guarded topic's body is the one Shopify sends for it, for this shop (lower-case myshopify domain). */
export function checkGuardedBody(topic: GuardedTopic, payload: unknown, shop: string): BodyCheck {
  const body = asRecord(payload);
  switch (topic) {
    case 'app/scopes_update':
      return Array.isArray(body.current) && Array.isArray(body.previous)
        ? { fits: true, confirmed: true }
        : { fits: false, reason: 'has no previous and current scopes' };
    case 'app/uninstalled': {
      // A Shop: the id, the name and the myshopify domain key are always there.
      if (!hasId(body.id) || !('myshopify_domain' in body) || !('name' in body))
        return { fits: false, reason: 'is not a Shop (no id, name or myshopify_domain)' };
      if (body.myshopify_domain === null) return { fits: true, confirmed: false };
      return sameShop(body.myshopify_domain, shop)
        ? { fits: true, confirmed: true }
        : { fits: false, reason: 'names another shop than X-Shopify-Shop-Domain in myshopify_domain' };
    }
    case 'shop/redact':
      return compliance(body, shop, [], ['customer', 'orders_to_redact', 'orders_requested', 'data_request']);
    case 'customers/redact':
      if (!isObject(body.customer) || !Array.isArray(body.orders_to_redact))
        return { fits: false, reason: 'has no customer and orders_to_redact' };
      return compliance(body, shop, ['customer', 'orders_to_redact'], ['data_request', 'orders_requested']);
    case 'customers/data_request':
      if (!isObject(body.customer) || !isObject(body.data_request))
        return { fits: false, reason: 'has no customer and data_request' };
      return compliance(body, shop, ['customer', 'data_request'], ['orders_to_redact']);
  }
}

/**
 * The other topics' bodies must at least be what they say: an order under an
 * order topic (its number or financial status, both always sent and both in
 * shopify.app.toml's include_fields), a refund with its order and
 * transactions, an edit. A Shop object sent as orders/create is not an order.
 * The reason it is not, or undefined.
 */
export function orderBodyProblem(topic: string, payload: unknown): string | undefined {
  const body = asRecord(payload);
  if (topic === 'refunds/create')
    return hasId(body.order_id) && Array.isArray(body.transactions) ? undefined : 'has no order_id and transactions';
  if (topic === 'orders/edited') return isObject(body.order_edit) ? undefined : 'has no order_edit';
  if (topic.startsWith('orders/'))
    return 'order_number' in body || 'financial_status' in body
      ? undefined
      : 'is not an order (no order_number or financial_status)';
  return undefined;
}
