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
 * "Free shipping requires" of a Free shipping method (woocommerce.com/document/free-shipping; its settings.requires
 * options in woocommerce.github.io/woocommerce-rest-api-docs, Shipping zone methods): '' N/A (always offered),
 * 'coupon' a valid free shipping coupon, 'min_amount' a minimum order amount, 'either' the amount or a coupon,
 * 'both' the amount and a coupon.
 */
export type FreeShippingRequires = '' | 'coupon' | 'min_amount' | 'either' | 'both';

/** A Free shipping method (WooCommerce › Settings › Shipping, in a zone) by what it requires. */
export interface FreeShippingMethod {
  requires: FreeShippingRequires;
  /** The minimum order amount, decimal text ('0.00' where it requires none). */
  minAmount: string;
}

/** A method of a zone as a test sets it: a Flat rate, or a Free shipping; either may be turned off (enabled). */
export type ShippingMethodSetup =
  { methodId: 'flat_rate'; enabled: boolean } | ({ methodId: 'free_shipping'; enabled: boolean } & FreeShippingMethod);

/** A method as the store keeps it: its instance_id, unique in the store. */
export type FakeShippingMethod = ShippingMethodSetup & { instanceId: number };

export interface FakeShippingZone {
  id: number;
  name: string;
  order: number;
  methods: FakeShippingMethod[];
}

/** The store's shipping (WooCommerce › Settings › Shipping), read by its REST routes and its checkout alike. */
export interface ShippingState {
  /** Zone 0 ("Locations not covered by your other zones") first, then the store's own zones in their order. */
  zones: FakeShippingZone[];
  /** General › Shipping location(s) is "Disable shipping & shipping calculations": nothing shipped or charged. */
  off: boolean;
  /** What the shipping routes answer instead while set (a store in trouble), or undefined. */
  failWith: number | undefined;
  nextZoneId: number;
  nextInstanceId: number;
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
  /** The store's shipping zones and their methods (a new store's zone 0 has none). */
  shipping: ShippingState;
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
