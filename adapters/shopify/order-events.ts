// Shopify orders and refunds, as REST webhook payloads, to OrderEvents.
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { sumDecimal } from '../../src/core/decimal.ts';
import { asArray, asRecord, asString, decimalText, idDigits, isoTime, scalarText } from '../shared/json.ts';
import { emailLocalPart, fullName } from '../shared/names.ts';
import { toE164 } from '../shared/phone.ts';

export interface EventContext {
  shop: string;
  deliveryId: string;
  receivedAt: Date;
}

/**
 * The fact a topic's name claims. Only the body is signed, so a claim is never
 * taken from the topic header: where the body does not show it, the order is
 * read from the Admin API (adapter.ts).
 */
export const TOPIC_CLAIMS: Readonly<Record<string, Fact>> = {
  'orders/paid': 'paid',
  'orders/fulfilled': 'fulfilled',
  'orders/cancelled': 'cancelled',
};

/** What the order's own fields show to be true of it. */
export function orderFacts(order: Record<string, unknown>): Fact[] {
  const facts: Fact[] = ['placed'];
  const financial = asString(order.financial_status)?.toLowerCase();
  if (financial === 'paid' || financial === 'partially_refunded' || financial === 'refunded') facts.push('paid');
  if (financial === 'partially_refunded') facts.push('partiallyRefunded');
  if (financial === 'refunded') facts.push('fullyRefunded');
  if (asString(order.fulfillment_status)?.toLowerCase() === 'fulfilled') facts.push('fulfilled');
  // A voided authorisation never becomes a payment: the order is as good as cancelled.
  if (asString(order.cancelled_at) !== null || financial === 'voided') facts.push('cancelled');
  return facts;
}

export type OrderEventResult = { ok: true; event: OrderEvent } | { ok: false; reason: string };

export function orderToEvent(payload: unknown, context: EventContext): OrderEventResult {
  const order = asRecord(payload);
  const orderId = idDigits(order.id);
  if (orderId === undefined) return { ok: false, reason: 'the order has no numeric id' };

  const customer = asRecord(order.customer);
  const billing = asRecord(order.billing_address);
  const shipping = asRecord(order.shipping_address);
  const email = asString(order.email) ?? asString(order.contact_email) ?? asString(customer.email);
  const shopMoney = money(order, 'shop_money') ?? {
    amount: decimalText(order.total_price) ?? '0',
    currency: asString(order.currency) ?? '',
  };
  const presentment = money(order, 'presentment_money');
  const country =
    asString(billing.country_code) ??
    asString(shipping.country_code) ??
    asString(asRecord(customer.default_address).country_code);
  const rawMobile =
    asString(order.phone) ?? asString(customer.phone) ?? asString(billing.phone) ?? asString(shipping.phone);
  const facts = new Set<Fact>(orderFacts(order));

  return {
    ok: true,
    event: {
      platform: 'shopify',
      shop: context.shop,
      orderId,
      orderName: asString(order.name) ?? `#${asString(String(order.order_number ?? '')) ?? orderId}`,
      deliveryId: context.deliveryId,
      occurredAt: isoTime(order.updated_at) ?? isoTime(order.created_at) ?? context.receivedAt.toISOString(),
      facts: [...facts],
      customer: {
        name: personName(customer) ?? personName(billing) ?? personName(shipping) ?? emailLocalPart(email),
        email,
        mobile: toE164(rawMobile, country),
      },
      total: { ...shopMoney, ...(presentment && presentment.currency !== shopMoney.currency ? { presentment } : {}) },
      // After discounts, before shipping and taxes; subtotal_price is in the shop's currency too.
      subtotal:
        decimalText(asRecord(asRecord(order.subtotal_price_set).shop_money).amount) ??
        decimalText(order.subtotal_price) ??
        null,
      test: order.test === true,
      source: asString(order.source_name),
      discountCodes: asArray(order.discount_codes)
        .map(asRecord)
        .map((code) => ({ code: asString(code.code) ?? '', amount: decimalText(code.amount) ?? '0' }))
        .filter((code) => code.code !== ''),
      attributes: Object.fromEntries(
        asArray(order.note_attributes)
          .map(asRecord)
          .map((attribute) => [asString(attribute.name), scalarText(attribute.value)])
          .filter((entry): entry is [string, string] => entry[0] !== null && entry[1] !== null),
      ),
      landingSite: asString(order.landing_site),
      refunds: asArray(order.refunds).flatMap((refund) => refundOf(asRecord(refund))),
      protectedDataHidden: contactWithheld(customer),
    },
  };
}

/**
 * Shopify leaves the contact fields out of the customer altogether when the
 * app was not granted protected customer data (the customer is there, with
 * its id, but no email or phone key): withheld, not absent.
 */
export function contactWithheld(customer: Record<string, unknown>): boolean {
  return customer.id !== undefined && (!('email' in customer) || !('phone' in customer));
}

/** The order's total in shop or presentment money, from total_price_set. */
function money(
  order: Record<string, unknown>,
  which: 'shop_money' | 'presentment_money',
): { amount: string; currency: string } | undefined {
  const set = asRecord(asRecord(order.total_price_set)[which]);
  const amount = decimalText(set.amount);
  const currency = asString(set.currency_code);
  return amount !== undefined && currency !== null ? { amount, currency } : undefined;
}

/**
 * A refund's id and the money it returned: its successful refund
 * transactions, in the currency they were paid in (the customer's, for an
 * order in another currency than the shop's; the core converts).
 */
function refundOf(refund: Record<string, unknown>): Array<{ id: string; amount: string; currency: string | null }> {
  const id = idDigits(refund.id);
  if (id === undefined) return [];
  const transactions = asArray(refund.transactions)
    .map(asRecord)
    .filter(
      (transaction) =>
        asString(transaction.kind) === 'refund' && (asString(transaction.status) ?? 'success') === 'success',
    );
  const amounts = transactions
    .map((transaction) => decimalText(transaction.amount))
    .filter((amount): amount is string => amount !== undefined);
  if (amounts.length === 0) return [];
  const currency =
    transactions.map((transaction) => asString(transaction.currency)).find((code) => code !== null) ?? null;
  return [{ id, amount: amounts.length === 1 ? (amounts[0] ?? '0') : sumDecimal(amounts), currency }];
}

/**
 * A refunds/create payload. The refund alone cannot say whether it refunded
 * the whole order: it carries the amount, and the core adds the order's
 * refunds up against the total it knows from the order's own deliveries.
 */
export function refundToEvent(payload: unknown, context: EventContext): OrderEventResult {
  const refund = asRecord(payload);
  const orderId = idDigits(refund.order_id);
  if (orderId === undefined) return { ok: false, reason: 'the refund has no numeric order_id' };
  return {
    ok: true,
    event: {
      platform: 'shopify',
      shop: context.shop,
      orderId,
      orderName: '',
      deliveryId: context.deliveryId,
      occurredAt: isoTime(refund.created_at) ?? isoTime(refund.processed_at) ?? context.receivedAt.toISOString(),
      facts: [],
      customer: { name: null, email: null, mobile: null },
      total: null,
      test: false,
      source: null,
      discountCodes: [],
      attributes: {},
      landingSite: null,
      refunds: refundOf(refund),
    },
  };
}

const personName = (person: Record<string, unknown>): string | null =>
  fullName(person.first_name, person.last_name) ?? asString(person.name);
