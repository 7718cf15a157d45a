// A reward's discount code on a Shopify shop (capabilities/codes.ts), of any kind of benefit: an amount or a
// percentage off the whole order is made with discountCodeBasicCreate, free shipping with
// discountCodeFreeShippingCreate (discount-inputs.ts); each for the one customer (context.customers, which replaced
// customerSelection at 2026-10's schema), used once, ending at the reward's expiry, never combined with another order
// discount. The bridge chooses the code's text, so a make whose answer was lost is found again by it
// (codeDiscountNodeByCode), whichever kind it is. How often it paid is Shopify's own count (asyncUsageCount of
// DiscountCodeBasic and DiscountCodeFreeShipping alike), read through discountNode: 2026-10 deprecates
// codeDiscountNode, and the schema test refuses documents that select what their version deprecates.
// Making codes needs write_discounts (readiness, discount-readiness.ts); without it the answer is 'not-allowed'.
import type { DiscountCodeRequest, MadeCode } from '../../src/core/platform-module.ts';
import { ShopifyAdminError, type ShopifyAdminApi } from './admin-api.ts';
import { createCall, customerGid, type CreateRoot } from './discount-inputs.ts';
import { forgetScopes, missingScope } from './scopes.ts';

export const DISCOUNT_CODE_BY_CODE = `query LoyaltyBridgeDiscountCodeByCode($code: String!) {
  codeDiscountNodeByCode(code: $code) { id }
}`;

/** For a retried make: whose the code of that text is (its customers need read_customers, as the storefront does). */
export const DISCOUNT_CODE_OWNER = `query LoyaltyBridgeDiscountCodeOwner($code: String!) {
  codeDiscountNodeByCode(code: $code) {
    id
    codeDiscount {
      ... on DiscountCodeBasic {
        title
        context { ... on DiscountCustomers { customers { id } } }
      }
      ... on DiscountCodeFreeShipping {
        title
        context { ... on DiscountCustomers { customers { id } } }
      }
    }
  }
}`;

export const DISCOUNT_CODE_USES = `query LoyaltyBridgeDiscountCodeUses($id: ID!) {
  discountNode(id: $id) {
    discount {
      ... on DiscountCodeBasic { asyncUsageCount }
      ... on DiscountCodeFreeShipping { asyncUsageCount }
    }
  }
}`;

export const DISCOUNT_CODE_DELETE = `mutation LoyaltyBridgeDiscountCodeDelete($id: ID!) {
  discountCodeDelete(id: $id) {
    deletedCodeDiscountId
    userErrors { field code message }
  }
}`;

interface UserError {
  field: string[] | null;
  code: string | null;
  message: string;
}

interface FoundCode {
  id: string;
  codeDiscount: { title?: string; context?: { customers?: Array<{ id: string }> } };
}

/** What the merchant reads when the app may not make codes, unless the caller says how this install gets the scope. */
const NOT_ALLOWED =
  'the app may not make discount codes in your store yet: approve access to discounts when you turn rewards on';

/** A refusal for want of a scope: the whole call (ACCESS_DENIED naming the scope) or a userError saying so. */
const deniedError = (error: unknown) =>
  error instanceof ShopifyAdminError && error.code === 'ACCESS_DENIED' && missingScope(error.message) !== undefined;
const deniedUserError = (error: UserError) => /access denied|write_discounts/i.test(error.message);
/** Shopify's answer to a code the shop already has (TAKEN: "Code must be unique. Please try a different code."). */
const takenUserError = (error: UserError) =>
  error.code === 'TAKEN' || (error.field?.includes('code') === true && /unique|taken|already/i.test(error.message));

/** What the codes' calls are handed: each shop's Admin API, and what the storefront says of its install. */
interface CodeParts {
  apis: { for(shop: string): ShopifyAdminApi };
  notAllowedWhy: ((shop: string) => Promise<string | undefined>) | undefined;
}

/** The payload of either create mutation (DiscountCodeBasicCreatePayload, DiscountCodeFreeShippingCreatePayload). */
type CreateAnswer = Partial<
  Record<CreateRoot, { codeDiscountNode: { id: string } | null; userErrors: UserError[] } | null>
>;

export function shopifyDiscountCodes(
  apis: { for(shop: string): ShopifyAdminApi },
  /** Why this shop's install may not make codes, and how it gets the scope (its readiness's words). */
  notAllowedWhy?: (shop: string) => Promise<string | undefined>,
) {
  const parts: CodeParts = { apis, notAllowedWhy };
  return {
    make: (request: DiscountCodeRequest) => makeCode(parts, request),
    find: (shop: string, code: string) => findCode(apis, shop, code),
    uses: (shop: string, platformId: string) => codeUses(apis, shop, platformId),
    remove: (shop: string, platformId: string) => removeCode(apis, shop, platformId),
  };
}

async function notAllowed({ notAllowedWhy }: CodeParts, shop: string): Promise<MadeCode> {
  return {
    kind: 'not-allowed',
    why: (await notAllowedWhy?.(shop).catch(() => undefined)) ?? NOT_ALLOWED,
  };
}

async function owner(parts: CodeParts, shop: string, code: string): Promise<FoundCode | undefined> {
  const answer = await parts.apis
    .for(shop)
    .query<{ codeDiscountNodeByCode: FoundCode | null }>(DISCOUNT_CODE_OWNER, { code }, 5);
  return answer.codeDiscountNodeByCode ?? undefined;
}

async function makeCode(parts: CodeParts, request: DiscountCodeRequest): Promise<MadeCode> {
  const api = parts.apis.for(request.shop);
  const call = createCall(request);
  let answer;
  try {
    answer = await api.query<CreateAnswer>(call.document, call.variables, 10);
  } catch (error) {
    if (deniedError(error)) {
      // The scopes remembered were wrong: readiness asks Shopify again.
      forgetScopes(api);
      return notAllowed(parts, request.shop);
    }
    throw error;
  }
  // Only the root field asked for answers.
  const codeDiscountNode = answer[call.root]?.codeDiscountNode ?? null;
  const userErrors = answer[call.root]?.userErrors ?? [];
  if (userErrors.some(deniedUserError)) {
    forgetScopes(api);
    return notAllowed(parts, request.shop);
  }
  if (userErrors.some(takenUserError)) {
    // A make retried after its answer was lost: the code is the bridge's if it is this request's (same
    // title, for that customer), of either kind. Anyone else's code of that text is never taken over.
    const found = await owner(parts, request.shop, request.code);
    const customers = found?.codeDiscount.context?.customers?.map((customer) => customer.id) ?? [];
    if (found && found.codeDiscount.title === request.title && customers.includes(customerGid(request.customerId)))
      return { kind: 'made', platformId: found.id };
  }
  if (userErrors.length > 0 || !codeDiscountNode)
    throw new ShopifyAdminError(
      `Shopify refused the discount code: ${userErrors.map((error) => error.message).join('; ') || 'no code came back'}`,
      'DISCOUNT_REFUSED',
    );
  return { kind: 'made', platformId: codeDiscountNode.id };
}

async function findCode(apis: CodeParts['apis'], shop: string, code: string): Promise<string | undefined> {
  const answer = await apis
    .for(shop)
    .query<{ codeDiscountNodeByCode: { id: string } | null }>(DISCOUNT_CODE_BY_CODE, { code }, 2);
  return answer.codeDiscountNodeByCode?.id;
}

async function codeUses(apis: CodeParts['apis'], shop: string, platformId: string): Promise<number | undefined> {
  const answer = await apis
    .for(shop)
    .query<{ discountNode: { discount: { asyncUsageCount?: number } } | null }>(
      DISCOUNT_CODE_USES,
      { id: platformId },
      5,
    );
  if (!answer.discountNode) return undefined;
  const count = answer.discountNode.discount.asyncUsageCount;
  // A kind of discount the bridge does not make (an automatic one, a BXGY) under that id is none of its codes.
  return typeof count === 'number' ? count : undefined;
}

async function removeCode(apis: CodeParts['apis'], shop: string, platformId: string): Promise<void> {
  const answer = await apis.for(shop).query<{
    discountCodeDelete: { deletedCodeDiscountId: string | null; userErrors: UserError[] };
  }>(DISCOUNT_CODE_DELETE, { id: platformId }, 10);
  const { userErrors } = answer.discountCodeDelete;
  // One already gone is removed.
  const left = userErrors.filter((error) => !/does not exist|not found/i.test(error.message));
  if (left.length > 0)
    throw new ShopifyAdminError(
      `Shopify did not remove the discount code: ${left.map((error) => error.message).join('; ')}`,
      'DISCOUNT_REFUSED',
    );
}
