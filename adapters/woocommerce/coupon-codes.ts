// A reward's discount code on a WooCommerce store (capabilities/codes.ts): a coupon made with the REST API v3
// (POST /wp-json/wc/v3/coupons; WooCommerce's WC_REST_Coupons_V2_Controller, which v3 extends): the reward's
// benefit (couponDiscount: an amount or a percent off the cart, or free shipping), its minimum order
// (minimum_amount), used once (usage_limit 1) and once by a customer (usage_limit_per_user 1), always alone in its
// order (individual_use: WooCommerce's product and shipping discounts are coupons too, and a reward that "combines"
// would let two of the bridge's codes into one order, whose one redeem is one code's), expiring at the reward's
// expiry. The coupon's id is the code's platformId; a coupon is found again by its text (GET /coupons?code=, which
// WooCommerce answers by wc_get_coupon_id_by_code: it stores codes in lower case).
// For one customer: email_restrictions holds the customer's e-mail. WooCommerce checks it only when the order is
// placed (WC_Cart::check_customer_coupons), against the billing e-mail typed at checkout (and the signed-in
// account's e-mail): anyone who typed the customer's e-mail as their billing e-mail could use it. The code's text,
// long and random, is shown only to its customer. A customer known to the account by phone alone gets a coupon
// without it.
// The expiry goes in date_expires as ISO 8601 with Z and whole seconds: WooCommerce reads a string in that form
// at its offset (WC_Data::set_date_prop) and any other in the site's timezone; date_expires_gmt is in the schema
// but WC_Coupon has no setter for it, so a create ignores it.
// Making coupons needs a Read/Write key whose user may manage coupons: a read key is refused at authentication
// ("does not have write permissions"), a user without the capability with 403 woocommerce_rest_cannot_create;
// either way the make is 'not-allowed', in words.
import { z } from 'zod';
import type { DiscountCodeRequest, MadeCode, StoreCodes } from '../../src/core/platform-module.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import { WooRestError, type WooRestClient } from './admin-api.ts';
import { whyFreeShippingFails } from './shipping-zones.ts';

/** What the merchant reads when the store's key may not make coupons, unless the caller says how to fix it. */
const NOT_ALLOWED =
  'the bridge may not make coupons in your store: its WooCommerce key is read-only, or its user may not manage coupons; connect the store again and approve Read/Write access as an administrator';

const couponShape = z.object({ id: z.number().int(), code: z.string(), usage_count: z.number().int().nullable() });
const couponsShape = z.array(couponShape);

type Answer = { status: number; body: unknown };

/** WooCommerce's error code and words ({code, message, data}), for the error a person reads. */
function wordsOf(body: unknown): string {
  const record = (body ?? {}) as Record<string, unknown>;
  const code = typeof record.code === 'string' ? ` ${record.code.slice(0, 100)}` : '';
  const message = typeof record.message === 'string' ? `: ${record.message.slice(0, 200)}` : '';
  return `${code}${message}`;
}

function refused(answer: Answer, what: string): WooRestError {
  return new WooRestError(
    `WooCommerce refused to ${what} (${answer.status}${wordsOf(answer.body)})`,
    answer.status >= 500 ? 'unavailable' : 'answer',
    answer.status,
  );
}

function parsed<T>(schema: z.ZodType<T>, answer: Answer, what: string): T {
  const result = schema.safeParse(answer.body);
  if (!result.success)
    throw new WooRestError(
      `WooCommerce answered ${what} in a shape the bridge does not know (${answer.status})`,
      'answer',
      answer.status,
    );
  return result.data;
}

/** A key that got in but may not write, or whose user may not manage coupons: a new key is the fix, not a retry. */
const mayNotWrite = (error: unknown) =>
  error instanceof WooRestError && (error.code === 'read_only' || (error.code === 'refused' && error.status === 403));

/** ISO 8601 in whole seconds with Z: the one string form WooCommerce reads at its own offset, not the site's zone. */
const wooInstant = (iso: string) => `${new Date(iso).toISOString().slice(0, 19)}Z`;

/** WooCommerce keeps coupon codes in lower case (wc_format_coupon_code); a code is the same code in any case. */
const sameCode = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * What the merchant's Rewards says of a free-shipping reward on WooCommerce. WooCommerce makes the coupon, but its
 * free_shipping only "enable[s] free shipping" where "the free shipping method requires a coupon"
 * (woocommerce.github.io/woocommerce-rest-api-docs, Coupons, free_shipping; woocommerce.com/document/free-shipping,
 * "Free shipping requires: A valid free shipping coupon"): a zone without it takes the coupon and charges shipping.
 * While no zone has it the save is refused (whyKindFails, shipping-zones.ts); once one has, this note says the rest.
 */
export const WOO_FREE_SHIPPING_NOTE =
  'Free shipping codes work where the customer’s shipping zone offers Free shipping that requires a coupon: in WooCommerce › Settings › Shipping, set it in each shipping zone your customers order from.';

/** A coupon's discount, as the REST API's coupon properties name it. */
interface CouponDiscount {
  discount_type: 'fixed_cart' | 'percent';
  /** Decimal text: the money off, or the percent ("Should always be numeric, even if setting a percentage"). */
  amount: string;
  free_shipping: boolean;
}

/**
 * A coupon's discount for a benefit (woocommerce.github.io/woocommerce-rest-api-docs, Coupons: discount_type
 * percent|fixed_cart|fixed_product, amount, free_shipping). The return type makes the switch exhaustive: a new kind
 * of benefit fails to compile here until it is made.
 */
function couponDiscount(benefit: RewardBenefit): CouponDiscount {
  switch (benefit.kind) {
    case 'amount_off':
      return { discount_type: 'fixed_cart', amount: benefit.amount, free_shipping: false };
    case 'percent_off':
      // Off the items, not the shipping (woocommerce.com/document/coupon-management, Percentage discount).
      return { discount_type: 'percent', amount: String(benefit.percent), free_shipping: false };
    case 'free_shipping':
      // Nothing off the items, the shipping opened: the docs' own free-shipping coupon is fixed_cart, 0.00 and
      // free_shipping true (List all coupons' example).
      return { discount_type: 'fixed_cart', amount: '0', free_shipping: true };
  }
}

export function wooCouponCodes(
  restFor: (shop: string) => Promise<WooRestClient | undefined>,
  /** Why this store's key may not make coupons, and what the merchant does about it (its readiness's words). */
  whyNotAllowed?: (shop: string) => Promise<string | undefined>,
): Omit<StoreCodes, 'readiness' | 'usesCountedLate'> {
  const rest = async (shop: string) => {
    const found = await restFor(shop);
    if (!found) throw new WooRestError(`the bridge has no access to the WooCommerce store ${shop}`, 'refused');
    return found;
  };
  const notAllowed = async (shop: string): Promise<MadeCode> => ({
    kind: 'not-allowed',
    why: (await whyNotAllowed?.(shop).catch(() => undefined)) ?? NOT_ALLOWED,
  });

  return {
    // email_restrictions is checked against the billing e-mail anyone may type: not kept to one customer.
    forOneCustomer: false,
    // Every kind is made; free shipping takes a store setting the merchant reads about (WOO_FREE_SHIPPING_NOTE),
    // and is refused on save while no shipping zone has it (whyKindFails). The other kinds need no setting.
    notMade: {},
    setUpFirst: { free_shipping: WOO_FREE_SHIPPING_NOTE },
    whyKindFails: (shop, kind) =>
      kind === 'free_shipping' ? whyFreeShippingFails(() => rest(shop)) : Promise.resolve(undefined),

    async make(request: DiscountCodeRequest): Promise<MadeCode> {
      const client = await rest(request.shop);
      const coupon = {
        code: request.code,
        ...couponDiscount(request.benefit),
        // The merchant reads why the coupon is there; the code names it in the coupons' list.
        description: request.title,
        // Never beside another coupon, the bridge's own included, whether or not the reward combines: an order
        // pays with at most one bridge code.
        individual_use: true,
        usage_limit: 1,
        usage_limit_per_user: 1,
        date_expires: wooInstant(request.expiresAt),
        ...(request.minimumOrder !== null ? { minimum_amount: request.minimumOrder } : {}),
        ...(request.email ? { email_restrictions: [request.email] } : {}),
      };
      let answer;
      try {
        answer = await client.json('POST', 'coupons', { json: coupon });
      } catch (error) {
        if (mayNotWrite(error)) return notAllowed(request.shop);
        throw error;
      }
      if (answer.status !== 201 && answer.status !== 200) throw refused(answer, 'make a reward’s coupon');
      return { kind: 'made', platformId: String(parsed(couponShape, answer, 'the coupon it made').id) };
    },

    async find(shop: string, code: string): Promise<string | undefined> {
      const answer = await (await rest(shop)).json('GET', 'coupons', { searchParams: { code } });
      if (answer.status !== 200) throw refused(answer, 'look for a reward’s coupon');
      // Only a coupon of this very code is its (a filter that matched something else is not).
      const found = parsed(couponsShape, answer, 'the coupons with a code').find((each) => sameCode(each.code, code));
      return found && String(found.id);
    },

    async uses(shop: string, platformId: string): Promise<number | undefined> {
      const answer = await (await rest(shop)).json('GET', `coupons/${encodeURIComponent(platformId)}`);
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw refused(answer, 'read a reward’s coupon');
      return parsed(couponShape, answer, 'a coupon').usage_count ?? 0;
    },

    async remove(shop: string, platformId: string): Promise<void> {
      // force: deleted for good, not moved to the bin.
      const answer = await (
        await rest(shop)
      ).json('DELETE', `coupons/${encodeURIComponent(platformId)}`, {
        searchParams: { force: 'true' },
      });
      // One already gone is removed.
      if (answer.status !== 200 && answer.status !== 404) throw refused(answer, 'delete a reward’s coupon');
    },
  };
}
