// A reward's discount codes on BigCommerce against the fake BigCommerce's Promotions API over HTTP: each code is a
// promotion of its own (the reward's amount off, share off or free shipping, its minimum, ending at the code's
// expiry, one use) with one code on it, which a checkout applies as BigCommerce does (what it took off recorded); a checkout can use it once and not after its end; it is found again by its text, its uses are
// BigCommerce's count, and removing it deletes its code and its promotion (twice is fine). An install without
// the Marketing scope is told so in words; a code that could not be made leaves no promotion behind, and neither
// does one whose promotion was made with its answer lost (found again by its name). The store's checkout holds the
// code to BigCommerce's rules (test/helpers/fake-bigcommerce-checkout.ts): the reward's minimum, the store's
// currency, which the promotion names, one coupon an order, and whether it combines with the cart's discounts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BigCommerceApi } from '../../adapters/bigcommerce/admin-api.ts';
import { bigCommercePromotionCodes } from '../../adapters/bigcommerce/promotion-codes.ts';
import { readBigCommerceStoreCurrency } from '../../adapters/bigcommerce/store-currency.ts';
import type { BigCommerceInstall, BigCommerceStore } from '../../adapters/bigcommerce/stores.ts';
import type { DiscountCodeRequest } from '../../src/core/platform-module.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { codeRefusal, storeCart, takenOff, useCode, type Checkout } from '../helpers/fake-bigcommerce-checkout.ts';
import { failNextCreate, promotionsOf, withPromotions } from '../helpers/fake-bigcommerce-promotions.ts';

const HASH = 'promo01';
const TOKEN = 'promo-token';
/** An app's token without the Marketing scope. */
const NARROW = 'promo-token-orders-only';
const HOUR = 3_600_000;
/** A store whose default currency is the euro, whose install may read it (Information & settings). */
const EURO = 'promo02';
const EURO_TOKEN = 'promo-euro-token';

let fake: FakeBigCommerce;
let made = 0;

beforeAll(async () => {
  fake = withPromotions(await startFakeBigCommerce({ storeHash: HASH, accessToken: TOKEN }));
  fake.addStore(HASH, NARROW).tokenScopes.set(NARROW, 'store_v2_orders_read_only store_v2_information_read_only');
  fake.addStore(EURO, EURO_TOKEN).currency = 'EUR';
});
afterAll(() => fake.close());

const codesWith = (token: string, why?: string) =>
  bigCommercePromotionCodes(
    async (shop) =>
      shop === HASH ? new BigCommerceApi({ storeHash: HASH, accessToken: token, baseUrl: fake.url }) : undefined,
    why === undefined ? undefined : async () => why,
  );
const codes = codesWith(TOKEN);

function request(change: Partial<DiscountCodeRequest> = {}): DiscountCodeRequest {
  const now = Date.now();
  return {
    shop: HASH,
    customerId: '42',
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
const promotion = (id: string) => promotionsOf(fake, HASH).find((each) => String(each.id) === id);
/** Customer 42's cart in the store's currency: bcOrder's subtotal, above every minimum here unless said. */
const cart = (change: Partial<Checkout> = {}): Checkout => ({ ...storeCart(fake, HASH, '42', '150.00'), ...change });

/** Each kind of reward, and the action BigCommerce documents for it (promotions.v3.yml: CartValueAction, ShippingAction). */
const KINDS = [
  ['an amount off', { kind: 'amount_off', amount: '7.50' }, { cart_value: { discount: { fixed_amount: '7.50' } } }],
  ['a percentage off', { kind: 'percent_off', percent: 10 }, { cart_value: { discount: { percentage_amount: '10' } } }],
  ['free shipping', { kind: 'free_shipping' }, { shipping: { free_shipping: true, zone_ids: '*' } }],
] as const satisfies ReadonlyArray<readonly [string, RewardBenefit, unknown]>;
const storeApi = () => new BigCommerceApi({ storeHash: HASH, accessToken: TOKEN, baseUrl: fake.url });
/** The promotion as BigCommerce answers GET v3/promotions/<id>. */
const readBack = async (id: string) =>
  ((await storeApi().send('GET', `v3/promotions/${id}`)).body as { data: Record<string, unknown> }).data;

describe('BigCommerce promotion codes', () => {
  it.each(KINDS)(
    'makes a coupon promotion of %s with one code on it, used once, ending at the expiry',
    async (_what, benefit, action) => {
      const asked = request({ minimumOrder: '20.00', benefit });
      const id = await madeId(asked);
      expect(await readBack(id)).toMatchObject({
        redemption_type: 'COUPON',
        status: 'ENABLED',
        max_uses: 1,
        start_date: asked.startsAt,
        end_date: asked.expiresAt,
        can_be_used_with_other_promotions: false,
        coupon_overrides_other_promotions: false,
        rules: [{ action, apply_once: true, stop: true, condition: { cart: { minimum_spend: '20.00' } } }],
      });
      expect(
        promotion(id)!.codes.map(({ code, max_uses, max_uses_per_customer }) => ({
          code,
          max_uses,
          max_uses_per_customer,
        })),
      ).toEqual([{ code: asked.code, max_uses: 1, max_uses_per_customer: 1 }]);
    },
  );

  it.each([
    [KINDS[0][0], KINDS[0][1], '40.00', { subtotal: '7.50', shipping: '0.00' }],
    [KINDS[1][0], KINDS[1][1], '45.55', { subtotal: '4.56', shipping: '0.00' }],
    [KINDS[2][0], KINDS[2][1], '45.55', { subtotal: '0.00', shipping: '8.50' }],
  ] as const)(
    'a checkout applies %s once, taking it off as BigCommerce does, and not below the minimum',
    async (_what, benefit, subtotal, off) => {
      const asked = request({ minimumOrder: '20.00', benefit });
      await madeId(asked);
      expect(codeRefusal(fake, HASH, asked.code, cart({ subtotal: '19.99', shipping: '8.50' }))).toBe(
        'the order is below the minimum spend',
      );
      expect(useCode(fake, HASH, asked.code, cart({ subtotal, shipping: '8.50' }))).toBe(true);
      expect(useCode(fake, HASH, asked.code, cart({ subtotal, shipping: '8.50' }))).toBe(false);
      expect(useCode(fake, HASH, asked.code, cart({ customerId: '43', subtotal, shipping: '8.50' }))).toBe(false);
      expect(takenOff(fake, HASH, asked.code)).toEqual([{ customerId: '42', ...off }]);
    },
  );

  it('never lets two free-shipping codes pay for one order, whether or not they combine', async () => {
    const together = request({ benefit: { kind: 'free_shipping' }, combinesWithOthers: true });
    const apart = request({ benefit: { kind: 'free_shipping' }, combinesWithOthers: false });
    await madeId(together);
    await madeId(apart);
    expect(codeRefusal(fake, HASH, apart.code, cart({ coupons: [together.code] }))).toBe(
      'the store allows one coupon per order',
    );
    expect(codeRefusal(fake, HASH, together.code, cart({ coupons: [apart.code] }))).toBe(
      'the store allows one coupon per order',
    );
  });

  it('is a fake that reads a percentage back as text, and refuses a malformed action with its 422', async () => {
    const draft = (action: unknown) => ({ json: { name: 'Any', redemption_type: 'AUTOMATIC', rules: [{ action }] } });
    const made = await storeApi().send(
      'POST',
      'v3/promotions',
      draft({ cart_value: { discount: { percentage_amount: 100 } } }),
    );
    expect(made.status).toBe(201);
    expect((made.body as { data: { rules: unknown[] } }).data.rules).toEqual([
      { action: { cart_value: { discount: { percentage_amount: '100' } } }, apply_once: true, stop: false },
    ]);
    for (const action of [
      { cart_value: { discount: { percentage_amount: '101' } } },
      { cart_value: { discount: { percentage_amount: '0' } } },
      { cart_value: { discount: { fixed_amount: '5', percentage_amount: '5' } } },
      { shipping: { free_shipping: true } },
      { shipping: { free_shipping: true, zone_ids: [] } },
    ]) {
      const refused = await storeApi().send('POST', 'v3/promotions', draft(action));
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ errors: [{ status: 422, title: expect.any(String), type: expect.any(String) }] });
    }
    // The bridge says what BigCommerce refused, in its words, and leaves nothing behind.
    const before = promotionsOf(fake, HASH).length;
    await expect(codes.make(request({ benefit: { kind: 'percent_off', percent: 101 } }))).rejects.toThrow(
      /refused to make a reward’s promotion \(422: percentage_amount/,
    );
    expect(promotionsOf(fake, HASH).length).toBe(before);
  });

  it('makes a reward that combines into a promotion usable with others, and one without a minimum unconditioned', async () => {
    const saved = promotion(await madeId(request({ combinesWithOthers: true })))!;
    expect(saved.can_be_used_with_other_promotions).toBe(true);
    expect(saved.rules[0]!.condition).toBeUndefined();
  });

  it('refuses the code at a checkout after its expiry', async () => {
    const asked = request();
    await madeId(asked);
    expect(useCode(fake, HASH, asked.code, cart({ at: Date.parse(asked.expiresAt) + 1_000 }))).toBe(false);
    expect(useCode(fake, HASH, asked.code, cart())).toBe(true);
  });

  it("names the store's currency on the promotion, so a cart in another currency cannot pay with it", async () => {
    const api = new BigCommerceApi({ storeHash: EURO, accessToken: EURO_TOKEN, baseUrl: fake.url });
    const sent = vi.spyOn(api, 'send');
    /** The store's install as the bridge keeps it: with Information & settings, or without. */
    const installWith = (scope: string) => ({
      existing: async () => ({ scope }) as BigCommerceInstall,
      get: async () => ({ api }) as BigCommerceStore,
    });
    const sentCurrency = async (scope: string) => {
      sent.mockClear();
      const euro = bigCommercePromotionCodes(
        async () => api,
        undefined,
        (shop) => readBigCommerceStoreCurrency(installWith(scope), shop),
      );
      const asked = request({ shop: EURO });
      expect((await euro.make(asked)).kind).toBe('made');
      const posted = sent.mock.calls.find(([method, path]) => method === 'POST' && path === 'v3/promotions');
      return { asked, currency: (posted?.[2]?.json as Record<string, unknown>).currency_code };
    };
    const { asked, currency } = await sentCurrency('store_v2_marketing store_v2_information_read_only');
    expect(currency).toBe('EUR');
    const euroCart = storeCart(fake, EURO, '42', '150.00');
    expect(codeRefusal(fake, EURO, asked.code, { ...euroCart, currency: 'USD' })).toBe(
      'the promotion is for orders in EUR',
    );
    expect(useCode(fake, EURO, asked.code, euroCart)).toBe(true);
    // An install that may not read the store's information leaves it to BigCommerce's default: the same currency.
    const narrow = await sentCurrency('store_v2_marketing');
    expect(narrow.currency).toBeUndefined();
    expect(promotionsOf(fake, EURO).map((each) => each.currency_code)).toEqual(['EUR', 'EUR']);
  });

  it('is held to one coupon an order: a cart holding one of its codes takes no second, though both combine', async () => {
    const first = request({ combinesWithOthers: true });
    const second = request({ combinesWithOthers: true });
    await madeId(first);
    await madeId(second);
    expect(codeRefusal(fake, HASH, second.code, cart({ coupons: [first.code] }))).toBe(
      'the store allows one coupon per order',
    );
    expect(useCode(fake, HASH, second.code, cart())).toBe(true);
  });

  it("combines with the cart's automatic discounts only where the reward says so, and never with one that does not", async () => {
    const automatic = async (combines: boolean) => {
      const api = new BigCommerceApi({ storeHash: HASH, accessToken: TOKEN, baseUrl: fake.url });
      const { status, body } = await api.send('POST', 'v3/promotions', {
        json: {
          name: `Spring sale ${combines ? 'for all' : 'alone'}`,
          redemption_type: 'AUTOMATIC',
          rules: [{ action: { cart_value: { discount: { percentage_amount: '10' } } } }],
          can_be_used_with_other_promotions: combines,
        },
      });
      expect(status).toBe(201);
      return (body as { data: { id: number } }).data.id;
    };
    const sale = await automatic(true);
    const alone = await automatic(false);
    const apart = request({ combinesWithOthers: false });
    const together = request({ combinesWithOthers: true });
    await madeId(apart);
    await madeId(together);
    expect(codeRefusal(fake, HASH, apart.code, cart({ discountedBy: [sale] }))).toBe(
      'the promotion does not combine with the discounts already applied',
    );
    expect(codeRefusal(fake, HASH, together.code, cart({ discountedBy: [alone] }))).toBe(
      'a discount already applied does not combine with other promotions',
    );
    expect(useCode(fake, HASH, together.code, cart({ discountedBy: [sale] }))).toBe(true);
    expect(useCode(fake, HASH, apart.code, cart())).toBe(true);
  });

  it('is a fake that refuses a currency the store does not sell in, and makes a promotion without one in its default', async () => {
    const api = new BigCommerceApi({ storeHash: EURO, accessToken: EURO_TOKEN, baseUrl: fake.url });
    const draft = {
      name: 'Any',
      redemption_type: 'COUPON',
      rules: [{ action: { cart_value: { discount: { fixed_amount: '1' } } } }],
    };
    expect((await api.send('POST', 'v3/promotions', { json: { ...draft, currency_code: 'USD' } })).status).toBe(422);
    const { status, body } = await api.send('POST', 'v3/promotions', { json: draft });
    expect(status).toBe(201);
    expect((body as { data: { currency_code: string } }).data.currency_code).toBe('EUR');
  });

  it.each(KINDS)(
    'finds a code of %s by its text, and nothing for a text the store does not have',
    async (_what, benefit) => {
      const asked = request({ benefit });
      const id = await madeId(asked);
      await expect(codes.find(HASH, asked.code)).resolves.toBe(id);
      await expect(codes.find(HASH, `${asked.code}X`)).resolves.toBeUndefined();
    },
  );

  it.each(KINDS)("reads BigCommerce's count of the uses of a code of %s", async (_what, benefit) => {
    const asked = request({ benefit });
    const id = await madeId(asked);
    await expect(codes.uses(HASH, id)).resolves.toBe(0);
    useCode(fake, HASH, asked.code, cart());
    await expect(codes.uses(HASH, id)).resolves.toBe(1);
  });

  it.each(KINDS)(
    'removes a code of %s and its promotion, so no checkout can use it; removing it again is fine',
    async (_what, benefit) => {
      const asked = request({ benefit });
      const id = await madeId(asked);
      await codes.remove(HASH, id);
      expect(promotion(id)).toBeUndefined();
      expect(useCode(fake, HASH, asked.code, cart())).toBe(false);
      await expect(codes.uses(HASH, id)).resolves.toBeUndefined();
      await expect(codes.find(HASH, asked.code)).resolves.toBeUndefined();
      await expect(codes.remove(HASH, id)).resolves.toBeUndefined();
    },
  );

  it('answers not-allowed, in words, for an install without the Marketing scope, and makes nothing', async () => {
    const before = promotionsOf(fake, HASH).length;
    await expect(codesWith(NARROW).make(request())).resolves.toEqual({
      kind: 'not-allowed',
      why: expect.stringMatching(/marketing/i),
    });
    await expect(codesWith(NARROW, 'reinstall the app to approve Marketing').make(request())).resolves.toEqual({
      kind: 'not-allowed',
      why: 'reinstall the app to approve Marketing',
    });
    expect(promotionsOf(fake, HASH).length).toBe(before);
  });

  it.each([
    ['refused before it is made', 'before'],
    ['made, its answer lost', 'after'],
  ] as const)('deletes the promotion when its code could not be made (%s)', async (_what, when) => {
    const asked = request();
    const before = promotionsOf(fake, HASH).length;
    failNextCreate(fake, HASH, { what: 'code', when });
    await expect(codes.make(asked)).rejects.toThrow(/BigCommerce/);
    expect(promotionsOf(fake, HASH).length).toBe(before);
    expect(useCode(fake, HASH, asked.code, cart())).toBe(false);
    await expect(codes.find(HASH, asked.code)).resolves.toBeUndefined();
  });

  it.each(KINDS)(
    'finds again, by its name, a promotion of %s whose answer was lost before its code, and removes it',
    async (_what, benefit) => {
      const asked = request({ benefit });
      const before = promotionsOf(fake, HASH).length;
      failNextCreate(fake, HASH, { what: 'promotion', when: 'after' });
      await expect(codes.make(asked)).rejects.toThrow(/BigCommerce/);
      // BigCommerce made it; the bridge cannot know its id: left, with no code, it would stay in the merchant's list.
      const left = promotionsOf(fake, HASH).find((each) => each.name.endsWith(`(${asked.code})`));
      expect(left?.codes).toEqual([]);
      // Another code's promotion, and one whose name only contains the text, are not it.
      const other = await madeId(request());
      await expect(codes.find(HASH, asked.code.slice(0, -1))).resolves.toBeUndefined();
      const found = await codes.find(HASH, asked.code);
      expect(found).toBe(String(left!.id));
      expect(found).not.toBe(other);
      await codes.remove(HASH, found!);
      expect(promotionsOf(fake, HASH).length).toBe(before + 1);
      await expect(codes.find(HASH, asked.code)).resolves.toBeUndefined();
    },
  );

  it('throws for a store the bridge has no access to', async () => {
    await expect(codes.make(request({ shop: 'other' }))).rejects.toThrow(/no access/);
  });
});
