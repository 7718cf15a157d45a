// A checkout on the fake BigCommerce applying a code to a cart (the promotions are fake-bigcommerce-promotions.ts's),
// by BigCommerce's documented rules, each refusal named:
// - the promotion and its code: status ENABLED, between start_date and end_date, under max_uses (the promotion's
//   and the code's), under the code's max_uses_per_customer (reference/promotions.v3.yml,
//   https://developer.bigcommerce.com/docs/rest-management/promotions);
// - minimum_spend, "Money ... in the store's default currency", a condition on the cart (promotions.v3.yml,
//   CartCondition): held against the cart's subtotal, which every checkout names;
// - currency_code: "Promotions only apply to orders in the specified transactional currency" ("*": any), and a
//   promotion in the default currency applies to the display currencies as well, which a cart pays in that default
//   (docs/store-operations/promotions, "Currency code"): held against the cart's transactional currency, which
//   every checkout names (the fake invents none);
// - one coupon per order: number_of_coupons_allowed_at_checkout, default 1, which "can only be modified by
//   enterprise accounts" (reference/promotion_settings.v3.yml); "BigCommerce supports only one coupon code per
//   checkout" (docs/integrations/hosted-analytics.mdx). The fake's stores are not enterprise ones: a cart that
//   holds a coupon takes no other;
// - can_be_used_with_other_promotions: "When set to false, only apply this promotion if there are no discounts
//   applied already, and stop executing other promotions if this promotion applies successfully"
//   (promotions.v3.yml): a code whose promotion does not combine is refused on a cart another promotion already
//   discounts, and no code applies on a cart discounted by a promotion that does not combine.
// Then current_uses counts the use on the code and on the promotion, and what it took off the order is recorded
// (takenOff), from BigCommerce's words on each action:
// - the rules run in order "until the first applicable one applies a discount successfully and the rest will be
//   skipped" (promotions.v3.yml, DraftCouponPromotion.rules): the first rule whose minimum_spend the cart meets;
// - cart_value "only applies to order subtotal, that is, line items in the cart, but not shipping or handling fees"
//   (https://developer.bigcommerce.com/docs/store-operations/promotions, "Actual discounting behavior"): a
//   fixed_amount takes that much off the subtotal (never more than it), a percentage_amount that share of it
//   (rounded to the cent: BigCommerce does not say how it rounds), at most maximum_allowed_discount_amount where
//   one is set ("the max limit is checked against the order discount value", MaximumAllowedDiscountAmount);
// - shipping with free_shipping "provides an additional shipping method called free shipping on the storefront
//   checkout flow" (same page, "Free shipping"): the customer who pays with the code takes it, and the cart's
//   shipping is what comes off. The fake's carts name no shipping zone, so it applies zone_ids "*" alone.
// Other actions and conditions (items, gift items, and/or) are not the bridge's: the fake's checkout throws.
import type { FakeBigCommerce } from './fake-bigcommerce-store.ts';
import type { SavedRule } from './fake-bigcommerce-promotion-rules.ts';
import { madeCode, promotionsOf, type FakeCouponCode, type FakePromotion } from './fake-bigcommerce-promotions.ts';

/** The cart a code is applied to at checkout. */
export interface Checkout {
  customerId: string;
  /** When the checkout happens (ms); now by default. */
  at?: number;
  /** The cart's subtotal in its currency ("42.00"): what a minimum_spend is held against. */
  subtotal: string;
  /** What the customer's shipping method costs ("8.50"): what a free shipping code saves them. */
  shipping: string;
  /** The cart's transactional currency (ISO 4217): what a promotion's currency_code is held against. */
  currency: string;
  /** Coupon codes the cart already holds. */
  coupons?: readonly string[];
  /** The store's automatic promotions already discounting the cart, by id. */
  discountedBy?: readonly number[];
}

/** number_of_coupons_allowed_at_checkout on a store that is not an enterprise one. */
const COUPONS_PER_ORDER = 1;

const cents = (amount: string) => Math.round(Number(amount) * 100);

function findCode(fake: FakeBigCommerce, hash: string, text: string) {
  for (const promotion of promotionsOf(fake, hash)) {
    const code = promotion.codes.find((each) => each.code.toUpperCase() === text.toUpperCase());
    if (code) return { promotion, code };
  }
  return undefined;
}

/** Why the promotion or its code cannot be used now by this customer, or undefined. */
function spent(promotion: FakePromotion, code: FakeCouponCode, checkout: Checkout): string | undefined {
  const at = checkout.at ?? Date.now();
  if (promotion.status !== 'ENABLED') return 'the promotion is not enabled';
  if (Date.parse(promotion.start_date) > at) return 'the promotion has not started';
  if (promotion.end_date !== null && Date.parse(promotion.end_date) <= at) return 'the promotion has ended';
  if (promotion.max_uses !== null && promotion.max_uses > 0 && promotion.current_uses >= promotion.max_uses)
    return 'the promotion is used up';
  if (code.max_uses > 0 && code.current_uses >= code.max_uses) return 'the code is used up';
  const mine = code.usesBy.get(checkout.customerId) ?? 0;
  if (code.max_uses_per_customer > 0 && mine >= code.max_uses_per_customer) return 'the customer has used the code up';
  return undefined;
}

/** Why this cart does not qualify: its subtotal, its currency, its other coupons and discounts; or undefined. */
function cartRefusal(fake: FakeBigCommerce, hash: string, promotion: FakePromotion, checkout: Checkout) {
  const minimum = promotion.rules
    .map((rule) => (rule.condition as { cart?: { minimum_spend?: string } } | undefined)?.cart?.minimum_spend)
    .find((spend) => spend !== undefined);
  if (minimum !== undefined && cents(checkout.subtotal) < cents(minimum)) return 'the order is below the minimum spend';
  if (promotion.currency_code !== '*' && promotion.currency_code !== checkout.currency)
    return `the promotion is for orders in ${promotion.currency_code}`;
  if ((checkout.coupons ?? []).length >= COUPONS_PER_ORDER) return 'the store allows one coupon per order';
  const others = (checkout.discountedBy ?? []).map((id) => {
    const found = promotionsOf(fake, hash).find((each) => each.id === id && each.redemption_type === 'AUTOMATIC');
    if (!found) throw new Error(`the store has no automatic promotion ${id} to discount the cart`);
    return found;
  });
  if (others.length > 0 && !promotion.can_be_used_with_other_promotions)
    return 'the promotion does not combine with the discounts already applied';
  if (others.some((other) => !other.can_be_used_with_other_promotions))
    return 'a discount already applied does not combine with other promotions';
  return undefined;
}

/** Why a checkout could not apply the code to this cart now, or undefined when it could. */
export function codeRefusal(fake: FakeBigCommerce, hash: string, text: string, checkout: Checkout): string | undefined {
  const found = findCode(fake, hash, text);
  if (!found) return 'no such code';
  return spent(found.promotion, found.code, checkout) ?? cartRefusal(fake, hash, found.promotion, checkout);
}

/** What a code took off one order: off its subtotal, and off its shipping (decimal text, "4.00"). */
export interface TakenOff {
  customerId: string;
  subtotal: string;
  shipping: string;
}

/** Each code's uses, in order (kept by the code's own object: a test reads them after the code is deleted). */
const taken = new WeakMap<FakeCouponCode, TakenOff[]>();

/** The cents a rule's action takes off the cart: off its subtotal, and off its shipping. */
function actionOff(rule: SavedRule, subtotal: number, shipping: number): { subtotal: number; shipping: number } {
  const { cart_value: value, shipping: free } = rule.action as {
    cart_value?: {
      discount: { fixed_amount?: string; percentage_amount?: string };
      maximum_allowed_discount_amount?: string;
    };
    shipping?: { free_shipping?: boolean; zone_ids: unknown };
  };
  if (value) {
    const { fixed_amount: fixed, percentage_amount: percentage } = value.discount;
    const off = fixed !== undefined ? cents(fixed) : Math.round((subtotal * Number(percentage)) / 100);
    const most = value.maximum_allowed_discount_amount;
    return { subtotal: Math.min(off, subtotal, most ? cents(most) : Infinity), shipping: 0 };
  }
  if (free) {
    if (free.zone_ids !== '*') throw new Error('the fake’s carts name no shipping zone: it applies zone_ids "*" alone');
    return { subtotal: 0, shipping: free.free_shipping === true ? shipping : 0 };
  }
  throw new Error(`the fake's checkout applies cart_value and shipping actions only: ${JSON.stringify(rule.action)}`);
}

/** What the promotion takes off this cart: its first rule whose condition the cart meets. */
function promotionOff(promotion: FakePromotion, checkout: Checkout): TakenOff {
  const subtotal = cents(checkout.subtotal);
  const money = (amount: number) => (amount / 100).toFixed(2);
  for (const rule of promotion.rules) {
    const { condition } = rule as { condition?: { cart?: Record<string, unknown> } };
    if (condition !== undefined && Object.keys(condition.cart ?? {}).some((key) => key !== 'minimum_spend'))
      throw new Error(`the fake's checkout holds a cart to minimum_spend only: ${JSON.stringify(condition)}`);
    const minimum = condition?.cart?.minimum_spend as string | undefined;
    if (minimum !== undefined && subtotal < cents(minimum)) continue;
    const off = actionOff(rule, subtotal, cents(checkout.shipping));
    return { customerId: checkout.customerId, subtotal: money(off.subtotal), shipping: money(off.shipping) };
  }
  return { customerId: checkout.customerId, subtotal: '0.00', shipping: '0.00' };
}

/** A checkout applies the code as BigCommerce would: whether it applied (then its use and what it took off count). */
export function useCode(fake: FakeBigCommerce, hash: string, text: string, checkout: Checkout): boolean {
  if (codeRefusal(fake, hash, text, checkout) !== undefined) return false;
  const { promotion, code } = findCode(fake, hash, text)!;
  code.current_uses += 1;
  code.usesBy.set(checkout.customerId, (code.usesBy.get(checkout.customerId) ?? 0) + 1);
  promotion.current_uses += 1;
  taken.set(code, [...(taken.get(code) ?? []), promotionOff(promotion, checkout)]);
  return true;
}

/** What each order that paid with the code took off, in order; none for a code never used (or never made). */
export function takenOff(fake: FakeBigCommerce, hash: string, text: string): TakenOff[] {
  const made = madeCode(fake, hash, text);
  return made ? (taken.get(made.code) ?? []) : [];
}

/** A cart in the store's own currency, for a customer, of that subtotal, shipped at that cost (free by default). */
export function storeCart(
  fake: FakeBigCommerce,
  hash: string,
  customerId: string,
  subtotal: string,
  shipping = '0.00',
): Checkout {
  const store = fake.stores.get(hash);
  if (!store) throw new Error(`the fake BigCommerce has no store ${hash}`);
  return { customerId, subtotal, shipping, currency: store.currency };
}
