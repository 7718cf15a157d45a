// BigCommerce V2 orders to OrderEvents.
import { compareDecimal, sumDecimal } from '../../src/core/decimal.ts';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { asRecord, asString, decimalText, idDigits, isoTime } from '../shared/json.ts';
import { emailLocalPart, fullName } from '../shared/names.ts';
import { toE164 } from '../shared/phone.ts';

/**
 * Status id to the facts it shows. 12 Manual Verification Required and 13
 * Disputed hold: no new points. 0 Incomplete is a checkout that was never
 * finished: not placed, so it earns nothing even with EARN_TRIGGER=placed.
 */
export const BC_STATUS_FACTS: Record<number, Fact[]> = {
  0: [],
  1: ['placed'],
  7: ['placed'],
  11: ['placed', 'paid'],
  9: ['placed', 'paid'],
  8: ['placed', 'paid'],
  3: ['placed', 'paid'],
  2: ['placed', 'paid', 'fulfilled'],
  10: ['placed', 'paid', 'fulfilled'],
  5: ['placed', 'cancelled'],
  6: ['placed', 'cancelled'],
  4: ['placed', 'paid', 'fullyRefunded'],
  14: ['placed', 'paid', 'partiallyRefunded'],
  12: ['placed'],
  13: ['placed'],
};

/**
 * The currency the order's totals are in. BigCommerce's V2 order reference:
 * default_currency_code is "the transactional currency the shopper pays in";
 * currency_code is the display currency the storefront showed prices in,
 * which a store with display-only currencies can set to another one (and
 * currency_exchange_rate is between the store's default currency and that
 * display currency). The totals are what was charged: the transactional
 * currency. Orders from before multi-currency have only currency_code.
 */
export const bigCommerceCurrency = (order: Record<string, unknown>): string =>
  asString(order.default_currency_code) ?? asString(order.currency_code) ?? '';

/**
 * Where the order came from. BigCommerce puts the origin it knows in
 * order_source (www, manual, external, ...); an order submitted by another
 * system says which in external_source, where BigCommerce recommends the type
 * of system first ("POS (Square)"). A point-of-sale order is named "pos", so
 * that EXCLUDED_SOURCES=pos keeps it out.
 */
export function bigCommerceSource(order: Record<string, unknown>): string | null {
  const external = asString(order.external_source);
  if (external && /^pos\b/i.test(external)) return 'pos';
  return asString(order.order_source);
}

/** V2's subtotal_ex_tax is before discounts: the goods after them, before shipping and tax, take the order's discounts and coupons off. */
function subtotalAfterDiscounts(order: Record<string, unknown>): string | null {
  const subtotal = decimalText(order.subtotal_ex_tax);
  if (subtotal === undefined) return null;
  const off = sumDecimal([decimalText(order.discount_amount) ?? '0', decimalText(order.coupon_discount) ?? '0']);
  const net = sumDecimal([subtotal, `-${off}`.replace(/^--/, '')]);
  return compareDecimal(net, '0') < 0 ? '0' : net;
}

export function bigCommerceOrderToEvent(
  payload: unknown,
  coupons: unknown[],
  shop: string,
  deliveryId: string,
  receivedAt: Date,
): OrderEvent | undefined {
  const order = asRecord(payload);
  const orderId = idDigits(order.id);
  if (orderId === undefined) return undefined;
  const billing = asRecord(order.billing_address);
  const email = asString(billing.email);
  const refunded = decimalText(order.refunded_amount);
  return {
    platform: 'bigcommerce',
    shop,
    orderId,
    orderName: `#${orderId}`,
    deliveryId,
    occurredAt: isoTime(order.date_modified) ?? isoTime(order.date_created) ?? receivedAt.toISOString(),
    facts: BC_STATUS_FACTS[Number(order.status_id)] ?? [],
    customer: {
      name: fullName(billing.first_name, billing.last_name) ?? emailLocalPart(email),
      email,
      mobile: toE164(asString(billing.phone), asString(billing.country_iso2)),
    },
    total: { amount: decimalText(order.total_inc_tax) ?? '0', currency: bigCommerceCurrency(order) },
    subtotal: subtotalAfterDiscounts(order),
    test: false,
    source: bigCommerceSource(order),
    discountCodes: coupons
      .map(asRecord)
      .map((coupon) => ({ code: asString(coupon.code) ?? '', amount: decimalText(coupon.discount) ?? '0' }))
      .filter((coupon) => coupon.code !== ''),
    attributes: {},
    landingSite: null,
    // V2 gives the refunded total, not each refund: one running figure under one id.
    refunds: refunded && Number(refunded) > 0 ? [{ id: 'refunded_amount', amount: refunded }] : [],
  };
}
