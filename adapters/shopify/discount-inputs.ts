// The mutation that makes a reward's code on Shopify, and its input, for each kind of benefit (reward-benefit.ts):
// an amount off or a percentage off the order is a basic code (discountCodeBasicCreate, DiscountCodeBasicInput),
// free shipping a free shipping code (discountCodeFreeShippingCreate, DiscountCodeFreeShippingInput). Each is for
// one customer (context.customers), used once, from startsAt to the reward's expiry; never with another order
// discount, so that an order pays with one of the bridge's codes at most and its one redeem is that code's.
import type { DiscountCodeRequest } from '../../src/core/platform-module.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';

export const DISCOUNT_CODE_CREATE = `mutation LoyaltyBridgeDiscountCodeCreate($basicCodeDiscount: DiscountCodeBasicInput!) {
  discountCodeBasicCreate(basicCodeDiscount: $basicCodeDiscount) {
    codeDiscountNode { id }
    userErrors { field code message }
  }
}`;

export const FREE_SHIPPING_CODE_CREATE = `mutation LoyaltyBridgeFreeShippingCodeCreate($freeShippingCodeDiscount: DiscountCodeFreeShippingInput!) {
  discountCodeFreeShippingCreate(freeShippingCodeDiscount: $freeShippingCodeDiscount) {
    codeDiscountNode { id }
    userErrors { field code message }
  }
}`;

/** The mutation's root field whose payload (codeDiscountNode, userErrors) answers the make. */
export type CreateRoot = 'discountCodeBasicCreate' | 'discountCodeFreeShippingCreate';

/** One make on the Admin API: its document, its variables, and the root field its answer comes under. */
export interface CreateCall {
  document: string;
  variables: Record<string, unknown>;
  root: CreateRoot;
}

export const customerGid = (id: string) => `gid://shopify/Customer/${id}`;

/** What every kind's input says alike: the code, its name, its dates, its one customer, its minimum, one use. */
function commonInput(request: DiscountCodeRequest) {
  return {
    code: request.code,
    title: request.title,
    startsAt: request.startsAt,
    endsAt: request.expiresAt,
    context: { customers: { add: [customerGid(request.customerId)] } },
    ...(request.minimumOrder !== null
      ? { minimumRequirement: { subtotal: { greaterThanOrEqualToSubtotal: request.minimumOrder } } }
      : {}),
    usageLimit: 1,
    appliesOncePerCustomer: true,
  };
}

/** A basic code whose customer gets `value` (DiscountCustomerGetsValueInput) off every item of the order. */
function basicCall(request: DiscountCodeRequest, value: Record<string, unknown>): CreateCall {
  const basicCodeDiscount = {
    ...commonInput(request),
    customerGets: { value, items: { all: true } },
    combinesWith: {
      orderDiscounts: false,
      productDiscounts: request.combinesWithOthers,
      shippingDiscounts: request.combinesWithOthers,
    },
  };
  return { document: DISCOUNT_CODE_CREATE, variables: { basicCodeDiscount }, root: 'discountCodeBasicCreate' };
}

/** A free shipping code, to every country (DiscountShippingDestinationSelectionInput.all; its default is false). */
function freeShippingCall(request: DiscountCodeRequest): CreateCall {
  const freeShippingCodeDiscount = {
    ...commonInput(request),
    destination: { all: true },
    // A shipping code combines with no other shipping discount, nor with an order discount: the bridge's own
    // amount or percentage codes are order discounts, and one order pays with one of its codes at most.
    combinesWith: { orderDiscounts: false, productDiscounts: request.combinesWithOthers, shippingDiscounts: false },
  };
  return {
    document: FREE_SHIPPING_CODE_CREATE,
    variables: { freeShippingCodeDiscount },
    root: 'discountCodeFreeShippingCreate',
  };
}

/** A kind this file does not know: `benefit` is `never` while every kind has its case, so a new kind fails to compile. */
function unknownKind(benefit: never): never {
  throw new Error(`Shopify makes no code of kind ${(benefit as RewardBenefit).kind}`);
}

/** The make for the request's benefit. */
export function createCall(request: DiscountCodeRequest): CreateCall {
  const { benefit } = request;
  switch (benefit.kind) {
    case 'amount_off':
      return basicCall(request, { discountAmount: { amount: benefit.amount, appliesOnEachItem: false } });
    case 'percent_off':
      // DiscountCustomerGetsValueInput.percentage: "Value must be between 0.00 - 1.00." (10% is 0.1.)
      return basicCall(request, { percentage: benefit.percent / 100 });
    case 'free_shipping':
      return freeShippingCall(request);
    default:
      return unknownKind(benefit);
  }
}
