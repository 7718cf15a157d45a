// A reward's discount codes on Shopify against the fake Shopify over HTTP (Admin GraphQL executed on Shopify's
// published 2026-10 schema): a code of each kind (an amount off, a percentage off, free shipping) is made for one
// customer, found again by its text, used once at most, only by that customer and only until it expires, counted by
// Shopify, and removed; an install without write_discounts is told so in words, and a retried make gets the code the
// first one made. Shopify's own rules for codes, which the fake holds the bridge to, are shopify-discount-rules's.
import { describe, expect, it } from 'vitest';
import { DISCOUNT_CODE_OWNER } from '../../adapters/shopify/discount-codes.ts';
import { shopifyStorefront } from '../../adapters/shopify/storefront.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import { ALL_SCOPES, HOUR, PAID, SHOP, shopifyCodesWorld } from '../helpers/shopify-codes-world.ts';

const w = shopifyCodesWorld(shopifyStorefront);
const codeOf = (code: string) => w.fake.discounts(SHOP).find((discount) => discount.code === code);

/** Each kind of reward, and what the shop holds for its code (gives) and combines with when the reward combines. */
const KINDS: Array<{ benefit: RewardBenefit; gives: unknown; combinesWith: Record<string, boolean> }> = [
  {
    benefit: { kind: 'amount_off', amount: '5.00' },
    gives: { kind: 'amount', amount: '5.00' },
    combinesWith: { orderDiscounts: false, productDiscounts: true, shippingDiscounts: true },
  },
  {
    benefit: { kind: 'percent_off', percent: 10 },
    gives: { kind: 'percentage', percentage: 0.1 },
    combinesWith: { orderDiscounts: false, productDiscounts: true, shippingDiscounts: true },
  },
  {
    benefit: { kind: 'free_shipping' },
    gives: { kind: 'shipping', allCountries: true, countries: [] },
    // A shipping code combines with no other shipping discount, and none of the bridge's order codes.
    combinesWith: { orderDiscounts: false, productDiscounts: true, shippingDiscounts: false },
  },
];

describe('a code', () => {
  it('is made as the reward says: that customer, once, the amount off the order, never with another order discount', async () => {
    const { asked } = await w.makeOne({ minimumOrder: '20.00', combinesWithOthers: false });
    expect(codeOf(asked.code)).toMatchObject({
      title: asked.title,
      customerIds: ['gid://shopify/Customer/7001'],
      gives: { kind: 'amount', amount: '5.00' },
      minimumSubtotal: '20.00',
      usageLimit: 1,
      appliesOncePerCustomer: true,
      endsAt: asked.expiresAt,
      combinesWith: { orderDiscounts: false, productDiscounts: false, shippingDiscounts: false },
    });
  });

  it.each(KINDS)(
    'of $benefit.kind is made for that customer, once, until the expiry, with its minimum, giving what it says',
    async ({ benefit, gives, combinesWith }) => {
      const { asked } = await w.makeOne({ benefit, minimumOrder: '20.00' });
      expect(codeOf(asked.code)).toEqual(
        expect.objectContaining({
          ...{ title: asked.title, customerIds: ['gid://shopify/Customer/7001'], gives, combinesWith },
          ...{ minimumSubtotal: '20.00', usageLimit: 1, appliesOncePerCustomer: true, endsAt: asked.expiresAt },
        }),
      );
    },
  );

  it('of 100% off is the whole order (percentage 1.0, the most Shopify takes)', async () => {
    const { asked } = await w.makeOne({ benefit: { kind: 'percent_off', percent: 100 } });
    expect(codeOf(asked.code)?.gives).toEqual({ kind: 'percentage', percentage: 1 });
    expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
    expect(codeOf(asked.code)?.taken).toEqual([{ subtotal: '120.00', shipping: '0.00' }]);
  });

  it.each(KINDS)(
    'of $benefit.kind is found by its text, counted some time after an order pays with it, refused a second time, and gone once removed',
    async ({ benefit }) => {
      const { asked, id } = await w.makeOne({ benefit });
      expect(await w.codes.find(SHOP, asked.code)).toBe(id);
      expect(await w.codes.uses(SHOP, id)).toBe(0);
      expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
      // Shopify's count is asynchronous: the checkout refuses a second use at once, but the count shows it later.
      expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(false);
      expect(await w.codes.uses(SHOP, id)).toBe(0);
      w.fake.countUses();
      expect(await w.codes.uses(SHOP, id)).toBe(1);
      await w.codes.remove(SHOP, id);
      expect(await w.codes.uses(SHOP, id)).toBeUndefined();
      expect(await w.codes.find(SHOP, asked.code)).toBeUndefined();
    },
  );

  it.each(KINDS)('of $benefit.kind pays for no other customer’s order', async ({ benefit }) => {
    const { asked, id } = await w.makeOne({ benefit });
    expect(w.fake.useCode(SHOP, asked.code, '7002', PAID)).toBe(false);
    expect(await w.codes.uses(SHOP, id)).toBe(0);
  });

  it('pays for nothing once it expired', async () => {
    const { asked } = await w.makeOne({ expiresAt: new Date(Date.now() + HOUR).toISOString() });
    w.fake.clock.offsetMs = 2 * HOUR;
    try {
      expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(false);
    } finally {
      w.fake.clock.offsetMs = 0;
    }
  });

  it('is not found when the store has no code of that text', async () => {
    expect(await w.codes.find(SHOP, 'LB-NEVER-MADE')).toBeUndefined();
  });

  it('removed twice is removed: one already gone counts', async () => {
    const { id } = await w.makeOne();
    await w.codes.remove(SHOP, id);
    await expect(w.codes.remove(SHOP, id)).resolves.toBeUndefined();
  });
});

describe('a retried make', () => {
  it.each(KINDS)('of the same $benefit.kind code gets the id the first make got', async ({ benefit }) => {
    const asked = w.request({ benefit });
    const first = await w.codes.make(asked);
    expect(first.kind).toBe('made');
    expect(await w.codes.make(asked)).toEqual(first);
    expect(w.fake.discounts(SHOP).filter((discount) => discount.code === asked.code)).toHaveLength(1);
  });

  it.each(KINDS)(
    'of a $benefit.kind code that is someone else’s is refused with Shopify’s words',
    async ({ benefit }) => {
      const { asked } = await w.makeOne({ benefit });
      await expect(w.codes.make({ ...asked, customerId: '7002' })).rejects.toThrow(/Code must be unique/);
    },
  );
});

describe('without write_discounts', () => {
  it.each(KINDS)('a make of $benefit.kind is not allowed, in words the merchant can act on', async ({ benefit }) => {
    w.fake.scopes = 'read_orders,read_customers';
    const before = w.fake.discounts(SHOP).length;
    const result = await w.codes.make(w.request({ benefit }));
    expect(result).toMatchObject({ kind: 'not-allowed' });
    expect(result.kind === 'not-allowed' && result.why).toMatch(
      /may not make discount codes.*approve access to discounts/,
    );
    expect(w.fake.discounts(SHOP)).toHaveLength(before);
  });

  it('a make on an OAuth install says the operator adds the scope to SHOPIFY_SCOPES', async () => {
    await w.installed(SHOP, 'oauth');
    w.fake.scopes = 'read_orders';
    const result = await w.codes.make(w.request());
    expect(result.kind === 'not-allowed' && result.why).toMatch(/write_discounts to SHOPIFY_SCOPES/);
  });
});

describe('readiness', () => {
  it('an install Shopify made lacks write_discounts until the merchant approves it, which App Bridge asks for', async () => {
    w.fake.scopes = 'read_orders,read_customers';
    const before = await w.codes.readiness(SHOP);
    expect(before).toMatchObject({ ready: false, missingScopes: ['write_discounts'] });
    expect(before.ready === false && before.why).toMatch(/approve access to discounts when you turn rewards on/);
    // Approved a moment ago, before Shopify's app/scopes_update: Shopify is asked again.
    w.fake.scopes = ALL_SCOPES;
    expect(await w.codes.readiness(SHOP)).toEqual({ ready: true });
  });

  it('an OAuth install needs SHOPIFY_SCOPES and the merchant’s approval again', async () => {
    await w.installed(SHOP, 'oauth_expiring');
    w.fake.scopes = 'read_orders';
    const ready = await w.codes.readiness(SHOP);
    expect(ready.ready === false && ready.why).toMatch(/write_discounts to SHOPIFY_SCOPES.*approve/);
  });

  it('names no kind Shopify cannot make: the merchant may offer each', () => {
    expect(w.codes.notMade).toEqual({});
  });
});

describe("a code's uses (asyncUsageCount, counted asynchronously)", () => {
  it('land once time has passed, in the worst case', async () => {
    const { asked, id } = await w.makeOne({ expiresAt: new Date(Date.now() + 24 * HOUR).toISOString() });
    expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
    expect(await w.codes.uses(SHOP, id)).toBe(0);
    w.fake.clock.offsetMs = 1_000;
    w.fake.clock.offsetMs = 0;
    expect(await w.codes.uses(SHOP, id)).toBe(1);
  });

  it('land at once, in the best case', async () => {
    w.fake.shop(SHOP).usesCountedAtOnce = true;
    try {
      const { asked, id } = await w.makeOne();
      expect(w.fake.useCode(SHOP, asked.code, '7001', PAID)).toBe(true);
      expect(await w.codes.uses(SHOP, id)).toBe(1);
    } finally {
      w.fake.shop(SHOP).usesCountedAtOnce = false;
    }
  });
});

describe('without read_customers', () => {
  it.each(KINDS)(
    "a $benefit.kind code's customers are refused, as Shopify refuses every Customer field, while the rest of it reads",
    async ({ benefit }) => {
      const { asked, id } = await w.makeOne({ benefit });
      w.fake.scopes = 'read_orders,write_discounts';
      const owner = await w.raw(DISCOUNT_CODE_OWNER, { code: asked.code });
      expect(owner.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
        ['Access denied for customers field. Required access: `read_customers` access scope.', 'ACCESS_DENIED'],
      ]);
      // customers is [Customer!]! inside a non-null context: graphql-js nulls up to the nearest nullable field.
      expect(JSON.stringify(owner.data)).not.toContain('Customer/7001');
      const byId = await w.raw(
        'query Who($id: ID!) { discountNode(id: $id) { discount { ... on DiscountCodeBasic { context { ... on DiscountCustomers { customers { id } } } } ... on DiscountCodeFreeShipping { context { ... on DiscountCustomers { customers { id } } } } } } }',
        { id },
      );
      expect(byId.errors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
      expect(JSON.stringify(byId.data)).not.toContain('Customer/7001');
      // What needs no customer field still reads: the bridge's find and count.
      expect(await w.codes.find(SHOP, asked.code)).toBe(id);
      expect(await w.codes.uses(SHOP, id)).toBe(0);
    },
  );
});
