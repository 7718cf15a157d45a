// A reward's discount code on a BigCommerce store (capabilities/codes.ts). A BigCommerce coupon code has no expiry
// of its own, a promotion has one (end_date): so each redemption is its own promotion (Promotions API v3,
// reference/promotions.v3.yml; docs/store-operations/promotions), a COUPON promotion giving the reward's benefit
// (actionFor), with the minimum order as its condition, in the store's default currency (currency_code, where the
// bridge may read it: store-currency.ts), used once (max_uses 1), from the request's start to its expiry, then one
// code on it, used once by one customer. The promotion's id is the code's platformId. BigCommerce documents no way
// to keep a code to one customer (a promotion targets customer groups or segments, never one customer): the code's
// text is long and random and shown only to its customer.
// Combining: BigCommerce lets one coupon in an order by default (number_of_coupons_allowed_at_checkout, which only
// an enterprise store can raise); a reward that does not combine is can_be_used_with_other_promotions false, which
// also keeps out any other code. Every kind is made the same way, so a free-shipping code is held to the same one
// coupon an order. Needs store_v2_marketing: without it the make is 'not-allowed'.
import { z } from 'zod';
import type { DiscountCodeRequest, MadeCode, StoreCodes } from '../../src/core/platform-module.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';
import { BigCommerceApiError, type BigCommerceApi } from './admin-api.ts';

/** What the merchant reads when the app may not make codes, unless the caller says how this install gets the scope. */
const NOT_ALLOWED =
  'the app may not make discount codes in your store yet: approve access to marketing (promotions) when you turn rewards on';

const promotionAnswer = z.object({ data: z.object({ id: z.number().int() }) });
const codeShape = z.object({ id: z.number().int(), code: z.string(), current_uses: z.number().int() });
const codeAnswer = z.object({ data: codeShape });
const codesAnswer = z.object({ data: z.array(codeShape) });
const promotionsAnswer = z.object({ data: z.array(z.object({ id: z.number().int(), name: z.string().optional() })) });

/** BigCommerce's words on a refusal ({title} or {errors: [{title}]} in v3, [{message}] in v2), for a person to read. */
function titleOf(body: unknown): string {
  const record = (Array.isArray(body) ? body[0] : body) as Record<string, unknown> | undefined;
  const first = Array.isArray(record?.errors) ? (record.errors[0] as Record<string, unknown> | undefined) : undefined;
  const title = record?.title ?? record?.message ?? first?.title;
  return typeof title === 'string' ? `: ${title.slice(0, 200)}` : '';
}

function parsed<T>(schema: z.ZodType<T>, answer: { status: number; body: unknown }, what: string): T {
  const result = schema.safeParse(answer.body);
  if (!result.success)
    throw new BigCommerceApiError(
      `BigCommerce answered ${what} in a shape the bridge does not know (${answer.status})`,
      answer.status,
      false,
    );
  return result.data;
}

function refused(answer: { status: number; body: unknown }, what: string): BigCommerceApiError {
  return new BigCommerceApiError(
    `BigCommerce refused to ${what} (${answer.status}${titleOf(answer.body)})`,
    answer.status,
    false,
  );
}

/** What the codes' calls are handed: the store's client, and what the storefront says of its install. */
interface PromotionParts {
  apiFor: (shop: string) => Promise<BigCommerceApi | undefined>;
  whyNotAllowed: ((shop: string) => Promise<string | undefined>) | undefined;
  currencyOf: ((shop: string) => Promise<string | undefined>) | undefined;
}

export function bigCommercePromotionCodes(
  apiFor: (shop: string) => Promise<BigCommerceApi | undefined>,
  /** Why this store's install may not make codes, and how it gets the scope (its readiness's words). */
  whyNotAllowed?: (shop: string) => Promise<string | undefined>,
  /** The store's default currency, which the reward's amount is in; undefined: BigCommerce's default, the same. */
  currencyOf?: (shop: string) => Promise<string | undefined>,
): Omit<StoreCodes, 'readiness' | 'forOneCustomer' | 'usesCountedLate'> {
  const parts: PromotionParts = { apiFor, whyNotAllowed, currencyOf };
  return {
    make: (request: DiscountCodeRequest) => makeCode(parts, request),
    find: (shop: string, code: string) => findCode(parts, shop, code),
    uses: (shop: string, platformId: string) => codeUses(parts, shop, platformId),
    remove: (shop: string, platformId: string) => removeCode(parts, shop, platformId),
    // BigCommerce's promotions make every kind (actionFor).
    notMade: {},
    setUpFirst: {},
    whyKindFails: async () => undefined,
  };
}

async function storeApi({ apiFor }: PromotionParts, shop: string): Promise<BigCommerceApi> {
  const found = await apiFor(shop);
  if (!found)
    throw new BigCommerceApiError(`the bridge has no access to the BigCommerce store ${shop}`, undefined, false);
  return found;
}

async function notAllowed({ whyNotAllowed }: PromotionParts, shop: string): Promise<MadeCode> {
  return {
    kind: 'not-allowed',
    why: (await whyNotAllowed?.(shop).catch(() => undefined)) ?? NOT_ALLOWED,
  };
}

/** The promotion's codes; undefined when BigCommerce has no such promotion. */
async function codesOf(client: BigCommerceApi, id: string) {
  const answer = await client.send('GET', `v3/promotions/${encodeURIComponent(id)}/codes`, {
    searchParams: { limit: '250' },
  });
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) throw refused(answer, 'list a promotion’s codes');
  return parsed(codesAnswer, answer, 'a promotion’s codes').data;
}

/** Its codes first (a promotion with codes cannot be deleted), then the promotion; one already gone is fine. */
async function removePromotion(client: BigCommerceApi, id: string): Promise<void> {
  const codes = await codesOf(client, id);
  if (codes === undefined) return;
  if (codes.length > 0) {
    const answer = await client.send('DELETE', `v3/promotions/${encodeURIComponent(id)}/codes`, {
      searchParams: { 'id:in': codes.map((code) => code.id).join(',') },
    });
    if (answer.status !== 204 && answer.status !== 404) throw refused(answer, 'delete a reward’s code');
  }
  const answer = await client.send('DELETE', `v3/promotions/${encodeURIComponent(id)}`);
  if (answer.status !== 204 && answer.status !== 404) throw refused(answer, 'delete a reward’s promotion');
}

/** A promotion's action, as the bridge makes them (promotions.v3.yml: CartValueAction, ShippingAction). */
type PromotionAction =
  | { cart_value: { discount: { fixed_amount: string } | { percentage_amount: string } } }
  | { shipping: { free_shipping: true; zone_ids: '*' } };

/**
 * The promotion's action for a benefit. An amount or a share off is a cart_value discount, which BigCommerce takes
 * off the order's subtotal and never its shipping (docs/store-operations/promotions, "Actual discounting behavior");
 * its percentage_amount is text ("10"), as PercentageDiscount types it. Free shipping is a shipping action to every
 * zone ('*'), which offers the customer a free shipping method at checkout (docs/store-operations/promotions, "Free
 * shipping"; examples/shipping.mdx).
 */
function actionFor(benefit: RewardBenefit): PromotionAction {
  switch (benefit.kind) {
    case 'amount_off':
      return { cart_value: { discount: { fixed_amount: benefit.amount } } };
    case 'percent_off':
      return { cart_value: { discount: { percentage_amount: String(benefit.percent) } } };
    case 'free_shipping':
      return { shipping: { free_shipping: true, zone_ids: '*' } };
    default:
      return unknownKind(benefit);
  }
}

/** A kind added to RewardBenefit without its action here fails to compile (its `benefit` is not never). */
function unknownKind(benefit: never): never {
  throw new Error(`the bridge makes no BigCommerce promotion for a reward of kind ${(benefit as RewardBenefit).kind}`);
}

/** The promotion a redemption's code goes on, in the store's currency where it is known. */
function promotionFor(request: DiscountCodeRequest, currency: string | undefined) {
  return {
    // The code in the name: the merchant finds an order's code among the promotions (names stay distinct).
    name: `${request.title} (${request.code})`,
    redemption_type: 'COUPON',
    rules: [
      {
        action: actionFor(request.benefit),
        apply_once: true,
        stop: true,
        ...(request.minimumOrder !== null ? { condition: { cart: { minimum_spend: request.minimumOrder } } } : {}),
      },
    ],
    notifications: [],
    max_uses: 1,
    status: 'ENABLED',
    // A promotion applies only to orders in its currency: the one the reward's amount is in.
    ...(currency ? { currency_code: currency } : {}),
    start_date: request.startsAt,
    end_date: request.expiresAt,
    // One order pays with one of the bridge's codes at most, so its redeem is that code's: a reward that
    // combines still meets the store's one coupon an order (an enterprise store can allow more).
    can_be_used_with_other_promotions: request.combinesWithOthers,
    ...(request.combinesWithOthers ? {} : { coupon_overrides_other_promotions: false }),
  };
}

async function makeCode(parts: PromotionParts, request: DiscountCodeRequest): Promise<MadeCode> {
  const client = await storeApi(parts, request.shop);
  const currency = await parts.currencyOf?.(request.shop);
  const promotion = promotionFor(request, currency);
  let created;
  try {
    created = await client.send('POST', 'v3/promotions', { json: promotion });
  } catch (error) {
    if (error instanceof BigCommerceApiError && error.status === 403) return notAllowed(parts, request.shop);
    throw error;
  }
  if (created.status !== 201 && created.status !== 200) throw refused(created, 'make a reward’s promotion');
  const id = String(parsed(promotionAnswer, created, 'the promotion it made').data.id);
  try {
    const answer = await client.send('POST', `v3/promotions/${id}/codes`, {
      json: { code: request.code, max_uses: 1, max_uses_per_customer: 1 },
    });
    if (answer.status !== 201 && answer.status !== 200) throw refused(answer, 'make a reward’s code');
    parsed(codeAnswer, answer, 'the code it made');
  } catch (error) {
    // A promotion without its code is no use to anyone: deleted (with the code, if it was made after all).
    // Where even that fails, it stays, unusable with no code; a lost code, or a promotion left without its
    // code, is found again by the code's text (find).
    await removePromotion(client, id).catch(() => undefined);
    if (error instanceof BigCommerceApiError && error.status === 403) return notAllowed(parts, request.shop);
    throw error;
  }
  return { kind: 'made', platformId: id };
}

/** The store's coupon promotions that match `filter`. */
async function couponPromotions(client: BigCommerceApi, filter: Record<string, string>) {
  const answer = await client.send('GET', 'v3/promotions', {
    searchParams: { ...filter, redemption_type: 'coupon' },
  });
  if (answer.status !== 200) throw refused(answer, 'look for a reward’s code');
  return parsed(promotionsAnswer, answer, 'the promotions with a code').data;
}

async function findCode(parts: PromotionParts, shop: string, code: string): Promise<string | undefined> {
  // GET /promotions/codes?code= answers the code without its promotion: the promotions' own filter does.
  const client = await storeApi(parts, shop);
  for (const promotion of await couponPromotions(client, { code })) {
    // Only a promotion that has this very code is its (a filter that matched part of it is not).
    const codes = await codesOf(client, String(promotion.id));
    if (codes?.some((each) => each.code.toUpperCase() === code.toUpperCase())) return String(promotion.id);
  }
  // A promotion made for this code whose answer was lost (the connection dropped, or the process was killed)
  // before its code was put on it: found by its name, which ends with the code (make), and only while it has
  // no code at all, so it is that make's and no other's. Removing it leaves nothing of the code behind.
  for (const promotion of await couponPromotions(client, { query: code })) {
    if (!promotion.name?.endsWith(`(${code})`)) continue;
    const codes = await codesOf(client, String(promotion.id));
    if (codes !== undefined && codes.length === 0) return String(promotion.id);
  }
  return undefined;
}

async function codeUses(parts: PromotionParts, shop: string, platformId: string): Promise<number | undefined> {
  const codes = await codesOf(await storeApi(parts, shop), platformId);
  // No promotion, or one without its code: no such code any more.
  if (!codes || codes.length === 0) return undefined;
  return codes.reduce((total, code) => total + code.current_uses, 0);
}

async function removeCode(parts: PromotionParts, shop: string, platformId: string): Promise<void> {
  await removePromotion(await storeApi(parts, shop), platformId);
}
