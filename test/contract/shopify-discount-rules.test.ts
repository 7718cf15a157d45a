// Shopify's documented rules for code discounts, which the fake Shopify holds the bridge to (test/helpers/
// fake-shopify-discount-roots.ts and fake-shopify-checkout.ts name each page): what its checkout takes off a cart
// for each kind of code, which codes apply to one cart together, and what discountCodeBasicCreate and
// discountCodeFreeShippingCreate refuse, in Shopify's userError shape. The bridge's own codes are
// shopify-discount-codes's.
import { describe, expect, it } from 'vitest';
import { DISCOUNT_CODE_CREATE, FREE_SHIPPING_CODE_CREATE } from '../../adapters/shopify/discount-inputs.ts';
import { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import { HOUR, PAID, SHOP, shopifyCodesWorld } from '../helpers/shopify-codes-world.ts';

const w = shopifyCodesWorld(shopifyStorefront);
const takenBy = (code: string) => w.fake.discounts(SHOP).find((discount) => discount.code === code)?.taken;

/**
 * A make with the bridge's documents as it sends them for customer 7001 (5.00 off, or free shipping to every
 * country), with the fields a test changes: the merchant's own codes, and what Shopify refuses. Its payload.
 */
async function makeRaw(kind: 'basic' | 'free shipping', input: Record<string, unknown>): Promise<Payload> {
  const asked = w.request();
  const common = {
    ...{ code: asked.code, title: asked.title, startsAt: asked.startsAt, endsAt: asked.expiresAt },
    context: { customers: { add: ['gid://shopify/Customer/7001'] } },
  };
  if (kind === 'basic') {
    const customerGets = { value: { discountAmount: { amount: '5.00' } }, items: { all: true } };
    const basicCodeDiscount = { ...common, customerGets, ...input };
    return (await w.raw(DISCOUNT_CODE_CREATE, { basicCodeDiscount })).data.discountCodeBasicCreate as Payload;
  }
  const freeShippingCodeDiscount = { ...common, destination: { all: true }, ...input };
  const answer = await w.raw(FREE_SHIPPING_CODE_CREATE, { freeShippingCodeDiscount });
  return answer.data.discountCodeFreeShippingCreate as Payload;
}
type Payload = { codeDiscountNode: { id: string } | null; userErrors: unknown[] };

/** A code of the merchant's own, for every buyer, made with the Admin API as they would; its text. */
async function merchantCode(kind: 'basic' | 'free shipping', combinesWith: Record<string, boolean>) {
  const code = `MERCHANT-${w.next()}`;
  expect((await makeRaw(kind, { code, context: { all: 'ALL' }, combinesWith })).userErrors).toEqual([]);
  return code;
}

describe("Shopify's checkout takes off", () => {
  it('an amount code its amount, and a percentage code its share of the subtotal, not the shipping', async () => {
    const amount = await w.makeOne({ benefit: { kind: 'amount_off', amount: '5.00' } });
    const percent = await w.makeOne({ benefit: { kind: 'percent_off', percent: 10 } });
    expect(w.fake.useCode(SHOP, amount.asked.code, '7001', PAID)).toBe(true);
    expect(w.fake.useCode(SHOP, percent.asked.code, '7001', { subtotal: '87.45' })).toBe(true);
    expect(takenBy(amount.asked.code)).toEqual([{ subtotal: '5.00', shipping: '0.00' }]);
    // 10% of 87.45, to the cent.
    expect(takenBy(percent.asked.code)).toEqual([{ subtotal: '8.75', shipping: '0.00' }]);
  });

  it("a free shipping code the cart's shipping, and nothing off its subtotal", async () => {
    const { asked } = await w.makeOne({ benefit: { kind: 'free_shipping' } });
    w.fake.shop(SHOP).shippingRate = '6.50';
    try {
      expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
    } finally {
      w.fake.shop(SHOP).shippingRate = '8.00';
    }
    expect(takenBy(asked.code)).toEqual([{ subtotal: '0.00', shipping: '6.50' }]);
  });
});

describe("Shopify's checkout applies", () => {
  it.each([{ kind: 'amount_off', amount: '5.00' } as const, { kind: 'free_shipping' } as const])(
    'a $kind code only to a cart of at least its minimum subtotal',
    async (benefit) => {
      const { asked } = await w.makeOne({ benefit, minimumOrder: '20.00' });
      expect(w.fake.useCode(SHOP, asked.code, '7001', { subtotal: '19.99' })).toBe(false);
      expect(w.fake.useCode(SHOP, asked.code, '7001', { subtotal: '20.00' })).toBe(true);
    },
  );

  it("the bridge's code beside no other order discount: it does not combine with them", async () => {
    const { asked } = await w.makeOne();
    const theirs = await merchantCode('basic', { orderDiscounts: true });
    expect(w.fake.useCode(SHOP, asked.code, '7001', { ...PAID, otherCodes: [theirs] })).toBe(false);
    expect(w.fake.useCode(SHOP, theirs, '7001', { ...PAID, otherCodes: [asked.code] })).toBe(false);
    expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
  });

  it('two order discounts together when both combine with order discounts', async () => {
    const first = await merchantCode('basic', { orderDiscounts: true });
    const second = await merchantCode('basic', { orderDiscounts: true });
    expect(w.fake.useCode(SHOP, first, '7001', { ...PAID, otherCodes: [second] })).toBe(true);
  });

  it("the bridge's free shipping code beside none of its order codes, though those combine with shipping", async () => {
    const order = await w.makeOne({ combinesWithOthers: true });
    const shipping = await w.makeOne({ benefit: { kind: 'free_shipping' }, combinesWithOthers: true });
    expect(w.fake.useCode(SHOP, shipping.asked.code, '7001', { ...PAID, otherCodes: [order.asked.code] })).toBe(false);
    expect(w.fake.useCode(SHOP, order.asked.code, '7001', { ...PAID, otherCodes: [shipping.asked.code] })).toBe(false);
  });

  it('a free shipping code with an order code only when each combines with the other’s class', async () => {
    const shipping = await merchantCode('free shipping', { orderDiscounts: true });
    const withShipping = await merchantCode('basic', { shippingDiscounts: true });
    const withoutShipping = await merchantCode('basic', { orderDiscounts: true });
    expect(w.fake.useCode(SHOP, shipping, '7001', { ...PAID, otherCodes: [withoutShipping] })).toBe(false);
    expect(w.fake.useCode(SHOP, shipping, '7001', { ...PAID, otherCodes: [withShipping] })).toBe(true);
  });

  it('never two shipping codes together, whatever they combine with', async () => {
    const all = { orderDiscounts: true, productDiscounts: true, shippingDiscounts: true };
    const [first, second] = [await merchantCode('free shipping', all), await merchantCode('free shipping', all)];
    expect(w.fake.useCode(SHOP, first, '7001', { ...PAID, otherCodes: [second] })).toBe(false);
  });

  it('no free shipping code made without its destination: to no country unless it says every one', async () => {
    const code = `NOWHERE-${w.next()}`;
    expect((await makeRaw('free shipping', { code, destination: null })).userErrors).toEqual([]);
    expect(w.fake.useCode(SHOP, code, '7001', PAID)).toBe(false);
  });
});

/** The userErrors of a make of that kind with the fields a test changes. */
const refusals = async (kind: 'basic' | 'free shipping', input: Record<string, unknown>) =>
  (await makeRaw(kind, input)).userErrors;
const ARGUMENT = { basic: 'basicCodeDiscount', 'free shipping': 'freeShippingCodeDiscount' } as const;
const BOTH = ['basic', 'free shipping'] as const;

describe('discountCodeBasicCreate and discountCodeFreeShippingCreate refuse', () => {
  it.each(BOTH)("a customer the shop does not have, with Shopify's userError shape (%s)", async (kind) => {
    const made = await makeRaw(kind, { context: { customers: { add: ['gid://shopify/Customer/999999'] } } });
    expect(made).toEqual({
      codeDiscountNode: null,
      userErrors: [
        {
          field: [ARGUMENT[kind], 'context', 'customers', 'add', '0'],
          code: 'INVALID',
          message: 'Customer gid://shopify/Customer/999999 does not exist',
        },
      ],
    });
  });

  it.each([{ kind: 'amount_off', amount: '5.00' } as const, { kind: 'free_shipping' } as const])(
    "the bridge's $kind code for a customer the shop does not have: the make fails with Shopify's words",
    async (benefit) => {
      await expect(w.codes.make(w.request({ benefit, customerId: '999999' }))).rejects.toThrow(
        /Shopify refused the discount code: Customer .* does not exist/,
      );
    },
  );

  it.each(BOTH)('an end equal to its start: the end must come after it (%s)', async (kind) => {
    const startsAt = new Date(Date.now() - HOUR).toISOString();
    expect(await refusals(kind, { startsAt, endsAt: startsAt })).toEqual([
      { field: [ARGUMENT[kind], 'endsAt'], code: 'END_DATE_BEFORE_START_DATE', message: expect.any(String) },
    ]);
  });

  it.each(BOTH)('a code over 255 characters, and takes one of 255 (%s)', async (kind) => {
    const head = `LB-${w.next()}-`;
    expect(await refusals(kind, { code: head.padEnd(256, 'X') })).toEqual([
      { field: [ARGUMENT[kind], 'code'], code: 'TOO_LONG', message: expect.stringMatching(/too long/) },
    ]);
    expect(await refusals(kind, { code: head.padEnd(255, 'Y') })).toEqual([]);
  });

  it.each(BOTH)('a code the shop has already, of the other kind too, whatever its case (%s)', async (kind) => {
    const code = `TAKEN-${w.next()}`;
    expect(await refusals(kind === 'basic' ? 'free shipping' : 'basic', { code })).toEqual([]);
    expect(await refusals(kind, { code: code.toLowerCase() })).toEqual([
      { field: [ARGUMENT[kind], 'code'], code: 'TAKEN', message: 'Code must be unique. Please try a different code.' },
    ]);
  });

  it.each(BOTH)('a make without its title or its customers (%s)', async (kind) => {
    expect(await refusals(kind, { title: null })).toEqual([
      { field: [ARGUMENT[kind], 'title'], code: 'BLANK', message: expect.any(String) },
    ]);
    expect(await refusals(kind, { context: null })).toEqual([
      { field: [ARGUMENT[kind], 'context'], code: 'BLANK', message: expect.any(String) },
    ]);
  });
});

describe('discountCodeBasicCreate refuses', () => {
  it('a percentage outside 0.00 - 1.00, and takes 0.1 and 1.0', async () => {
    const percentage = async (value: number) =>
      refusals('basic', { customerGets: { value: { percentage: value }, items: { all: true } } });
    const outside = [
      {
        field: ['basicCodeDiscount', 'customerGets', 'value', 'percentage'],
        code: 'VALUE_OUTSIDE_RANGE',
        message: 'The value is outside of the allowed range.',
      },
    ];
    // A whole percent sent as it is (10 for 10%) is the mistake this catches.
    expect(await percentage(10)).toEqual(outside);
    expect(await percentage(-0.1)).toEqual(outside);
    expect(await percentage(0.1)).toEqual([]);
    expect(await percentage(1)).toEqual([]);
  });
});
