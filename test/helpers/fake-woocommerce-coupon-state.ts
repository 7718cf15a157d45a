// What the fake WooCommerce keeps of its coupons, shared by its REST routes (fake-woocommerce-coupons.ts) and its
// checkout (fake-woocommerce-checkout.ts). The coupon's fields are the REST API's coupon properties
// (woocommerce.github.io/woocommerce-rest-api-docs, Coupons).
import type { FakeWooCommerce } from './fake-woocommerce.ts';

export interface FakeCoupon {
  id: number;
  code: string;
  amount: string;
  status: 'publish' | 'trash';
  discount_type: 'percent' | 'fixed_cart' | 'fixed_product';
  description: string;
  /** When it expires (ms since the epoch), or none. */
  expires: number | null;
  usage_count: number;
  individual_use: boolean;
  usage_limit: number | null;
  usage_limit_per_user: number | null;
  /** "If true and if the free shipping method requires a coupon, this coupon will enable free shipping." */
  free_shipping: boolean;
  minimum_amount: string;
  email_restrictions: string[];
  used_by: string[];
  created: number;
}

/** Where the next create fails: before the coupon is stored (500), or after (the connection drops, its answer lost). */
export type CreateFailure = 'before' | 'after';

/**
 * The shipping zone's Free shipping method (WooCommerce › Settings › Shipping), by its "Free shipping requires"
 * setting (woocommerce.com/document/free-shipping): '' N/A (always offered), 'coupon' a valid free shipping coupon,
 * 'min_amount' a minimum order amount, 'either' the amount or a coupon, 'both' the amount and a coupon.
 */
export interface FreeShippingMethod {
  requires: '' | 'coupon' | 'min_amount' | 'either' | 'both';
  /** The minimum order amount, decimal text ('0.00' where it requires none). */
  minAmount: string;
}

/** An order placed with a coupon at the fake's checkout, and what the coupon took off it. */
export interface PlacedOrder {
  /** The coupon's code as WooCommerce keeps it (lower case): the order's coupon_lines[].code. */
  code: string;
  billingEmail: string;
  /** The items' cost before the coupon. */
  subtotal: string;
  /** What the coupon took off the items: the order's coupon_lines[].discount ("0.00" for free shipping alone). */
  discount: string;
  /** The shipping the customer pays (the order's shipping_total), and what the coupon took off it. */
  shippingTotal: string;
  shippingOff: string;
}

export interface CouponState {
  coupons: Map<number, FakeCoupon>;
  /** Every coupon the store ever made, by its code: kept after a delete, for tests. */
  made: Map<string, FakeCoupon>;
  nextId: number;
  fail: CreateFailure | undefined;
  /** The key's user may not manage coupons (a customer's or a shop worker's key without the capability). */
  refused: boolean;
  /** The site's timezone (Settings > General) as hours from GMT. */
  gmtOffsetHours: number;
  /** The zone's Free shipping method, or null: a zone with none (a new store's zones have only what it adds). */
  freeShipping: FreeShippingMethod | null;
  /** Every order placed with a coupon, in order. */
  orders: PlacedOrder[];
}

export const couponStates = new WeakMap<FakeWooCommerce, CouponState>();

export function stateOf(fake: FakeWooCommerce): CouponState {
  const state = couponStates.get(fake);
  if (!state) throw new Error('the fake WooCommerce has no coupons: call withCoupons first');
  return state;
}

/** wc_format_coupon_code: decoded, trimmed, lower case. */
export const formatCode = (code: string) => code.trim().toLowerCase();

/** The published coupon of a code, in any case (wc_get_coupon_id_by_code), or none. */
export const publishedCoupon = (state: CouponState, code: string): FakeCoupon | undefined =>
  [...state.coupons.values()].find((coupon) => coupon.status === 'publish' && coupon.code === formatCode(code));
