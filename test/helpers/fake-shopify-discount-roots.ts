// The fake Shopify's root fields for code discounts (fake-shopify-discounts.ts holds them and their views), and the
// rules of a make, each from the page it names under https://shopify.dev/docs/api/admin-graphql/2026-10/:
// - discountCodeBasicCreate and discountCodeFreeShippingCreate both answer DiscountUserError {field, message, code}
//   (payloads/DiscountCodeBasicCreatePayload, payloads/DiscountCodeFreeShippingCreatePayload, objects/
//   DiscountUserError, enums/DiscountErrorCode), and both refuse alike: a required field missing ("When creating,
//   required fields are: code, context (or deprecated customerSelection), startsAt, title", input-objects/
//   DiscountCodeFreeShippingInput; DiscountCodeBasicInput adds customerGets) (BLANK); a code the shop has, of
//   either kind and whatever its case (TAKEN: codeDiscountNodeByCode finds one discount by a code); an end not after
//   its start ("END_DATE_BEFORE_START_DATE: The end date should be after the start date.", so an end equal to its
//   start too); a code longer than 255 characters (TOO_LONG: "The input value is too long."; 255 is issue 66's
//   figure, which the pages name no number for); a customer in context.customers.add the shop does not have
//   (INVALID: "The input value is invalid."). The codes are Shopify's; the messages are the fake's;
// - a basic code's percentage: "The percentage value of the discount. Value must be between 0.00 - 1.00."
//   (input-objects/DiscountCustomerGetsValueInput). The pages name no answer to one outside it: the fake refuses it
//   with VALUE_OUTSIDE_RANGE, whose words are the enum's ("The value is outside of the allowed range.");
// - a free shipping code's destination: DiscountShippingDestinationSelectionInput.all ("Whether the discount code
//   applies to all countries.") defaults to false, so a code made without it ships free to the countries it names.
import {
  discountByCode,
  discountNumber,
  discountView,
  type DiscountContext,
  type DiscountShop,
  type FakeCodeDiscount,
  type FakeCodeGives,
} from './fake-shopify-discounts.ts';

/** What the fake reads of DiscountCodeBasicInput and DiscountCodeFreeShippingInput (each has its own fields). */
export interface CodeDiscountInput {
  code?: string | null;
  title?: string | null;
  startsAt?: string | null;
  endsAt?: string | null;
  context?: { customers?: { add?: string[] | null } | null; all?: string | null } | null;
  customerGets?: {
    value?: { discountAmount?: { amount?: string | null } | null; percentage?: number | null } | null;
  } | null;
  destination?: { all?: boolean | null; countries?: { add?: string[] | null } | null } | null;
  minimumRequirement?: { subtotal?: { greaterThanOrEqualToSubtotal?: string | null } | null } | null;
  usageLimit?: number | null;
  appliesOncePerCustomer?: boolean | null;
  combinesWith?: { orderDiscounts?: boolean; productDiscounts?: boolean; shippingDiscounts?: boolean } | null;
}

/** The longest code Shopify takes (issue 66; TOO_LONG past it). */
export const MAX_CODE_LENGTH = 255;

type Refusal = { field: string[]; message: string; code: string };
type Kind = 'basic' | 'free shipping';
/** The mutation's argument, the head of every userError's field. */
const ARGUMENT: Record<Kind, string> = { basic: 'basicCodeDiscount', 'free shipping': 'freeShippingCodeDiscount' };
const BLANK_WORDS = {
  code: 'Code',
  title: 'Title',
  startsAt: 'Starts at',
  context: 'Context',
  customerGets: 'Customer gets',
} as const;

/** A required field missing (BLANK), for that kind's input. */
function blankRefusal(input: CodeDiscountInput, kind: Kind): Refusal | undefined {
  const required: Array<keyof typeof BLANK_WORDS> = ['code', 'title', 'startsAt', 'context'];
  if (kind === 'basic') required.push('customerGets');
  const blank = required.find((field) => !input[field]);
  return blank
    ? { field: [ARGUMENT[kind], blank], message: `${BLANK_WORDS[blank]} can't be blank`, code: 'BLANK' }
    : undefined;
}

/** Shopify's first userError for that input (DiscountUserError), or undefined when it makes the code. */
function createRefusal(shop: DiscountShop, input: CodeDiscountInput, kind: Kind): Refusal | undefined {
  const at = (...field: string[]) => [ARGUMENT[kind], ...field];
  const blank = blankRefusal(input, kind);
  if (blank) return blank;
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

/** discountCodeBasicCreate's refusal: the rules every code has, then its percentage's range. */
function basicRefusal(shop: DiscountShop, input: CodeDiscountInput): Refusal | undefined {
  const refused = createRefusal(shop, input, 'basic');
  if (refused) return refused;
  const percentage = input.customerGets?.value?.percentage;
  if (typeof percentage === 'number' && (percentage < 0 || percentage > 1))
    return {
      field: [ARGUMENT.basic, 'customerGets', 'value', 'percentage'],
      message: 'The value is outside of the allowed range.',
      code: 'VALUE_OUTSIDE_RANGE',
    };
  return undefined;
}

/** discountCodeFreeShippingCreate's refusal: the rules every code has. */
const freeShippingRefusal = (shop: DiscountShop, input: CodeDiscountInput) =>
  createRefusal(shop, input, 'free shipping');

/** What a code made from that input gives. */
function gives(input: CodeDiscountInput, kind: Kind): FakeCodeGives {
  if (kind === 'free shipping')
    return {
      kind: 'shipping',
      allCountries: input.destination?.all ?? false,
      countries: [...(input.destination?.countries?.add ?? [])],
    };
  const value = input.customerGets?.value;
  return typeof value?.percentage === 'number'
    ? { kind: 'percentage', percentage: value.percentage }
    : { kind: 'amount', amount: String(value?.discountAmount?.amount ?? '0') };
}

function madeDiscount(context: DiscountContext, input: CodeDiscountInput, kind: Kind): FakeCodeDiscount {
  return {
    id: String(context.newId()),
    code: String(input.code),
    title: String(input.title),
    startsAt: new Date(String(input.startsAt)).toISOString(),
    endsAt: input.endsAt ? new Date(input.endsAt).toISOString() : null,
    customerIds: input.context?.customers?.add ? [...input.context.customers.add] : null,
    gives: gives(input, kind),
    minimumSubtotal: input.minimumRequirement?.subtotal?.greaterThanOrEqualToSubtotal ?? null,
    usageLimit: input.usageLimit ?? null,
    appliesOncePerCustomer: input.appliesOncePerCustomer ?? false,
    uses: 0,
    taken: [],
    asyncUsageCount: 0,
    combinesWith: {
      orderDiscounts: input.combinesWith?.orderDiscounts ?? false,
      productDiscounts: input.combinesWith?.productDiscounts ?? false,
      shippingDiscounts: input.combinesWith?.shippingDiscounts ?? false,
    },
  };
}

/** A create mutation's payload: the code made, or Shopify's userError and no code. */
function created(context: DiscountContext, refused: Refusal | undefined, make: () => FakeCodeDiscount) {
  if (refused) return { codeDiscountNode: null, userErrors: [{ ...refused, extraInfo: null }] };
  const discount = make();
  context.shop.codeDiscounts.set(discount.id, discount);
  const id = `gid://shopify/DiscountCodeNode/${discount.id}`;
  return { codeDiscountNode: { id, codeDiscount: discountView(discount, context.currency) }, userErrors: [] };
}

/** The Admin API's root fields for code discounts: two queries and three mutations. */
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
    discountCodeBasicCreate: ({ basicCodeDiscount: input }: { basicCodeDiscount: CodeDiscountInput }) =>
      created(context, basicRefusal(shop, input), () => madeDiscount(context, input, 'basic')),
    discountCodeFreeShippingCreate: (args: { freeShippingCodeDiscount: CodeDiscountInput }) =>
      created(context, freeShippingRefusal(shop, args.freeShippingCodeDiscount), () =>
        madeDiscount(context, args.freeShippingCodeDiscount, 'free shipping'),
      ),
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
