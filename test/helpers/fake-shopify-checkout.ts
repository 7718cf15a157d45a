// The fake Shopify's checkout paying with a code discount (fake-shopify-discounts.ts holds them), as Shopify documents
// it, each rule from the page it names under https://shopify.dev/docs/api/admin-graphql/2026-10/:
// - a code applies within its dates, below its usage limit, for a customer in its context, on a subtotal at least
//   its minimum (input-objects/DiscountCodeBasicInput and DiscountCodeFreeShippingInput: startsAt, endsAt,
//   usageLimit, context; objects/DiscountMinimumSubtotal: "The minimum subtotal that's required for the discount to
//   be applied.");
// - a free shipping code applies to the shipping destinations it names ("The shipping destinations where the free
//   shipping discount can be applied", input-objects/DiscountCodeFreeShippingInput, destination). The fake's carts
//   name no destination: a code to every country (DiscountCountryAll) applies, one to a list of countries does not;
// - what it takes off: a DiscountAmount its amount (the subtotal at most), a DiscountPercentage that share of the
//   subtotal ("Value must be between 0.00 - 1.00", input-objects/DiscountCustomerGetsValueInput), to the cent; free
//   shipping the cart's shipping, as no maximumShippingPrice is set ("To apply the discount to all shipping rates,
//   specify `null`.", input-objects/DiscountCodeFreeShippingInput);
// - with other codes on the same cart only when each combines with the other's class (objects/DiscountCombinesWith:
//   orderDiscounts "Whether the discount combines with the order discount class.", shippingDiscounts likewise), and
//   two shipping discounts never: the classes that combine are "order discounts with free shipping discounts,
//   product discounts ... with free shipping discounts, product discounts with other product discounts"
//   (help.shopify.com/manual/discounts/combining-discounts, which DiscountCombinesWithInput links to); two order
//   discounts combine when both say so (DiscountCombinesWith.orderDiscounts on an order discount).
// The checkout's own limit counts every use at once (`uses`): Shopify's docs say the async count may lag the actual
// usage, not that the limit does.
import {
  discountByCode,
  discountClass,
  type DiscountShop,
  type FakeCodeDiscount,
  type TakenOff,
} from './fake-shopify-discounts.ts';

/** The cart a code is applied to at checkout. */
export interface Checkout {
  customerId: string;
  /** The cart's subtotal, before discounts, in the shop's currency ("42.00"); it ships at the shop's shippingRate. */
  subtotal: string;
  /** Other discount codes applied to the same cart, of any class. */
  otherCodes?: readonly string[];
}

const cents = (amount: string) => Math.round(Number(amount) * 100);
const money = (inCents: number) => (inCents / 100).toFixed(2);

/** The DiscountCombinesWith field that says whether a code combines with discounts of that one's class. */
const withClassOf = (discount: FakeCodeDiscount) =>
  discountClass(discount) === 'SHIPPING' ? 'shippingDiscounts' : 'orderDiscounts';

/** Whether two codes apply to one cart together: each combines with the other's class; never two shipping ones. */
function combine(one: FakeCodeDiscount, other: FakeCodeDiscount): boolean {
  if (discountClass(one) === 'SHIPPING' && discountClass(other) === 'SHIPPING') return false;
  return one.combinesWith[withClassOf(other)] && other.combinesWith[withClassOf(one)];
}

/** Why the checkout refuses the code for that cart, or undefined when it applies it. */
export function codeRefusal(shop: DiscountShop, code: string, checkout: Checkout, nowMs: number): string | undefined {
  const discount = discountByCode(shop, code);
  if (!discount) return 'no such code';
  if (Date.parse(discount.startsAt) > nowMs) return 'not started';
  if (discount.endsAt !== null && Date.parse(discount.endsAt) <= nowMs) return 'ended';
  if (discount.usageLimit !== null && discount.uses >= discount.usageLimit) return 'used up';
  if (discount.customerIds && !discount.customerIds.includes(`gid://shopify/Customer/${checkout.customerId}`))
    return 'not for this customer';
  if (discount.minimumSubtotal !== null && cents(checkout.subtotal) < cents(discount.minimumSubtotal))
    return 'below its minimum subtotal';
  if (discount.gives.kind === 'shipping' && !discount.gives.allCountries) return 'not for where the cart ships';
  for (const other of checkout.otherCodes ?? []) {
    const with_ = discountByCode(shop, other);
    if (!with_) throw new Error(`the cart's other code ${other} is not one of the shop's`);
    if (!combine(discount, with_)) return `does not combine with ${other}`;
  }
  return undefined;
}

/** What the code takes off that cart: off its subtotal, off its shipping. */
function takenOff(shop: DiscountShop, discount: FakeCodeDiscount, checkout: Checkout): TakenOff {
  const subtotal = cents(checkout.subtotal);
  switch (discount.gives.kind) {
    case 'amount':
      return { subtotal: money(Math.min(subtotal, cents(discount.gives.amount))), shipping: '0.00' };
    case 'percentage':
      return { subtotal: money(Math.round(subtotal * discount.gives.percentage)), shipping: '0.00' };
    case 'shipping':
      return { subtotal: '0.00', shipping: money(cents(shop.shippingRate)) };
  }
}

/**
 * An order paying with a code, as Shopify's checkout allows it (codeRefusal); false when it refuses. Counts the use
 * and keeps what it took off (the discount's `taken`).
 */
export function useCode(shop: DiscountShop, code: string, checkout: Checkout, nowMs: number): boolean {
  if (codeRefusal(shop, code, checkout, nowMs) !== undefined) return false;
  const discount = discountByCode(shop, code)!;
  discount.uses++;
  discount.taken.push(takenOff(shop, discount, checkout));
  if (shop.usesCountedAtOnce) discount.asyncUsageCount = discount.uses;
  return true;
}

/** Shopify's asynchronous count runs: every use so far lands in asyncUsageCount. */
export function countUses(shop: DiscountShop): void {
  for (const discount of shop.codeDiscounts.values()) discount.asyncUsageCount = discount.uses;
}
