// WooCommerce orders (webhook bodies and REST v3 alike) to OrderEvents.
import { sumDecimal } from '../../src/core/decimal.ts';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { asArray, asRecord, asString, decimalText, idDigits, isoTime, scalarText } from '../shared/json.ts';
import { emailLocalPart, fullName } from '../shared/names.ts';
import { toE164 } from '../shared/phone.ts';

/**
 * Order status to the facts it shows. A partial refund shows only in
 * refunds[]. A checkout draft is a cart not yet submitted and a failed order
 * one whose payment failed: neither is placed, so neither earns even where
 * placing an order is what earns (EARN_TRIGGER=placed).
 */
export const WOO_STATUS_FACTS: Record<string, Fact[]> = {
  pending: ['placed'],
  'on-hold': ['placed'],
  failed: [],
  'checkout-draft': [],
  processing: ['placed', 'paid'],
  completed: ['placed', 'paid', 'fulfilled'],
  cancelled: ['placed', 'cancelled'],
  refunded: ['placed', 'paid', 'fullyRefunded'],
};

/** WooCommerce writes GMT times without a zone. */
const gmt = (value: unknown) => {
  const text = asString(value);
  return text ? isoTime(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`) : undefined;
};

/**
 * WooCommerce's Order Attribution (WooCommerce 8.5+) keeps, in the order's
 * meta, the first page of the visit that placed it: the landing page, whose
 * query carries the referral a link brought (REFERRAL_LANDING_PARAM).
 */
export const WOO_LANDING_META = '_wc_order_attribution_session_entry';

export type WooEventResult = { ok: true; event: OrderEvent } | { ok: false; reason: string };

export function wooOrderToEvent(payload: unknown, shop: string, deliveryId: string, receivedAt: Date): WooEventResult {
  const order = asRecord(payload);
  const orderId = idDigits(order.id);
  if (orderId === undefined) return { ok: false, reason: 'the order has no numeric id' };
  const status = asString(order.status)?.toLowerCase() ?? '';
  const billing = asRecord(order.billing);
  const meta = asArray(order.meta_data).map(asRecord);
  const shipping = asRecord(order.shipping);
  const email = asString(billing.email);
  const name = fullName(billing.first_name, billing.last_name) ?? fullName(shipping.first_name, shipping.last_name);
  return {
    ok: true,
    event: {
      platform: 'woocommerce',
      shop,
      orderId,
      orderName: `#${asString(order.number) ?? orderId}`,
      deliveryId,
      occurredAt: gmt(order.date_modified_gmt) ?? gmt(order.date_created_gmt) ?? receivedAt.toISOString(),
      facts: WOO_STATUS_FACTS[status] ?? [],
      customer: {
        name: name ?? emailLocalPart(email),
        email,
        mobile: toE164(
          asString(billing.phone) ?? asString(shipping.phone),
          asString(billing.country) ?? asString(shipping.country),
        ),
      },
      total: { amount: decimalText(order.total) ?? '0', currency: asString(order.currency) ?? '' },
      subtotal: lineItemsTotal(order.line_items),
      test: false,
      source: asString(order.created_via),
      discountCodes: asArray(order.coupon_lines)
        .map(asRecord)
        .map((coupon) => ({ code: asString(coupon.code) ?? '', amount: decimalText(coupon.discount) ?? '0' }))
        .filter((coupon) => coupon.code !== ''),
      // An order's body lists all its coupons: none left means an admin removed them (WC_Abstract_Order::
      // remove_coupon, which gives the coupon's use back), and the order no longer pays with a reward code.
      discountCodesComplete: Array.isArray(order.coupon_lines),
      attributes: Object.fromEntries(
        meta
          .map((each) => [asString(each.key), scalarText(each.value)])
          .filter((entry): entry is [string, string] => entry[0] !== null && entry[1] !== null),
      ),
      landingSite: asString(meta.find((each) => each.key === WOO_LANDING_META)?.value)?.slice(0, 2048) ?? null,
      // Refund totals come as negative strings: "-10.00".
      refunds: asArray(order.refunds).flatMap((value) => {
        const refund = asRecord(value);
        const id = idDigits(refund.id);
        const total = decimalText(refund.total);
        return id && total ? [{ id, amount: total.replace(/^-/, '') }] : [];
      }),
    },
  };
}

/** What the line items cost after coupons, before shipping and tax (each line's total): the order's subtotal. */
function lineItemsTotal(lines: unknown): string | null {
  const amounts = asArray(lines).map((line) => decimalText(asRecord(line).total));
  if (amounts.length === 0 || amounts.some((amount) => amount === undefined)) return null;
  return sumDecimal(amounts as string[]);
}

/** The fields that say what a delivery is about, for dedupe: WooCommerce's delivery id is not unique. */
export function wooIdentity(payload: unknown): { orderId: string | undefined; modified: string; status: string } {
  const order = asRecord(payload);
  return {
    orderId: idDigits(order.id),
    modified: asString(order.date_modified_gmt) ?? '',
    status: asString(order.status) ?? '',
  };
}
