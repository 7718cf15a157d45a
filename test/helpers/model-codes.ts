// A store's reward codes as the reward reservations model test sees them, whichever store makes them: the
// in-memory FakeCodeStore, BigCommerce's code maker (adapters/bigcommerce/promotion-codes.ts) against the fake
// BigCommerce's Promotions API over HTTP, or WooCommerce's (adapters/woocommerce/coupon-codes.ts) against the fake
// WooCommerce's coupons over HTTP. All make, find, count and remove codes through StoreCodes, fail a
// make when told (before the code is made, or after with its answer lost), hold a make (a slow store), and let a
// checkout apply a code as their store would.
import { BigCommerceApi } from '../../adapters/bigcommerce/admin-api.ts';
import { bigCommercePromotionCodes } from '../../adapters/bigcommerce/promotion-codes.ts';
import { WooRestClient } from '../../adapters/woocommerce/admin-api.ts';
import { wooCouponCodes } from '../../adapters/woocommerce/coupon-codes.ts';
import type { DiscountCodeRequest, StoreCodes } from '../../src/core/platform-module.ts';
import type { FakeBigCommerce } from './fake-bigcommerce.ts';
import { codeRefusal, storeCart, useCode } from './fake-bigcommerce-checkout.ts';
import { failNextCreate, madeCode, promotionsOf } from './fake-bigcommerce-promotions.ts';
import { FakeCodeStore } from './fake-code-store.ts';
import type { FakeWooCommerce } from './fake-woocommerce.ts';
import { couponRefusal, couponsOf, failNextCouponCreate, madeCoupon, useCoupon } from './fake-woocommerce-coupons.ts';

export interface ModelCodes {
  readonly parts: StoreCodes;
  /** The next make throws: before anything is made, or after the code is made (its answer lost). */
  failMake: 'before' | 'after' | undefined;
  /** The next make is told to `asked`, then waits for `until` before it goes to the store (a slow store). */
  holdMake: { asked: () => void; until: Promise<void> } | undefined;
  /** Whether a checkout of this customer at `now` may apply the code. */
  usable(code: string, customerId: string, now: number): boolean;
  /** Codes a checkout could still apply (there, unused), expired or not, with the customer each was made for. */
  live(): Array<{ code: string; customerId: string }>;
  /** A checkout of the customer at `now` applies the code (the store counts a use). */
  use(code: string, customerId: string, now: number): void;
  /** What the store made of a code by its text (its uses, and whether it is gone since); undefined: never made. */
  made(code: string): { uses: number; removed: boolean } | undefined;
  /** The code's text as an order paid with it reports it (WooCommerce's in lower case). */
  orderCode(code: string): string;
}

export function inMemoryCodes(): ModelCodes {
  const fake = new FakeCodeStore();
  return {
    parts: fake.parts,
    get failMake() {
      return fake.failMake;
    },
    set failMake(fail) {
      fake.failMake = fail;
    },
    get holdMake() {
      return fake.holdMake;
    },
    set holdMake(hold) {
      fake.holdMake = hold;
    },
    usable: (code, customerId, now) => fake.usable(code, customerId, now) !== undefined,
    live: () => fake.live(),
    use(code, customerId, now) {
      const found = fake.usable(code, customerId, now);
      if (!found) throw new Error(`the store would not apply ${code}`);
      found.uses += 1;
    },
    made(code) {
      const found = [...fake.byId.values()].find((each) => each.code === code);
      return found && { uses: found.uses, removed: found.removed };
    },
    orderCode: (code) => code,
  };
}

/**
 * BigCommerce's code maker on a store of the fake BigCommerce (withPromotions installed). BigCommerce does not
 * keep a code to a customer: who each code was made for is remembered here, as the customer alone is shown it.
 */
export function bigCommerceCodes(fake: FakeBigCommerce, hash: string, accessToken: string): ModelCodes {
  const api = new BigCommerceApi({ storeHash: hash, accessToken, baseUrl: fake.url });
  const maker = bigCommercePromotionCodes(async (shop) => (shop === hash ? api : undefined));
  const customers = new Map<string, string>();
  const state = {
    failMake: undefined as ModelCodes['failMake'],
    holdMake: undefined as ModelCodes['holdMake'],
  };
  const codeOf = (text: string) => madeCode(fake, hash, text);
  // The order a code pays for: bcOrder's subtotal, in the store's currency, above any minimum the model's rewards have.
  const cart = (customerId: string, at: number) => ({ ...storeCart(fake, hash, customerId, '150.00'), at });
  return {
    parts: {
      ...maker,
      // Neither platform keeps a code to one customer, and both count a use with its order.
      forOneCustomer: false,
      usesCountedLate: false,
      readiness: async () => ({ ready: true }),
      make: async (request) => {
        const fail = state.failMake;
        state.failMake = undefined;
        const hold = state.holdMake;
        state.holdMake = undefined;
        customers.set(request.code, request.customerId);
        if (hold) {
          hold.asked();
          await hold.until;
        }
        // Before: the promotion is refused (nothing made). After: the code is made, the connection drops.
        if (fail) failNextCreate(fake, hash, { what: fail === 'before' ? 'promotion' : 'code', when: fail });
        return maker.make(request);
      },
    },
    get failMake() {
      return state.failMake;
    },
    set failMake(fail) {
      state.failMake = fail;
    },
    get holdMake() {
      return state.holdMake;
    },
    set holdMake(hold) {
      state.holdMake = hold;
    },
    usable: (code, customerId, now) =>
      customers.get(code) === customerId && codeRefusal(fake, hash, code, cart(customerId, now)) === undefined,
    live: () =>
      promotionsOf(fake, hash).flatMap((promotion) =>
        promotion.codes
          .filter((code) => code.current_uses === 0)
          .map((code) => ({ code: code.code, customerId: customers.get(code.code) ?? '' })),
      ),
    use(code, customerId, now) {
      if (!useCode(fake, hash, code, cart(customerId, now))) throw new Error(`BigCommerce would not apply ${code}`);
    },
    made(code) {
      const found = codeOf(code);
      return found && { uses: found.code.current_uses, removed: found.deleted };
    },
    orderCode: (code) => code,
  };
}

/**
 * WooCommerce's code maker on the fake WooCommerce (withCoupons installed), with a Read/Write key. WooCommerce keeps
 * a code to its customer by their e-mail, checked against the billing e-mail of the order: a checkout of a
 * customer here bills the e-mail their codes were made for. WooCommerce keeps codes in lower case: each code's text
 * as the bridge chose it is remembered here, with whom it was made for.
 */
export function wooCommerceCodes(
  fake: FakeWooCommerce,
  shop: string,
  keys: { key: string; secret: string },
): ModelCodes {
  const client = new WooRestClient({
    url: fake.url,
    consumerKey: keys.key,
    consumerSecret: keys.secret,
    outbound: { userAddress: false },
  });
  const maker = wooCouponCodes(async (asked) => (asked === shop ? client : undefined));
  const asked = new Map<string, Pick<DiscountCodeRequest, 'code' | 'customerId' | 'email'>>();
  const emails = new Map<string, string>();
  const state = {
    failMake: undefined as ModelCodes['failMake'],
    holdMake: undefined as ModelCodes['holdMake'],
  };
  /** The billing e-mail a customer's checkout types: theirs, as the bridge knows it. */
  const billing = (customerId: string) => emails.get(customerId) ?? `${customerId}@nobody.invalid`;
  return {
    parts: {
      ...maker,
      // Neither platform keeps a code to one customer, and both count a use with its order.
      forOneCustomer: false,
      usesCountedLate: false,
      readiness: async () => ({ ready: true }),
      make: async (request) => {
        const fail = state.failMake;
        state.failMake = undefined;
        const hold = state.holdMake;
        state.holdMake = undefined;
        asked.set(request.code.toLowerCase(), request);
        if (request.email) emails.set(request.customerId, request.email);
        if (hold) {
          hold.asked();
          await hold.until;
        }
        // Before: the coupon is refused (nothing made). After: it is made, the connection drops.
        if (fail) failNextCouponCreate(fake, fail);
        return maker.make(request);
      },
    },
    get failMake() {
      return state.failMake;
    },
    set failMake(fail) {
      state.failMake = fail;
    },
    get holdMake() {
      return state.holdMake;
    },
    set holdMake(hold) {
      state.holdMake = hold;
    },
    usable: (code, customerId, now) =>
      couponRefusal(fake, code, { billingEmail: billing(customerId), at: now }) === undefined,
    live: () =>
      couponsOf(fake)
        .filter((coupon) => coupon.status === 'publish' && coupon.usage_count === 0)
        .map((coupon) => {
          const request = asked.get(coupon.code);
          return { code: request?.code ?? coupon.code, customerId: request?.customerId ?? '' };
        }),
    use(code, customerId, now) {
      if (!useCoupon(fake, code, { billingEmail: billing(customerId), at: now }))
        throw new Error(`WooCommerce would not apply ${code}`);
    },
    made(code) {
      const found = madeCoupon(fake, code);
      return found && { uses: found.coupon.usage_count, removed: found.deleted };
    },
    // wc_format_coupon_code: an order's coupon_lines name the coupon as WooCommerce keeps it.
    orderCode: (code) => code.toLowerCase(),
  };
}
