// The fake Shopify's code discounts (fake-shopify-admin.ts executes the documents; this holds the discounts and
// Shopify's rules for them). Each rule names the shopify.dev page it comes from, under the Admin GraphQL API's
// reference of 2026-10 (objects/Customer is https://shopify.dev/docs/api/admin-graphql/2026-10/objects/Customer):
// - scopes: discountCodeBasicCreate and discountCodeDelete need write_discounts, codeDiscountNodeByCode and
//   discountNode read_discounts (ROOT_SCOPES in fake-shopify-admin.ts); DiscountCustomers.customers is a list of
//   Customer, and "Customer ... Requires `read_customers` access scope" (objects/Customer), so without it the
//   field is refused ACCESS_DENIED as Order.customer is, and graphql-js nulls up to the nearest nullable field;
// - discountCodeBasicCreate refuses with DiscountUserError {field, message, code} (objects/DiscountUserError,
//   enums/DiscountErrorCode): a code the shop has whatever its case (TAKEN); a blank code, title or start (BLANK);
//   an end not after its start ("END_DATE_BEFORE_START_DATE: The end date should be after the start date.", so an
//   end equal to its start too); a code longer than 255 characters (TOO_LONG: "The input value is too long.";
//   255 is issue 66's figure, which the pages name no number for); a customer in context.customers.add the shop
//   does not have (INVALID: "The input value is invalid."). The codes are Shopify's; the messages are the fake's;
// - a checkout paying with a code (useCode): within its dates, below its usage limit, for a customer in its context
//   (DiscountCodeBasicInput.context, usageLimit, startsAt, endsAt), on a subtotal at least its minimum
//   (objects/DiscountMinimumSubtotal: "The minimum subtotal that's required for the discount to be applied."), and
//   with another order discount only when both combine with order discounts (objects/DiscountCombinesWith,
//   orderDiscounts: "Whether the discount combines with the order discount class.");
// - asyncUsageCount: "This value is updated asynchronously. As a result, it might be lower than the actual usage
//   count until the asynchronous process is completed." (objects/DiscountCodeBasic). The fake takes the worst
//   case: a use lands in it only when countUses() runs (the fake Shopify runs it when its clock moves), unless the
//   shop counts at once. The checkout's own limit counts every use at once (`uses`): Shopify's docs say the async
//   count may lag the actual usage, not that the limit does.

/** A code discount as the shop holds it (an amount off the order: DiscountCodeBasic). */
export interface FakeCodeDiscount {
  /** Its number: the node is gid://shopify/DiscountCodeNode/<id>. */
  id: string;
  code: string;
  title: string;
  startsAt: string;
  endsAt: string | null;
  /** The customers in its context (gids); null: every buyer. */
  customerIds: string[] | null;
  amount: string;
  minimumSubtotal: string | null;
  usageLimit: number | null;
  appliesOncePerCustomer: boolean;
  /** Orders that paid with it: what the checkout's usage limit counts. */
  uses: number;
  /** What the Admin API answers: `uses` once the asynchronous count has run (countUses). */
  asyncUsageCount: number;
  combinesWith: { orderDiscounts: boolean; productDiscounts: boolean; shippingDiscounts: boolean };
}

/** What of a shop the discounts need. */
export interface DiscountShop {
  codeDiscounts: Map<string, FakeCodeDiscount>;
  customers: Map<string, Record<string, unknown>>;
  /** Uses land in asyncUsageCount at once (the best case) rather than when countUses() runs. */
  usesCountedAtOnce?: boolean | undefined;
}

export interface DiscountContext {
  shop: DiscountShop;
  currency: string;
  newId: () => number;
}

/** The cart a code is applied to at checkout. */
export interface Checkout {
  customerId: string;
  /** The cart's subtotal, before discounts, in the shop's currency ("42.00"). */
  subtotal: string;
  /** Other order discount codes applied to the same cart. */
  orderDiscounts?: readonly string[];
}

/** The code discount of that code in the shop, whatever the code's case (Shopify matches codes so). */
export const discountByCode = (shop: DiscountShop, code: string) =>
  [...shop.codeDiscounts.values()].find((discount) => discount.code.toLowerCase() === code.toLowerCase());

/** The number of a DiscountCodeNode's (or DiscountNode's) gid. */
export const discountNumber = (id: string) => /^gid:\/\/shopify\/Discount(?:Code)?Node\/(\d+)$/.exec(id)?.[1];

const cents = (amount: string) => Math.round(Number(amount) * 100);

/** A list as a GraphQL connection (nodes, edges with cursors, pageInfo), paged by first and after. */
export function connection<T>(all: T[], args: { first?: number | null; after?: string | null }) {
  const first = args.first ?? all.length;
  const start = args.after ? Number(String(args.after).replace('cursor-', '')) : 0;
  const nodes = all.slice(start, start + first);
  const next = start + first < all.length;
  const cursor = (i: number) => `cursor-${start + i + 1}`;
  return {
    nodes,
    edges: nodes.map((node, i) => ({ node, cursor: cursor(i) })),
    pageInfo: {
      hasNextPage: next,
      hasPreviousPage: start > 0,
      startCursor: nodes.length ? `cursor-${start}` : null,
      endCursor: next || nodes.length ? `cursor-${start + nodes.length}` : null,
    },
  };
}

/** A code discount in the schema's shapes: DiscountCodeNode's codeDiscount, DiscountNode's discount. */
export function discountView(discount: FakeCodeDiscount, currencyCode: string) {
  const money = (amount: string) => ({ amount, currencyCode });
  return {
    __typename: 'DiscountCodeBasic',
    title: discount.title,
    startsAt: discount.startsAt,
    endsAt: discount.endsAt,
    asyncUsageCount: discount.asyncUsageCount,
    usageLimit: discount.usageLimit,
    appliesOncePerCustomer: discount.appliesOncePerCustomer,
    combinesWith: { ...discount.combinesWith, productDiscountsWithTagsOnSameCartLine: null },
    context: discount.customerIds
      ? { __typename: 'DiscountCustomers', customers: discount.customerIds.map((id) => ({ id })) }
      : { __typename: 'DiscountBuyerSelectionAll', all: 'ALL' },
    customerGets: {
      value: { __typename: 'DiscountAmount', amount: money(discount.amount), appliesOnEachItem: false },
      items: { __typename: 'AllDiscountItems', allItems: true },
      appliesOnOneTimePurchase: true,
      appliesOnSubscription: false,
    },
    minimumRequirement: discount.minimumSubtotal
      ? { __typename: 'DiscountMinimumSubtotal', greaterThanOrEqualToSubtotal: money(discount.minimumSubtotal) }
      : null,
    codes: (args: { first?: number | null; after?: string | null }) =>
      connection(
        [
          {
            id: `gid://shopify/DiscountRedeemCode/${discount.id}`,
            code: discount.code,
            asyncUsageCount: discount.asyncUsageCount,
          },
        ],
        args,
      ),
  };
}

/** Why the checkout refuses the code for that cart, or undefined when it applies it. */
export function codeRefusal(shop: DiscountShop, code: string, checkout: Checkout, nowMs: number): string | undefined {
  const discount = discountByCode(shop, code);
  if (!discount) return 'no such code';
  if (Date.parse(discount.startsAt) > nowMs) return 'not started';
  if (discount.endsAt !== null && Date.parse(discount.endsAt) <= nowMs) return 'ended';
  if (discount.usageLimit !== null && discount.uses >= discount.usageLimit) return 'used up';
  if (discount.customerIds && !discount.customerIds.includes(`gid://shopify/Customer/${checkout.customerId}`))
    return 'not for this customer';
  if (discount.minimumSubtotal !== null && cents(checkout.subtotal) < cents(discount.minimumSubtotal))
    return 'below its minimum subtotal';
  for (const other of checkout.orderDiscounts ?? []) {
    const with_ = discountByCode(shop, other);
    if (!with_) throw new Error(`the cart's other code ${other} is not one of the shop's`);
    if (!discount.combinesWith.orderDiscounts || !with_.combinesWith.orderDiscounts)
      return `does not combine with ${other}`;
  }
  return undefined;
}

/** An order paying with a code, as Shopify's checkout allows it (codeRefusal); false when it refuses. Counts the use. */
export function useCode(shop: DiscountShop, code: string, checkout: Checkout, nowMs: number): boolean {
  if (codeRefusal(shop, code, checkout, nowMs) !== undefined) return false;
  const discount = discountByCode(shop, code)!;
  discount.uses++;
  if (shop.usesCountedAtOnce) discount.asyncUsageCount = discount.uses;
  return true;
}

/** Shopify's asynchronous count runs: every use so far lands in asyncUsageCount. */
export function countUses(shop: DiscountShop): void {
  for (const discount of shop.codeDiscounts.values()) discount.asyncUsageCount = discount.uses;
}

interface BasicCodeDiscountInput {
  code?: string | null;
  title?: string | null;
  startsAt?: string | null;
  endsAt?: string | null;
  context?: { customers?: { add?: string[] | null } | null; all?: string | null } | null;
  customerGets?: { value?: { discountAmount?: { amount?: string | null } | null } | null } | null;
  minimumRequirement?: { subtotal?: { greaterThanOrEqualToSubtotal?: string | null } | null } | null;
  usageLimit?: number | null;
  appliesOncePerCustomer?: boolean | null;
  combinesWith?: { orderDiscounts?: boolean; productDiscounts?: boolean; shippingDiscounts?: boolean } | null;
}

/** The longest code Shopify takes (issue 66; TOO_LONG past it). */
export const MAX_CODE_LENGTH = 255;

type Refusal = { field: string[]; message: string; code: string };

/** Shopify's first userError for that input (DiscountUserError), or undefined when it makes the code. */
function createRefusal(shop: DiscountShop, input: BasicCodeDiscountInput): Refusal | undefined {
  const at = (...field: string[]) => ['basicCodeDiscount', ...field];
  const blank = { code: 'Code', title: 'Title', startsAt: 'Starts at' } as const;
  for (const field of ['code', 'title', 'startsAt'] as const)
    if (!input[field]) return { field: at(field), message: `${blank[field]} can't be blank`, code: 'BLANK' };
  const code = String(input.code);
  if (code.length > MAX_CODE_LENGTH)
    return {
      field: at('code'),
      message: `Code is too long (maximum is ${MAX_CODE_LENGTH} characters)`,
      code: 'TOO_LONG',
    };
  if (discountByCode(shop, code))
    return { field: at('code'), message: 'Code must be unique. Please try a different code.', code: 'TAKEN' };
  if (input.endsAt && Date.parse(input.endsAt) <= Date.parse(String(input.startsAt)))
    return { field: at('endsAt'), message: 'Ends at needs to be after starts_at', code: 'END_DATE_BEFORE_START_DATE' };
  const added = input.context?.customers?.add ?? [];
  const unknown = added.findIndex(
    (gid) => !shop.customers.has(/^gid:\/\/shopify\/Customer\/(\d+)$/.exec(gid)?.[1] ?? ''),
  );
  if (unknown >= 0)
    return {
      field: at('context', 'customers', 'add', String(unknown)),
      message: `Customer ${added[unknown]} does not exist`,
      code: 'INVALID',
    };
  return undefined;
}

function madeDiscount(context: DiscountContext, input: BasicCodeDiscountInput): FakeCodeDiscount {
  return {
    id: String(context.newId()),
    code: String(input.code),
    title: String(input.title),
    startsAt: new Date(String(input.startsAt)).toISOString(),
    endsAt: input.endsAt ? new Date(input.endsAt).toISOString() : null,
    customerIds: input.context?.customers?.add ? [...input.context.customers.add] : null,
    amount: String(input.customerGets?.value?.discountAmount?.amount ?? '0'),
    minimumSubtotal: input.minimumRequirement?.subtotal?.greaterThanOrEqualToSubtotal ?? null,
    usageLimit: input.usageLimit ?? null,
    appliesOncePerCustomer: input.appliesOncePerCustomer ?? false,
    uses: 0,
    asyncUsageCount: 0,
    combinesWith: {
      orderDiscounts: input.combinesWith?.orderDiscounts ?? false,
      productDiscounts: input.combinesWith?.productDiscounts ?? false,
      shippingDiscounts: input.combinesWith?.shippingDiscounts ?? false,
    },
  };
}

/** The Admin API's root fields for code discounts: two queries and two mutations. */
export function discountRoots(context: DiscountContext) {
  const { shop } = context;
  return {
    codeDiscountNodeByCode: ({ code }: { code: string }) => {
      const discount = discountByCode(shop, code);
      return discount
        ? {
            id: `gid://shopify/DiscountCodeNode/${discount.id}`,
            codeDiscount: discountView(discount, context.currency),
          }
        : null;
    },
    discountNode: ({ id }: { id: string }) => {
      const discount = shop.codeDiscounts.get(discountNumber(id) ?? '');
      return discount ? { id, discount: discountView(discount, context.currency) } : null;
    },
    discountCodeBasicCreate: ({ basicCodeDiscount: input }: { basicCodeDiscount: BasicCodeDiscountInput }) => {
      const refused = createRefusal(shop, input);
      if (refused) return { codeDiscountNode: null, userErrors: [{ ...refused, extraInfo: null }] };
      const discount = madeDiscount(context, input);
      shop.codeDiscounts.set(discount.id, discount);
      const id = `gid://shopify/DiscountCodeNode/${discount.id}`;
      return { codeDiscountNode: { id, codeDiscount: discountView(discount, context.currency) }, userErrors: [] };
    },
    discountCodeDelete: ({ id }: { id: string }) => {
      const number = discountNumber(id);
      if (!number || !shop.codeDiscounts.delete(number))
        return {
          deletedCodeDiscountId: null,
          userErrors: [{ field: ['id'], message: 'Discount does not exist', code: null, extraInfo: null }],
        };
      return { deletedCodeDiscountId: id, userErrors: [] };
    },
  };
}
