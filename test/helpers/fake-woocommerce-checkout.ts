// The fake WooCommerce's checkout with a coupon: whether WooCommerce takes it, and what it takes off the order.
// Whether (couponRefusal) follows WC_Discounts and WC_Cart::check_customer_coupons: published, usage_count under
// usage_limit, not past date_expires, minimum_amount met, fewer than usage_limit_per_user uses by the billing
// e-mail; email_restrictions checked when the order is placed against the billing e-mail and the signed-in
// account's e-mail, lower-cased, each restriction matching exactly or by its wildcard (* for anything, as
// WC_Cart::is_coupon_emails_allowed turns it into a regex). Placing the order counts a use (usage_count, used_by).
// What it takes off (placeOrder), from woocommerce.com/document/coupon-management ("Discount type"):
//   fixed_cart     "A fixed total discount for the entire cart": the amount, at most the items' cost;
//   percent        a share of the items ("a cart [of] $60, a coupon for 10% off applies a discount of $6"), to the
//                  cent; never the shipping;
//   fixed_product  the amount off each selected product: the fake's cart is one product, so as fixed_cart;
//   free_shipping  (woocommerce.github.io/woocommerce-rest-api-docs, Coupons: "If true and if the free shipping
//                  method requires a coupon, this coupon will enable free shipping"): an enabled Free shipping
//                  method of the customer's zone is offered when its "Free shipping requires" is met
//                  (woocommerce.com/document/free-shipping: a valid free shipping coupon, a minimum order amount,
//                  either, or both), and the customer then takes it: the shipping is all taken off. A zone without
//                  it charges the shipping, and the coupon still goes through (its other discount, none for the
//                  bridge's, applies).
// The customer's zone is the store's first zone by order, or zone 0 where it has no other: WooCommerce matches the
// address to the first zone, in order, whose locations cover it (woocommerce.github.io/woocommerce-rest-api-docs,
// Shipping zones: order; Shipping zone locations), and the fake's cart has no address. The zones are the ones its
// REST API answers (fake-woocommerce-shipping.ts). With shipping turned off nothing is charged for shipping.
import type { FakeWooCommerce } from './fake-woocommerce.ts';
import {
  stateOf,
  publishedCoupon,
  type FakeCoupon,
  type FakeShippingMethod,
  type PlacedOrder,
  type ShippingState,
} from './fake-woocommerce-coupon-state.ts';

export interface WooCheckout {
  /** The billing e-mail typed at checkout. */
  billingEmail: string;
  /** The signed-in customer's account e-mail; a guest has none. */
  accountEmail?: string;
  /** When the order is placed (ms); now by default. */
  at?: number;
  /** The cart's subtotal: enough for any minimum_amount when not given, and CART.subtotal for what is taken off. */
  subtotal?: string;
  /** What the customer's shipping (a Flat rate) costs; CART.shipping when not given. */
  shipping?: string;
}

/** The cart a checkout that names none has. */
export const CART = { subtotal: '100.00', shipping: '5.00' } as const;

const cents = (decimal: string) => Math.round(Number(decimal) * 100);
const decimal = (amount: number) => (amount / 100).toFixed(2);

/** WC_Cart::is_coupon_emails_allowed: an exact match, or a restriction's * standing for anything. */
function emailAllowed(emails: string[], restrictions: string[]): boolean {
  return emails.some((email) =>
    restrictions.some((restriction) => {
      if (restriction === email) return true;
      // Its regex: '/^' . str_replace('*', '(.+)?', $restriction) . '$/' (the rest unescaped, as WooCommerce has it).
      const pattern = restriction
        .split('*')
        .map((part) => part.replace(/[\\^$+?()[\]{}|/]/g, '\\$&'))
        .join('(.+)?');
      return new RegExp(`^${pattern}$`).test(email);
    }),
  );
}

/** Why placing an order with the coupon would fail now, or undefined when it would go through. */
export function couponRefusal(fake: FakeWooCommerce, code: string, checkout: WooCheckout): string | undefined {
  const coupon = publishedCoupon(stateOf(fake), code);
  if (!coupon) return 'no such coupon';
  const at = checkout.at ?? Date.now();
  if (coupon.usage_limit !== null && coupon.usage_count >= coupon.usage_limit) return 'the coupon is used up';
  if (coupon.expires !== null && at > coupon.expires) return 'the coupon has expired';
  if (
    Number(coupon.minimum_amount) > 0 &&
    checkout.subtotal !== undefined &&
    Number(coupon.minimum_amount) > Number(checkout.subtotal)
  )
    return 'the cart is below the minimum spend';
  const billing = checkout.billingEmail.trim().toLowerCase();
  const emails = [...new Set([billing, checkout.accountEmail?.trim().toLowerCase()])].filter(
    (each): each is string => !!each,
  );
  if (coupon.email_restrictions.length > 0 && !emailAllowed(emails, coupon.email_restrictions))
    return 'the coupon is not yours';
  if (
    coupon.usage_limit_per_user !== null &&
    coupon.used_by.filter((each) => each === billing).length >= coupon.usage_limit_per_user
  )
    return 'the customer has used the coupon up';
  return undefined;
}

/** What the coupon takes off the items of a cart of `subtotal` cents (WC_Discounts), in cents. */
function itemsOff(coupon: FakeCoupon, subtotal: number): number {
  switch (coupon.discount_type) {
    case 'percent':
      return Math.min(subtotal, Math.round((subtotal * Number(coupon.amount)) / 100));
    case 'fixed_cart':
    case 'fixed_product':
      return Math.min(subtotal, cents(coupon.amount));
  }
}

/** WC_Shipping_Free_Shipping::is_available: whether the method is offered for this cart. */
function freeShippingOffered(method: FakeShippingMethod, coupon: FakeCoupon, paidForItems: number): boolean {
  if (method.methodId !== 'free_shipping' || !method.enabled) return false;
  const hasCoupon = coupon.free_shipping;
  // The minimum is met by what the items cost after the coupon (its "Apply minimum order rule before coupon
  // discount" left unticked, as it comes).
  const metMinimum = paidForItems >= cents(method.minAmount);
  switch (method.requires) {
    case '':
      return true;
    case 'coupon':
      return hasCoupon;
    case 'min_amount':
      return metMinimum;
    case 'either':
      return hasCoupon || metMinimum;
    case 'both':
      return hasCoupon && metMinimum;
  }
}

/** The methods of the customer's zone: the store's first zone by order, or zone 0 where it has no other. */
const customerZoneMethods = (shipping: ShippingState): FakeShippingMethod[] =>
  (shipping.zones.find((zone) => zone.id !== 0) ?? shipping.zones.find((zone) => zone.id === 0))?.methods ?? [];

/**
 * An order is placed with the coupon as WooCommerce would: what it took off (then its use is counted, and the
 * order is kept: ordersPlaced), or why it was refused (then nothing is).
 */
export function placeOrder(
  fake: FakeWooCommerce,
  code: string,
  checkout: WooCheckout,
): PlacedOrder | { refused: string } {
  const refused = couponRefusal(fake, code, checkout);
  if (refused !== undefined) return { refused };
  const state = stateOf(fake);
  const coupon = publishedCoupon(state, code)!;
  coupon.usage_count += 1;
  // A guest's use is kept by their billing e-mail (a signed-in customer's by user id, which the fake has none of).
  const billingEmail = checkout.billingEmail.trim().toLowerCase();
  coupon.used_by.push(billingEmail);
  const subtotal = cents(checkout.subtotal ?? CART.subtotal);
  const shipping = state.shipping.off ? 0 : cents(checkout.shipping ?? CART.shipping);
  const discount = itemsOff(coupon, subtotal);
  const offered = customerZoneMethods(state.shipping).some((method) =>
    freeShippingOffered(method, coupon, subtotal - discount),
  );
  const shippingOff = offered ? shipping : 0;
  const order: PlacedOrder = {
    code: coupon.code,
    billingEmail,
    subtotal: decimal(subtotal),
    discount: decimal(discount),
    shippingTotal: decimal(shipping - shippingOff),
    shippingOff: decimal(shippingOff),
  };
  state.orders.push(order);
  return order;
}

/** An order is placed with the coupon as WooCommerce would: whether it went through (then its use is counted). */
export const useCoupon = (fake: FakeWooCommerce, code: string, checkout: WooCheckout): boolean =>
  !('refused' in placeOrder(fake, code, checkout));

/** The orders placed with a coupon, in order, with what each coupon took off. */
export const ordersPlaced = (fake: FakeWooCommerce): PlacedOrder[] => [...stateOf(fake).orders];

/**
 * WooCommerce gives an order's use of a coupon back (WC_Coupon::decrease_usage_count): wc_update_coupon_usage_counts
 * does it when an order whose uses were recorded is cancelled, fails or goes to the bin, and
 * WC_Abstract_Order::remove_coupon when an admin removes the coupon from an order. The coupon's usage_count goes
 * down by one (never below 0) and one of its used_by entries for that customer goes. A coupon deleted since
 * (wc_get_coupon_id_by_code finds none) is left alone. Whether it was given back.
 */
export function giveCouponBack(fake: FakeWooCommerce, code: string, billingEmail: string): boolean {
  const coupon = publishedCoupon(stateOf(fake), code);
  if (!coupon || coupon.usage_count === 0) return false;
  coupon.usage_count -= 1;
  const at = coupon.used_by.indexOf(billingEmail.trim().toLowerCase());
  if (at >= 0) coupon.used_by.splice(at, 1);
  return true;
}

/**
 * A failed order paid again, or a cancelled one restored (wc_update_coupon_usage_counts on processing, completed,
 * on-hold or pending, for an order whose uses are not recorded): its coupon's use is counted again, without the
 * checks a checkout makes (WC_Coupon::increase_usage_count), so a coupon whose use another order took since is
 * over its limit. A coupon deleted since is left alone. Whether it was counted.
 */
export function countCouponAgain(fake: FakeWooCommerce, code: string, billingEmail: string): boolean {
  const coupon = publishedCoupon(stateOf(fake), code);
  if (!coupon) return false;
  coupon.usage_count += 1;
  coupon.used_by.push(billingEmail.trim().toLowerCase());
  return true;
}
