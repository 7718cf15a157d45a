// A reward's discount codes on WooCommerce against the fake WooCommerce's coupons over HTTP: each code is a coupon
// of the reward's benefit (an amount or a percent off the cart, or free shipping), its minimum, one use, for the
// customer's e-mail, expiring at the code's expiry even where the site's clock is not GMT; an order placed with it
// goes through once, only with that billing e-mail, not after its expiry, and takes off what the reward gives (the
// shipping only where the store's zone offers Free shipping for a coupon); it is found again by its text
// (WooCommerce keeps codes in lower case), its uses are WooCommerce's count, and removing it deletes it (twice is
// fine). A read-only key, or a key whose user may not manage coupons, is told in words to connect again; a make
// whose answer was lost leaves a coupon `find` finds; a revoked key's refusal says the store no longer lets the
// bridge in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WooRestClient } from '../../adapters/woocommerce/admin-api.ts';
import { WOO_FREE_SHIPPING_NOTE, wooCouponCodes } from '../../adapters/woocommerce/coupon-codes.ts';
import type { DiscountCodeRequest } from '../../src/core/platform-module.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import {
  couponsOf,
  failNextCouponCreate,
  madeCoupon,
  placeOrder,
  refuseCoupons,
  setFreeShipping,
  setSiteOffset,
  useCoupon,
  withCoupons,
  type FreeShippingMethod,
} from '../helpers/fake-woocommerce-coupons.ts';

const SHOP = 'coupons.example';
const HOUR = 3_600_000;
const EMAIL = 'Ada.Lovelace@Example.com';

let fake: FakeWooCommerce;
let made = 0;

beforeAll(async () => {
  fake = withCoupons(await startFakeWooCommerce({ consumerKey: 'ck_rw', consumerSecret: 'cs_rw' }));
  fake.keys.set('ck_read', { keyId: 90, consumerSecret: 'cs_read', permissions: 'read', description: 'read key' });
});
afterAll(() => fake.close());

const codesWith = (key: string, secret: string, why?: string) => {
  let client: WooRestClient | undefined;
  return wooCouponCodes(
    async (shop) => {
      if (shop !== SHOP) return undefined;
      client ??= new WooRestClient({
        url: fake.url,
        consumerKey: key,
        consumerSecret: secret,
        outbound: { userAddress: false },
      });
      return client;
    },
    why === undefined ? undefined : async () => why,
  );
};
const codes = codesWith('ck_rw', 'cs_rw');
/** The store's REST API with the bridge's key: a coupon as WooCommerce answers it. */
const restClient = () =>
  new WooRestClient({ url: fake.url, consumerKey: 'ck_rw', consumerSecret: 'cs_rw', outbound: { userAddress: false } });
const readBack = async (id: string) => (await restClient().json('GET', `coupons/${id}`)).body;

function request(change: Partial<DiscountCodeRequest> = {}): DiscountCodeRequest {
  const now = Date.now();
  return {
    shop: SHOP,
    customerId: '42',
    email: EMAIL,
    code: `LB-TESTCODE${String(++made).padStart(8, '0')}`,
    title: 'Loyalty reward: 500 points',
    benefit: { kind: 'amount_off' as const, amount: '5.00' },
    minimumOrder: null,
    startsAt: new Date(now - 1_000).toISOString(),
    expiresAt: new Date(now + 24 * HOUR).toISOString(),
    combinesWithOthers: false,
    ...change,
  };
}

async function madeId(asked: DiscountCodeRequest): Promise<string> {
  const answer = await codes.make(asked);
  if (answer.kind !== 'made') throw new Error(`not made: ${answer.why}`);
  return answer.platformId;
}
const coupon = (id: string) => couponsOf(fake).find((each) => String(each.id) === id);
const checkout = (change: Partial<Parameters<typeof useCoupon>[2]> = {}) => ({ billingEmail: EMAIL, ...change });

describe('WooCommerce coupon codes', () => {
  it('keeps each code to one customer, as WooCommerce can', () => {
    // Restricted to her e-mail, but WooCommerce checks it against the billing e-mail anyone may type: the merchant's
    // page does not say it is hers alone.
    expect(codes.forOneCustomer).toBe(false);
  });

  it('makes a fixed-cart coupon of the reward, used once, alone, for the customer’s e-mail, naming the points', async () => {
    const asked = request({ minimumOrder: '20.00', benefit: { kind: 'amount_off' as const, amount: '7.50' } });
    const saved = coupon(await madeId(asked))!;
    expect(saved).toMatchObject({
      code: asked.code.toLowerCase(),
      discount_type: 'fixed_cart',
      amount: '7.50',
      minimum_amount: '20.00',
      usage_limit: 1,
      usage_limit_per_user: 1,
      individual_use: true,
      email_restrictions: [EMAIL.toLowerCase()],
      description: expect.stringContaining('500 points'),
      status: 'publish',
    });
    // Whole seconds: the expiry is at most a second before the reservation's, never after it.
    expect(Date.parse(asked.expiresAt) - saved.expires!).toBeGreaterThanOrEqual(0);
    expect(Date.parse(asked.expiresAt) - saved.expires!).toBeLessThan(1_000);
  });

  it('never lets a code into an order beside another coupon, and makes one without a minimum or e-mail unrestricted', async () => {
    // WooCommerce's product and shipping discounts are coupons too: a reward that "combines" would let two of the
    // bridge's codes into one order, whose one redeem is one code's.
    const saved = coupon(await madeId(request({ combinesWithOthers: true, email: undefined })))!;
    expect(saved.individual_use).toBe(true);
    expect(saved.minimum_amount).toBe('0');
    expect(saved.email_restrictions).toEqual([]);
  });

  it('expires the coupon at the code’s expiry on a site whose clock is not GMT', async () => {
    setSiteOffset(fake, 5);
    try {
      const asked = request({ expiresAt: new Date(Date.now() + 2 * HOUR).toISOString() });
      await madeId(asked);
      const expiry = Date.parse(asked.expiresAt);
      expect(useCoupon(fake, asked.code, checkout({ at: expiry + 2_000 }))).toBe(false);
      expect(useCoupon(fake, asked.code, checkout({ at: expiry - 2_000 }))).toBe(true);
    } finally {
      setSiteOffset(fake, 0);
    }
  });

  it('lets an order with the customer’s billing e-mail use the code once, not twice, and not below its minimum', async () => {
    const asked = request({ minimumOrder: '20.00' });
    await madeId(asked);
    expect(useCoupon(fake, asked.code, checkout({ billingEmail: 'someone.else@example.com' }))).toBe(false);
    expect(useCoupon(fake, asked.code, checkout({ subtotal: '10.00' }))).toBe(false);
    // WooCommerce compares e-mails in lower case, and the code in any case.
    expect(useCoupon(fake, asked.code.toLowerCase(), checkout({ billingEmail: EMAIL.toUpperCase() }))).toBe(true);
    expect(useCoupon(fake, asked.code, checkout({ subtotal: '25.00' }))).toBe(false);
  });

  it('refuses the code for an order placed after its expiry', async () => {
    const asked = request();
    await madeId(asked);
    expect(useCoupon(fake, asked.code, checkout({ at: Date.parse(asked.expiresAt) + 1_000 }))).toBe(false);
    expect(useCoupon(fake, asked.code, checkout())).toBe(true);
  });

  it('finds a code by its text in any case, and nothing for a text the store does not have', async () => {
    const asked = request();
    const id = await madeId(asked);
    await expect(codes.find(SHOP, asked.code)).resolves.toBe(id);
    await expect(codes.find(SHOP, asked.code.toLowerCase())).resolves.toBe(id);
    await expect(codes.find(SHOP, `${asked.code}X`)).resolves.toBeUndefined();
  });

  it('refuses a second coupon of a code the store has', async () => {
    const asked = request();
    await madeId(asked);
    await expect(codes.make({ ...asked, email: 'other@example.com' })).rejects.toThrow(
      /woocommerce_rest_coupon_code_already_exists/,
    );
    expect(couponsOf(fake).filter((each) => each.code === asked.code.toLowerCase())).toHaveLength(1);
  });

  it("reads WooCommerce's count of the code's uses", async () => {
    const asked = request();
    const id = await madeId(asked);
    await expect(codes.uses(SHOP, id)).resolves.toBe(0);
    useCoupon(fake, asked.code, checkout());
    await expect(codes.uses(SHOP, id)).resolves.toBe(1);
  });

  it('removes the coupon for good, so no order can use it; removing it again is fine', async () => {
    const asked = request();
    const id = await madeId(asked);
    await codes.remove(SHOP, id);
    expect(coupon(id)).toBeUndefined();
    expect(madeCoupon(fake, asked.code)?.deleted).toBe(true);
    expect(useCoupon(fake, asked.code, checkout())).toBe(false);
    await expect(codes.uses(SHOP, id)).resolves.toBeUndefined();
    await expect(codes.find(SHOP, asked.code)).resolves.toBeUndefined();
    await expect(codes.remove(SHOP, id)).resolves.toBeUndefined();
  });

  it('answers not-allowed, in words, for a read-only key, and makes nothing', async () => {
    const before = couponsOf(fake).length;
    await expect(codesWith('ck_read', 'cs_read').make(request())).resolves.toEqual({
      kind: 'not-allowed',
      why: expect.stringMatching(/connect the store again.*Read\/Write/),
    });
    await expect(
      codesWith('ck_read', 'cs_read', 'connect again with a Read/Write key').make(request()),
    ).resolves.toEqual({ kind: 'not-allowed', why: 'connect again with a Read/Write key' });
    expect(couponsOf(fake).length).toBe(before);
  });

  it('answers not-allowed for a key whose user may not manage coupons (403 woocommerce_rest_cannot_create)', async () => {
    const before = couponsOf(fake).length;
    refuseCoupons(fake, true);
    try {
      await expect(codes.make(request())).resolves.toMatchObject({ kind: 'not-allowed' });
    } finally {
      refuseCoupons(fake, false);
    }
    expect(couponsOf(fake).length).toBe(before);
  });

  it('throws, with no secret in its words, for a key WooCommerce no longer knows', async () => {
    const error = await codesWith('ck_gone', 'cs_gone_secret')
      .make(request())
      .then(() => undefined)
      .catch((thrown: unknown) => thrown as Error);
    expect(error?.message).toMatch(/refused the consumer key/);
    expect(error?.message).not.toMatch(/cs_gone_secret/);
  });

  it('says the store no longer lets the bridge in for a revoked key, and not for a key that may not manage coupons', async () => {
    const asked = request();
    const made = await codes.make(asked);
    if (made.kind !== 'made') throw new Error(`not made: ${made.kind}`);
    const caught = (promise: Promise<unknown>) => promise.then(() => undefined).catch((error: unknown) => error);
    // The merchant revoked the key in WooCommerce › Settings › Advanced › REST API: the code sweeper lets go the
    // points of codes that expired (code-sweeper.ts) rather than hold them for good.
    const revoked = await caught(codesWith('ck_gone', 'cs_gone').uses(SHOP, made.platformId));
    expect(revoked).toMatchObject({ accessGone: true });
    refuseCoupons(fake, true);
    try {
      // The key still gets in, only its user may not: the merchant can mend it, so nothing is given up.
      const forbidden = await caught(codes.uses(SHOP, made.platformId));
      expect(forbidden).toMatchObject({ accessGone: false, status: 403 });
    } finally {
      refuseCoupons(fake, false);
    }
    await expect(codes.uses(SHOP, made.platformId)).resolves.toBe(0);
  });

  it('throws when the make fails, and the coupon of a make whose answer was lost is found and removed', async () => {
    const refusedAsked = request();
    failNextCouponCreate(fake, 'before');
    // A store that answered 500 is only down now: the code sweeper asks it again rather than give its points up.
    await expect(codes.make(refusedAsked)).rejects.toMatchObject({
      message: expect.stringMatching(/WooCommerce/),
      transient: true,
    });
    await expect(codes.find(SHOP, refusedAsked.code)).resolves.toBeUndefined();

    const lostAsked = request();
    failNextCouponCreate(fake, 'after');
    await expect(codes.make(lostAsked)).rejects.toThrow(/WooCommerce/);
    const found = await codes.find(SHOP, lostAsked.code);
    expect(found).toBeDefined();
    await codes.remove(SHOP, found!);
    expect(useCoupon(fake, lostAsked.code, checkout())).toBe(false);
  });

  it('throws for a store the bridge has no access to', async () => {
    await expect(codes.make(request({ shop: 'other.example' }))).rejects.toMatchObject({
      message: expect.stringMatching(/no access/),
      transient: false,
    });
  });
});

/** Each kind of reward, and the coupon WooCommerce answers for it (woocommerce-rest-api-docs, Coupons). */
const KINDS: Array<{ benefit: RewardBenefit; coupon: Record<string, unknown> }> = [
  {
    benefit: { kind: 'amount_off', amount: '7.50' },
    coupon: { discount_type: 'fixed_cart', amount: '7.50', free_shipping: false },
  },
  {
    benefit: { kind: 'percent_off', percent: 10 },
    coupon: { discount_type: 'percent', amount: '10.00', free_shipping: false },
  },
  { benefit: { kind: 'free_shipping' }, coupon: { discount_type: 'fixed_cart', amount: '0.00', free_shipping: true } },
];
/** A cart of 64.00 shipped for 4.90 (a Flat rate). */
const CART_64 = { subtotal: '64.00', shipping: '4.90' };

describe('WooCommerce coupon codes of each kind of reward', () => {
  it('makes every kind (free shipping with a note on the merchant’s page, not refused)', () => {
    expect(codes.notMade).toEqual({});
    expect(codes.setUpFirst).toEqual({ free_shipping: WOO_FREE_SHIPPING_NOTE });
  });

  it.each(KINDS)('makes a $benefit.kind coupon, used once, alone, for her, with its minimum', async (kind) => {
    const asked = request({ benefit: kind.benefit, minimumOrder: '20.00' });
    await expect(readBack(await madeId(asked))).resolves.toMatchObject({
      code: asked.code.toLowerCase(),
      ...kind.coupon,
      minimum_amount: '20.00',
      usage_limit: 1,
      usage_limit_per_user: 1,
      individual_use: true,
      email_restrictions: [EMAIL.toLowerCase()],
      date_expires_gmt: new Date(asked.expiresAt).toISOString().slice(0, 19),
      status: 'publish',
    });
  });

  it.each(KINDS)('finds a $benefit.kind coupon whose answer was lost, counts its use, and removes it', async (kind) => {
    const asked = request({ benefit: kind.benefit });
    failNextCouponCreate(fake, 'after');
    await expect(codes.make(asked)).rejects.toThrow(/WooCommerce/);
    const id = await codes.find(SHOP, asked.code);
    expect(id).toBeDefined();
    await expect(codes.uses(SHOP, id!)).resolves.toBe(0);
    expect(useCoupon(fake, asked.code, checkout())).toBe(true);
    await expect(codes.uses(SHOP, id!)).resolves.toBe(1);
    await codes.remove(SHOP, id!);
    expect(madeCoupon(fake, asked.code)?.deleted).toBe(true);
    await expect(codes.find(SHOP, asked.code)).resolves.toBeUndefined();
  });

  it('takes off the amount, a tenth of the items, or the shipping where the zone offers Free shipping for a coupon', async () => {
    const paid = async (benefit: RewardBenefit) => {
      const asked = request({ benefit });
      await madeId(asked);
      return placeOrder(fake, asked.code, checkout(CART_64));
    };
    setFreeShipping(fake, { requires: 'coupon', minAmount: '0.00' });
    try {
      const shipped = { shippingOff: '0.00', shippingTotal: '4.90' };
      await expect(paid({ kind: 'amount_off', amount: '7.50' })).resolves.toMatchObject({
        discount: '7.50',
        ...shipped,
      });
      // The share is of the items alone: 10% of 64.00, the shipping charged in full.
      await expect(paid({ kind: 'percent_off', percent: 10 })).resolves.toMatchObject({ discount: '6.40', ...shipped });
      await expect(paid({ kind: 'free_shipping' })).resolves.toMatchObject({
        discount: '0.00',
        shippingOff: '4.90',
        shippingTotal: '0.00',
      });
    } finally {
      setFreeShipping(fake, null);
    }
  });

  it('charges the shipping, and counts the use, for a free-shipping coupon where no Free shipping needs one', async () => {
    // Why the merchant's Rewards says how to set the zone (WOO_FREE_SHIPPING_NOTE): WooCommerce takes the coupon.
    const methods: Array<FreeShippingMethod | null> = [null, { requires: 'min_amount', minAmount: '100.00' }];
    try {
      for (const method of methods) {
        setFreeShipping(fake, method);
        const asked = request({ benefit: { kind: 'free_shipping' } });
        const id = await madeId(asked);
        expect(placeOrder(fake, asked.code, checkout(CART_64))).toMatchObject({
          shippingOff: '0.00',
          shippingTotal: '4.90',
        });
        await expect(codes.uses(SHOP, id)).resolves.toBe(1);
      }
    } finally {
      setFreeShipping(fake, null);
    }
  });

  it('is refused by the store, as WooCommerce refuses it, a coupon of a discount_type it does not know', async () => {
    const answer = await restClient().json('POST', 'coupons', {
      json: { code: 'lb-unknown-type', discount_type: 'free_shipping', amount: '0' },
    });
    const why = 'discount_type is not one of percent, fixed_cart, and fixed_product.';
    expect(answer).toMatchObject({
      status: 400,
      body: {
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): discount_type',
        data: {
          status: 400,
          params: { discount_type: why },
          details: { discount_type: { code: 'rest_not_in_enum', message: why, data: null } },
        },
      },
    });
    expect(madeCoupon(fake, 'lb-unknown-type')).toBeUndefined();
  });
});
