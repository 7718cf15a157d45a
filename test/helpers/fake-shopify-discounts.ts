// The fake Shopify's code discounts (fake-shopify-admin.ts executes the documents; this holds the discounts and their
// views; fake-shopify-discount-roots.ts the root fields and the rules of a make; fake-shopify-checkout.ts those of a
// checkout). Each rule names the shopify.dev page it comes from, under the Admin GraphQL API's reference of 2026-10
// (objects/Customer is https://shopify.dev/docs/api/admin-graphql/2026-10/objects/Customer):
// - scopes: discountCodeBasicCreate, discountCodeFreeShippingCreate and discountCodeDelete need write_discounts
//   (mutations/discountCodeFreeShippingCreate: "Requires Apps must have `write_discounts` access scope."),
//   codeDiscountNodeByCode and discountNode read_discounts (ROOT_SCOPES in fake-shopify-admin.ts);
//   DiscountCustomers.customers is a list of Customer, and "Customer ... Requires `read_customers` access scope"
//   (objects/Customer), so without it the field is refused ACCESS_DENIED as Order.customer is, and graphql-js
//   nulls up to the nearest nullable field;
// - two kinds of code discount: DiscountCodeBasic (objects/DiscountCodeBasic), whose customerGets.value is a
//   DiscountAmount or a DiscountPercentage (unions/DiscountCustomerGetsValue), and DiscountCodeFreeShipping
//   (objects/DiscountCodeFreeShipping), with its destinationSelection (DiscountCountryAll: "Whether the discount can
//   be applied to all countries as shipping destination. This value is always `true`.", or DiscountCountries);
//   both members of the DiscountCode union (unions/DiscountCode) that codeDiscountNodeByCode and discountNode
//   answer. Their discountClasses (objects/DiscountCodeFreeShipping, discountClasses) are ORDER for a basic code
//   on all items and SHIPPING for a free shipping code: the classes the checkout's combining rules name;
// - asyncUsageCount: "This value is updated asynchronously. As a result, it might be lower than the actual usage
//   count until the asynchronous process is completed." (objects/DiscountCodeBasic, and the same words on
//   objects/DiscountCodeFreeShipping). The fake takes the worst case: a use lands in it only when countUses()
//   runs (the fake Shopify runs it when its clock moves), unless the shop counts at once.

/** What a code gives: an amount or a share (0 to 1) off the order (DiscountCodeBasic), or free shipping. */
export type FakeCodeGives =
  | { kind: 'amount'; amount: string }
  | { kind: 'percentage'; percentage: number }
  | { kind: 'shipping'; allCountries: boolean; countries: string[] };

/** What a code took off one order it paid for, in the shop's currency: off its subtotal, off its shipping. */
export interface TakenOff {
  subtotal: string;
  shipping: string;
}

/** A code discount as the shop holds it (DiscountCodeBasic, or DiscountCodeFreeShipping when it gives shipping). */
export interface FakeCodeDiscount {
  /** Its number: the node is gid://shopify/DiscountCodeNode/<id>. */
  id: string;
  code: string;
  title: string;
  startsAt: string;
  endsAt: string | null;
  /** The customers in its context (gids); null: every buyer. */
  customerIds: string[] | null;
  gives: FakeCodeGives;
  minimumSubtotal: string | null;
  usageLimit: number | null;
  appliesOncePerCustomer: boolean;
  /** Orders that paid with it: what the checkout's usage limit counts. */
  uses: number;
  /** What it took off each of those orders, in order (fake-shopify-checkout.ts). */
  taken: TakenOff[];
  /** What the Admin API answers: `uses` once the asynchronous count has run (countUses). */
  asyncUsageCount: number;
  combinesWith: { orderDiscounts: boolean; productDiscounts: boolean; shippingDiscounts: boolean };
}

/** What of a shop the discounts need. */
export interface DiscountShop {
  codeDiscounts: Map<string, FakeCodeDiscount>;
  customers: Map<string, Record<string, unknown>>;
  /** What the shop's checkout charges to ship a cart ("8.00"): one flat rate, which free shipping takes off. */
  shippingRate: string;
  /** Uses land in asyncUsageCount at once (the best case) rather than when countUses() runs. */
  usesCountedAtOnce?: boolean | undefined;
}

export interface DiscountContext {
  shop: DiscountShop;
  currency: string;
  newId: () => number;
}

/** The code discount of that code in the shop, whatever the code's case (Shopify matches codes so). */
export const discountByCode = (shop: DiscountShop, code: string) =>
  [...shop.codeDiscounts.values()].find((discount) => discount.code.toLowerCase() === code.toLowerCase());

/** The number of a DiscountCodeNode's (or DiscountNode's) gid. */
export const discountNumber = (id: string) => /^gid:\/\/shopify\/Discount(?:Code)?Node\/(\d+)$/.exec(id)?.[1];

/** The discount class a code is combined as (DiscountClass): shipping for free shipping, order for the rest. */
export const discountClass = (discount: FakeCodeDiscount): 'ORDER' | 'SHIPPING' =>
  discount.gives.kind === 'shipping' ? 'SHIPPING' : 'ORDER';

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

/** What only its kind has: a basic code's customerGets, a free shipping code's destinations. */
function kindView(gives: FakeCodeGives, money: (amount: string) => { amount: string; currencyCode: string }) {
  switch (gives.kind) {
    case 'amount':
    case 'percentage':
      return {
        __typename: 'DiscountCodeBasic',
        customerGets: {
          value:
            gives.kind === 'amount'
              ? { __typename: 'DiscountAmount', amount: money(gives.amount), appliesOnEachItem: false }
              : { __typename: 'DiscountPercentage', percentage: gives.percentage },
          items: { __typename: 'AllDiscountItems', allItems: true },
          appliesOnOneTimePurchase: true,
          appliesOnSubscription: false,
        },
      };
    case 'shipping':
      return {
        __typename: 'DiscountCodeFreeShipping',
        destinationSelection: gives.allCountries
          ? { __typename: 'DiscountCountryAll', allCountries: true }
          : { __typename: 'DiscountCountries', countries: gives.countries, includeRestOfWorld: false },
        maximumShippingPrice: null,
        appliesOnOneTimePurchase: true,
        appliesOnSubscription: false,
      };
  }
}

/** A code discount in the schema's shapes: DiscountCodeNode's codeDiscount, DiscountNode's discount. */
export function discountView(discount: FakeCodeDiscount, currencyCode: string) {
  const money = (amount: string) => ({ amount, currencyCode });
  return {
    ...kindView(discount.gives, money),
    title: discount.title,
    startsAt: discount.startsAt,
    endsAt: discount.endsAt,
    asyncUsageCount: discount.asyncUsageCount,
    usageLimit: discount.usageLimit,
    appliesOncePerCustomer: discount.appliesOncePerCustomer,
    discountClasses: [discountClass(discount)],
    combinesWith: { ...discount.combinesWith, productDiscountsWithTagsOnSameCartLine: null },
    context: discount.customerIds
      ? { __typename: 'DiscountCustomers', customers: discount.customerIds.map((id) => ({ id })) }
      : { __typename: 'DiscountBuyerSelectionAll', all: 'ALL' },
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
