// Orders from the Admin GraphQL API, for resync and for re-fetching an order
// a webhook could not fully describe (orders/edited, refunds/create).
import { sumDecimal } from '../../src/core/decimal.ts';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import { asArray, asRecord, asString, decimalText, idDigits, isoTime } from '../shared/json.ts';
import { emailLocalPart, fullName } from '../shared/names.ts';
import { toE164 } from '../shared/phone.ts';
import { ShopifyAdminError, type GraphqlError, type ShopifyAdminApi } from './admin-api.ts';
import { forgetScopes, grantedScopes, missingScope } from './scopes.ts';

// What read_orders alone reads: the order's own contact (e-mail, phone, the
// addresses' names and phones) is enough to earn. The customer record needs
// read_customers, and asking for it without that scope fails the field
// ("Access denied for customer field"), so it is asked for only when granted.
const ORDER_FIELDS = `
  id legacyResourceId name email phone test createdAt updatedAt cancelledAt
  displayFinancialStatus displayFulfillmentStatus sourceName
  totalPriceSet { shopMoney { amount currencyCode } presentmentMoney { amount currencyCode } }
  subtotalPriceSet { shopMoney { amount } }
  totalDiscountsSet { shopMoney { amount } }
  discountCodes
  customAttributes { key value }
  billingAddress { firstName lastName phone countryCodeV2 }
  shippingAddress { firstName lastName phone countryCodeV2 }
  customerJourneySummary { firstVisit { landingPage } }
  refunds { id totalRefundedSet { shopMoney { amount } } }
`;

const CUSTOMER_FIELDS = `
  customer { firstName lastName defaultEmailAddress { emailAddress } defaultPhoneNumber { phoneNumber } defaultAddress { countryCodeV2 } }
`;

const ordersQuery = (fields: string) => `query LoyaltyBridgeOrders($first: Int!, $after: String, $query: String) {
  orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes { ${fields} }
  }
}`;

const orderQuery = (fields: string) => `query LoyaltyBridgeOrder($id: ID!) {
  order(id: $id) { ${fields} }
}`;

export const ORDERS_QUERY = ordersQuery(ORDER_FIELDS);
export const ORDERS_QUERY_WITH_CUSTOMER = ordersQuery(ORDER_FIELDS + CUSTOMER_FIELDS);
export const ORDER_QUERY = orderQuery(ORDER_FIELDS);
export const ORDER_QUERY_WITH_CUSTOMER = orderQuery(ORDER_FIELDS + CUSTOMER_FIELDS);

/** Orders for a bulk operation (a large resync): the same fields, every page at once. */
export const bulkOrdersQuery = (filter: string, withCustomer: boolean) => `{
  orders(query: ${JSON.stringify(filter)}, sortKey: UPDATED_AT) {
    edges { node { ${withCustomer ? ORDER_FIELDS + CUSTOMER_FIELDS : ORDER_FIELDS} } }
  }
}`;

/** The order documents that fit the scopes the app holds on the shop. */
export async function orderDocuments(
  api: ShopifyAdminApi,
): Promise<{ orders: string; order: string; withCustomer: boolean }> {
  const withCustomer = (await grantedScopes(api)).has('read_customers');
  return withCustomer
    ? { orders: ORDERS_QUERY_WITH_CUSTOMER, order: ORDER_QUERY_WITH_CUSTOMER, withCustomer }
    : { orders: ORDERS_QUERY, order: ORDER_QUERY, withCustomer };
}

const PAGE_SIZE = 100;
const SIXTY_DAYS_MS = 60 * 24 * 60 * 60 * 1000;

/** What the order's display statuses show to be true of it. */
export function graphqlOrderFacts(order: Record<string, unknown>): Fact[] {
  const facts: Fact[] = ['placed'];
  const financial = asString(order.displayFinancialStatus);
  if (financial === 'PAID' || financial === 'PARTIALLY_REFUNDED' || financial === 'REFUNDED') facts.push('paid');
  if (financial === 'PARTIALLY_REFUNDED') facts.push('partiallyRefunded');
  if (financial === 'REFUNDED') facts.push('fullyRefunded');
  if (asString(order.displayFulfillmentStatus) === 'FULFILLED') facts.push('fulfilled');
  if (asString(order.cancelledAt) !== null || financial === 'VOIDED') facts.push('cancelled');
  return facts;
}

export interface DeniedFields {
  /** Protected customer data withheld: the merchant can request it in the Dev Dashboard. */
  withheld: boolean;
  /** Scopes Shopify named as missing ("Required access: `read_customers`"). */
  missingScopes: string[];
}

/**
 * What the errors beside an answer's data mean. Shopify uses ACCESS_DENIED
 * for two different things: a scope the app was not granted ("Access denied
 * for customer field. Required access: `read_customers` access scope.") and
 * protected customer data it was not approved for ("This app is not approved
 * to use the email field"). Only the second is "withheld": the first is
 * fixed by a scope, not by a data request.
 */
export function deniedFields(errors: readonly GraphqlError[]): DeniedFields {
  const missingScopes = new Set<string>();
  let withheld = false;
  for (const error of errors) {
    if (error.extensions?.code !== 'ACCESS_DENIED' && !/not approved|protected customer data/i.test(error.message))
      continue;
    const scope = missingScope(error.message);
    if (scope) missingScopes.add(scope);
    else withheld = true;
  }
  return { withheld, missingScopes: [...missingScopes] };
}

export function graphqlOrderToEvent(
  node: unknown,
  shop: string,
  deliveryPrefix: string,
  now: Date,
  withheld = false,
): OrderEvent | undefined {
  const order = asRecord(node);
  const orderId = idDigits(order.legacyResourceId) ?? idDigits(asString(order.id)?.split('/').pop());
  if (orderId === undefined) return undefined;
  const customer = asRecord(order.customer);
  const billing = asRecord(order.billingAddress);
  const shipping = asRecord(order.shippingAddress);
  // Customer.email and Customer.phone are deprecated: their replacements are objects.
  const email = asString(order.email) ?? asString(asRecord(customer.defaultEmailAddress).emailAddress);
  const country =
    asString(billing.countryCodeV2) ??
    asString(shipping.countryCodeV2) ??
    asString(asRecord(customer.defaultAddress).countryCodeV2);
  const mobile = toE164(
    asString(order.phone) ??
      asString(asRecord(customer.defaultPhoneNumber).phoneNumber) ??
      asString(billing.phone) ??
      asString(shipping.phone),
    country,
  );
  const money = asRecord(asRecord(order.totalPriceSet).shopMoney);
  const presentment = asRecord(asRecord(order.totalPriceSet).presentmentMoney);
  const codes = asArray(order.discountCodes)
    .map(asString)
    .filter((code): code is string => code !== null);
  const totalDiscount = asString(asRecord(asRecord(order.totalDiscountsSet).shopMoney).amount) ?? '0';
  const updatedAt = isoTime(order.updatedAt) ?? now.toISOString();
  const name = (person: Record<string, unknown>) => fullName(person.firstName, person.lastName);

  return {
    platform: 'shopify',
    shop,
    orderId,
    orderName: asString(order.name) ?? `#${orderId}`,
    // Same state, same id: a second resync of an unchanged order is a duplicate.
    deliveryId: `${deliveryPrefix}:${orderId}:${updatedAt}`,
    occurredAt: updatedAt,
    facts: graphqlOrderFacts(order),
    customer: { name: name(customer) ?? name(billing) ?? name(shipping) ?? emailLocalPart(email), email, mobile },
    total: {
      amount: asString(money.amount) ?? '0',
      currency: asString(money.currencyCode) ?? '',
      ...(asString(presentment.currencyCode) && asString(presentment.currencyCode) !== asString(money.currencyCode)
        ? {
            presentment: {
              amount: asString(presentment.amount) ?? '0',
              currency: asString(presentment.currencyCode) ?? '',
            },
          }
        : {}),
    },
    // Line items after discounts, before shipping, duties and taxes, in shop money.
    subtotal: decimalText(asRecord(asRecord(order.subtotalPriceSet).shopMoney).amount) ?? null,
    protectedDataHidden: withheld,
    test: order.test === true,
    source: asString(order.sourceName),
    // The API gives per-order discount totals, not per code: a single code gets the whole discount.
    discountCodes: codes.map((code) => ({ code, amount: codes.length === 1 ? totalDiscount : '0' })),
    attributes: Object.fromEntries(
      asArray(order.customAttributes)
        .map(asRecord)
        .map((attribute) => [asString(attribute.key), asString(attribute.value)])
        .filter((entry): entry is [string, string] => entry[0] !== null && entry[1] !== null),
    ),
    landingSite: asString(asRecord(asRecord(order.customerJourneySummary).firstVisit).landingPage),
    refunds: asArray(order.refunds).flatMap((value) => {
      const refund = asRecord(value);
      const id = asString(refund.id)?.split('/').pop();
      const amount = asString(asRecord(asRecord(refund.totalRefundedSet).shopMoney).amount);
      // In the shop's money, as the total: no conversion needed.
      return id && amount ? [{ id, amount: sumDecimal([amount]), currency: asString(money.currencyCode) }] : [];
    }),
  };
}

export interface FetchWindow {
  since: Date;
  until?: Date;
}

/** Orders updated in [since, until], page by page, as OrderEvents. */
export async function* fetchShopifyOrders(
  api: ShopifyAdminApi,
  { since, until }: FetchWindow,
  now = new Date(),
): AsyncGenerator<OrderEvent> {
  const filter = filterFor({ since, until });
  let after: string | null = null;
  for (;;) {
    let page: { orders: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: unknown[] } };
    let withheld: boolean;
    try {
      const documents = await orderDocuments(api);
      const result = await api.queryPartial<typeof page>(
        documents.orders,
        { first: PAGE_SIZE, after, query: filter },
        2 + PAGE_SIZE * 2,
      );
      page = result.data;
      withheld = deniedOrForget(api, result.partialErrors);
    } catch (error) {
      throw explainScope(error, since, now);
    }
    for (const node of page.orders.nodes) {
      const event = graphqlOrderToEvent(node, api.shop, 'shopify-resync', now, withheld);
      if (event) yield event;
    }
    if (!page.orders.pageInfo.hasNextPage || !page.orders.pageInfo.endCursor) return;
    after = page.orders.pageInfo.endCursor;
  }
}

export async function fetchShopifyOrder(
  api: ShopifyAdminApi,
  orderId: string,
  deliveryPrefix: string,
  now = new Date(),
): Promise<OrderEvent | undefined> {
  const documents = await orderDocuments(api);
  const { data, partialErrors } = await api.queryPartial<{ order: unknown }>(
    documents.order,
    { id: `gid://shopify/Order/${orderId}` },
    20,
  );
  return data.order
    ? graphqlOrderToEvent(data.order, api.shop, deliveryPrefix, now, deniedOrForget(api, partialErrors))
    : undefined;
}

/** Whether contact data was withheld; a scope Shopify says is missing means the remembered scopes are stale. */
function deniedOrForget(api: ShopifyAdminApi, errors: readonly GraphqlError[]): boolean {
  const denied = deniedFields(errors);
  if (denied.missingScopes.length > 0) forgetScopes(api);
  return denied.withheld;
}

export function filterFor({ since, until }: FetchWindow): string {
  return [`updated_at:>='${since.toISOString()}'`, ...(until ? [`updated_at:<='${until.toISOString()}'`] : [])].join(
    ' AND ',
  );
}

/** Orders older than 60 days need the read_all_orders scope: say so when Shopify refuses. */
export function explainScope(error: unknown, since: Date, now: Date): unknown {
  if (
    error instanceof ShopifyAdminError &&
    error.code === 'ACCESS_DENIED' &&
    now.getTime() - since.getTime() > SIXTY_DAYS_MS
  ) {
    return new ShopifyAdminError(
      `Shopify refused to list orders from before ${new Date(now.getTime() - SIXTY_DAYS_MS).toISOString().slice(0, 10)}: orders older than 60 days need the read_all_orders scope. Ask Shopify for it in the app's settings, or resync a more recent window. (${error.message})`,
      'ACCESS_DENIED',
    );
  }
  return error;
}
