// What the ledger keeps of each WooCommerce body: the fields translation
// reads (order-events.ts): the order's id, status, times and money, the
// buyer's name, e-mail, phone and country, coupons, meta (referral
// attributes) and refunds. Not the street addresses, the buyer's IP and
// browser, line items beyond their totals, or notes.
import { isLosslessNumber, keptBody, shapeOf, type Shape } from '../shared/kept-fields.ts';

export const WOO_ORDER_FIELDS: readonly string[] = [
  'id',
  'number',
  'status',
  'date_created_gmt',
  'date_modified_gmt',
  'total',
  'currency',
  'created_via',
  'billing.first_name',
  'billing.last_name',
  'billing.email',
  'billing.phone',
  'billing.country',
  'shipping.first_name',
  'shipping.last_name',
  'shipping.phone',
  'shipping.country',
  'line_items.total',
  'coupon_lines.code',
  'coupon_lines.discount',
  'meta_data.key',
  'meta_data.value',
  'refunds.id',
  'refunds.total',
];

const ORDER_SHAPE: Shape = shapeOf(WOO_ORDER_FIELDS);

/**
 * Meta values that are text or a number: the attributes translation reads
 * (order-events.ts). Plugins keep objects there too, a shipping package with
 * its destination's street address among them, which translation never
 * reads: their value is blanked (null, read alike), and the entry stays, so
 * the first entry of a key is the same one.
 */
function scalarMetaOnly(kept: unknown): unknown {
  const order = kept as { meta_data?: unknown };
  if (!Array.isArray(order.meta_data)) return kept;
  const scalar = (value: unknown) => typeof value === 'string' || isLosslessNumber(value);
  return {
    ...order,
    meta_data: order.meta_data.map((meta: { key?: unknown; value?: unknown } | null) =>
      meta && !scalar(meta.value) && 'value' in meta ? { ...meta, value: null } : meta,
    ),
  };
}

/** Order topics keep the order's fields; any other keeps nothing of its body (order.deleted is read by its topic alone). */
export function wooKeptBody(topic: string, body: Buffer, orderTopics: ReadonlySet<string>): Buffer {
  return orderTopics.has(topic) ? keptBody(body, ORDER_SHAPE, scalarMetaOnly) : keptBody(body, {});
}
