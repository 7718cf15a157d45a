// The fake Shopify's Admin GraphQL API, executed by graphql-js on Shopify's
// own published schema for the version in the URL (test/helpers/
// shopify-schema.ts). A document the real API would reject (a field it lacks,
// a wrong argument, a bad enum value) is rejected here with Shopify's
// validation errors, and every answer has the schema's shapes, because the
// schema's types serialise it. The resolvers below only hold data; what they
// hand back is checked on the way out (non-null fields, enum values).
//
// What Shopify documents, and the fake therefore does:
// - scopes: Order.customer needs read_customers ("Access denied for customer
//   field. Required access: `read_customers` access scope."); the order's
//   own contact needs only read_orders;
// - a root field the app lacks the scope for (customer without read_customers)
//   is answered with no data at all, "data": null, and one ACCESS_DENIED
//   error with Shopify's documentation link (as in Shopify/subscriptions-
//   reference-app#13, an ACCESS_DENIED answer from the real API);
// - protected customer data: without approval, e-mail and phone fields come
//   back null with "This app is not approved to use the <field> field"
//   errors beside the data, and subscribing to a topic that carries customer
//   data is refused with a userError;
// - a subscription's API version is the app's configured webhook version,
//   not the version of the endpoint that created it;
// - bulk operations: bulkOperationRunQuery runs a query in the background,
//   bulkOperation(id) tells its status, and the result is JSONL at its url;
// - code discounts, basic and free shipping (fake-shopify-discounts.ts, -discount-roots.ts): made, found, counted
//   late and deleted as Shopify documents it; DiscountCustomers.customers needs read_customers, as every Customer does.
import { defaultFieldResolver, graphql, GraphQLError, type GraphQLFieldResolver } from 'graphql';
import { discountRoots } from './fake-shopify-discount-roots.ts';
import { connection, type DiscountShop, type FakeCodeDiscount } from './fake-shopify-discounts.ts';
import { shopifyAdminSchema } from './shopify-schema.ts';

export type { FakeCodeDiscount } from './fake-shopify-discounts.ts';

export interface FakeSubscription {
  id: string;
  topic: string;
  uri: string;
  apiVersion: string;
}

export interface FakeBulkOperation {
  id: string;
  status: 'CREATED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED';
  /** Set when it ends FAILED (BulkOperationErrorCode: ACCESS_DENIED, INTERNAL_SERVER_ERROR, TIMEOUT). */
  errorCode: string | null;
  /** What it will end as: FAILED with this code, instead of COMPLETED. */
  failWith?: string | undefined;
  query: string;
  createdAt: string;
  completedAt: string | null;
  /** Status answers left before it completes. */
  pollsUntilDone: number;
  lines: string[];
  rootObjectCount: number;
}

export interface AdminShopState extends DiscountShop {
  orders: Map<string, Record<string, unknown>>;
  /** Code discounts by their number. */
  codeDiscounts: Map<string, FakeCodeDiscount>;
  subscriptions: FakeSubscription[];
  bulkOperations: Map<string, FakeBulkOperation>;
  /** The most bulk query operations this shop ever had running at once. */
  mostBulkAtOnce: number;
}

export interface AdminContext {
  shopName: string;
  shop: AdminShopState;
  /** The scopes the app holds on this shop, as granted. */
  scopes: ReadonlySet<string>;
  protectedDataGranted: ProtectedDataGrant;
  readAllOrders: boolean;
  /** The app's configured webhook API version: every subscription gets it. */
  webhookApiVersion: string;
  /** How many status answers a bulk operation stays RUNNING for. */
  bulkPolls: number;
  /** Concurrent bulk query operations Shopify allows a shop (2026-01 and later: 5). */
  bulkLimit: number;
  /** The next bulk operation fails with this error code, once. */
  takeBulkFailure: () => string | undefined;
  bulkUrl: (id: string) => string;
  nowMs: number;
  newId: () => number;
  /** The shop's currency, for money fields (a code's amount off). */
  currency: string;
}

/** Topics whose payloads carry customer data: subscribing needs protected customer data approval. */
const PROTECTED_TOPIC = /^(ORDERS_|REFUNDS_|CUSTOMERS_|DRAFT_ORDERS_|CHECKOUTS_|FULFILLMENTS_)/;

/**
 * Fields withheld without protected customer data approval, by the field Shopify approves them as: an app asks for
 * each of Name, Email, Phone and Address on its own (shopify.dev, "Protected customer data": level 2), so it may
 * hold the phone and not the e-mail.
 */
const PROTECTED_FIELDS: Record<string, Readonly<Record<string, ProtectedField>>> = {
  Order: { email: 'email', phone: 'phone' },
  Customer: { email: 'email', phone: 'phone', defaultEmailAddress: 'email', defaultPhoneNumber: 'phone' },
  MailingAddress: { phone: 'phone' },
};

export type ProtectedField = 'email' | 'phone';
/** Every protected field granted (true), none (false), or those named. */
export type ProtectedDataGrant = boolean | ReadonlySet<ProtectedField>;

const granted = (grant: ProtectedDataGrant, field: ProtectedField) =>
  typeof grant === 'boolean' ? grant : grant.has(field);

const accessDenied = (message: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { code: 'ACCESS_DENIED', ...extensions } });

/** Root fields (queries and mutations) whose denial Shopify answers with no data at all. */
const ROOT_SCOPES: Readonly<Record<string, string>> = {
  customer: 'read_customers',
  codeDiscountNodeByCode: 'read_discounts',
  discountNode: 'read_discounts',
  discountCodeBasicCreate: 'write_discounts',
  discountCodeFreeShippingCreate: 'write_discounts',
  discountCodeDelete: 'write_discounts',
};

/**
 * Fields whose value is a Customer (or a list of them): "Customer ... Requires `read_customers` access scope."
 * (shopify.dev, Admin GraphQL, objects/Customer), so each is refused without it, whatever scope reached its parent.
 */
const CUSTOMER_FIELDS: Readonly<Record<string, string>> = { Order: 'customer', DiscountCustomers: 'customers' };

const implied = (scopes: ReadonlySet<string>, scope: string) =>
  scopes.has(scope) || scopes.has(scope.replace(/^read_/, 'write_'));

/** Scope and protected-data checks on every field, then the plain property read. */
const fieldResolver: GraphQLFieldResolver<unknown, AdminContext> = (source, args, context, info) => {
  const parent = info.parentType.name;
  const rootScope = parent === 'QueryRoot' || parent === 'Mutation' ? ROOT_SCOPES[info.fieldName] : undefined;
  if (rootScope && !implied(context.scopes, rootScope))
    throw accessDenied(`Access denied for ${info.fieldName} field. Required access: \`${rootScope}\` access scope.`, {
      documentation: 'https://shopify.dev/api/usage/access-scopes',
      requiredAccess: `\`${rootScope}\` access scope.`,
    });
  const customerField = CUSTOMER_FIELDS[parent] === info.fieldName;
  if (customerField && !implied(context.scopes, 'read_customers')) {
    throw accessDenied(`Access denied for ${info.fieldName} field. Required access: \`read_customers\` access scope.`);
  }
  const field = PROTECTED_FIELDS[parent]?.[info.fieldName];
  if (field && !granted(context.protectedDataGranted, field)) {
    throw accessDenied(
      `This app is not approved to use the ${info.fieldName} field. See https://shopify.dev/docs/apps/launch/protected-customer-data for more details.`,
    );
  }
  return defaultFieldResolver(source, args, context, info);
};

/** Orders matching the search syntax the bridge uses (updated_at bounds). */
function matchingOrders(context: AdminContext, query: string | null | undefined) {
  const filter = String(query ?? '');
  const since = /updated_at:>='([^']+)'/.exec(filter)?.[1];
  const until = /updated_at:<='([^']+)'/.exec(filter)?.[1];
  if (!context.readAllOrders && since && Date.parse(since) < context.nowMs - 60 * 86_400_000) {
    throw accessDenied(
      'Access denied for orders field. Required access: `read_all_orders` for orders older than 60 days.',
    );
  }
  return [...context.shop.orders.values()]
    .filter((order) => (!since || String(order.updatedAt) >= since) && (!until || String(order.updatedAt) <= until))
    .sort((a, b) => String(a.updatedAt).localeCompare(String(b.updatedAt)));
}

const userError = (message: string, field: string[] | null = null) => ({ field, message });

/** The root fields: orders, customers, the shop and the app's install, then discounts, subscriptions and bulk. */
function rootValue(context: AdminContext, version: string) {
  const { shop } = context;
  return {
    ...discountRoots(context),
    ...subscriptionRoots(context),
    ...bulkRoots(context, version),
    orders: (args: { first?: number; after?: string; query?: string }) =>
      connection(matchingOrders(context, args.query), args),
    ordersCount: (args: { query?: string; limit?: number | null }) => {
      const count = matchingOrders(context, args.query).length;
      return {
        count: args.limit == null ? count : Math.min(count, args.limit),
        precision: args.limit != null && count > args.limit ? 'AT_LEAST' : 'EXACT',
      };
    },
    order: ({ id }: { id: string }) => shop.orders.get(String(id).split('/').pop() ?? '') ?? null,
    customer: ({ id }: { id: string }) => shop.customers.get(String(id).split('/').pop() ?? '') ?? null,
    shop: () => ({ id: 'gid://shopify/Shop/1', name: context.shopName, myshopifyDomain: context.shopName }),
    currentAppInstallation: () => ({
      accessScopes: [...context.scopes].map((handle) => ({ handle, description: handle })),
    }),
  };
}

/** Webhook subscriptions: listed, made (protected topics need approval), changed and deleted. */
function subscriptionRoots(context: AdminContext) {
  const { shop } = context;
  const subscriptionView = ({ apiVersion, ...rest }: FakeSubscription) => ({
    ...rest,
    apiVersion: { handle: apiVersion, displayName: apiVersion, supported: true },
  });
  return {
    webhookSubscriptions: (args: { first?: number; after?: string }) =>
      connection(shop.subscriptions.map(subscriptionView), args),
    webhookSubscriptionCreate: ({
      topic,
      webhookSubscription,
    }: {
      topic: string;
      webhookSubscription: { uri?: string };
    }) => {
      // Any field granted means the app's protected customer data request (level 1) was approved.
      if (context.protectedDataGranted === false && PROTECTED_TOPIC.test(topic)) {
        return {
          webhookSubscription: null,
          userErrors: [
            userError(
              'This app is not approved to subscribe to webhook topics containing protected customer data. See https://shopify.dev/docs/apps/launch/protected-customer-data for more details.',
              ['webhookSubscription'],
            ),
          ],
        };
      }
      const subscription: FakeSubscription = {
        id: `gid://shopify/WebhookSubscription/${context.newId()}`,
        topic,
        uri: String(webhookSubscription.uri ?? ''),
        apiVersion: context.webhookApiVersion,
      };
      shop.subscriptions.push(subscription);
      return { webhookSubscription: subscriptionView(subscription), userErrors: [] };
    },
    webhookSubscriptionUpdate: ({ id, webhookSubscription }: { id: string; webhookSubscription: { uri?: string } }) => {
      const subscription = shop.subscriptions.find((candidate) => candidate.id === id);
      if (!subscription)
        return { webhookSubscription: null, userErrors: [userError('Webhook subscription does not exist', ['id'])] };
      subscription.uri = String(webhookSubscription.uri ?? subscription.uri);
      return { webhookSubscription: subscriptionView(subscription), userErrors: [] };
    },
    webhookSubscriptionDelete: ({ id }: { id: string }) => {
      const before = shop.subscriptions.length;
      shop.subscriptions = shop.subscriptions.filter((candidate) => candidate.id !== id);
      const deleted = before !== shop.subscriptions.length;
      return {
        deletedWebhookSubscriptionId: deleted ? id : null,
        userErrors: deleted ? [] : [userError('Webhook subscription does not exist', ['id'])],
      };
    },
  };
}

/** Bulk operations: run in the background, polled for their status, cancelled. */
function bulkRoots(context: AdminContext, version: string) {
  const { shop } = context;
  return {
    bulkOperation: ({ id }: { id: string }) => {
      const operation = shop.bulkOperations.get(id);
      if (!operation) return null;
      if (operation.status === 'CREATED' || operation.status === 'RUNNING') {
        operation.status = operation.pollsUntilDone-- > 0 ? 'RUNNING' : operation.failWith ? 'FAILED' : 'COMPLETED';
        if (operation.status === 'FAILED') operation.errorCode = operation.failWith ?? null;
        if (operation.status !== 'RUNNING') operation.completedAt = new Date(context.nowMs).toISOString();
      }
      return bulkView(operation, context);
    },
    bulkOperationCancel: ({ id }: { id: string }) => {
      const operation = shop.bulkOperations.get(id);
      if (!operation) return { bulkOperation: null, userErrors: [userError('Bulk operation does not exist', ['id'])] };
      if (operation.status !== 'CREATED' && operation.status !== 'RUNNING')
        return {
          bulkOperation: { id, status: operation.status },
          userErrors: [
            userError(`A bulk operation cannot be canceled when it is ${operation.status.toLowerCase()}`, ['id']),
          ],
        };
      operation.status = 'CANCELED';
      return { bulkOperation: { id, status: operation.status }, userErrors: [] };
    },
    bulkOperationRunQuery: ({ query }: { query: string }) => runBulkQuery(context, version, query),
  };
}

/** A bulk operation in the schema's shape: its counts, size and result's url once it completed. */
function bulkView(operation: FakeBulkOperation, context: AdminContext) {
  const done = operation.status === 'COMPLETED';
  return {
    id: operation.id,
    status: operation.status,
    type: 'QUERY',
    query: operation.query,
    createdAt: operation.createdAt,
    completedAt: operation.completedAt,
    errorCode: operation.errorCode,
    objectCount: String(done ? operation.lines.length : 0),
    rootObjectCount: String(done ? operation.rootObjectCount : 0),
    fileSize: done ? String(operation.lines.join('\n').length) : null,
    url: done && operation.lines.length > 0 ? context.bulkUrl(operation.id) : null,
    partialDataUrl: null,
  };
}

/** bulkOperationRunQuery: at most bulkLimit at once; the inner query runs now, its result kept for the polls. */
async function runBulkQuery(context: AdminContext, version: string, query: string) {
  const { shop } = context;
  const running = [...shop.bulkOperations.values()].filter(
    (operation) => operation.status === 'CREATED' || operation.status === 'RUNNING',
  );
  if (running.length >= context.bulkLimit) {
    return {
      bulkOperation: null,
      userErrors: [
        {
          field: ['query'],
          message: `A bulk query operation for this app and shop is already in progress: ${running[0]?.id}.`,
          code: 'OPERATION_IN_PROGRESS',
        },
      ],
    };
  }
  // The inner query runs on the same schema, all of it at once, as Shopify does in the background.
  const result = await executeShopifyAdmin(context, version, query, {}, { bulk: true });
  if (result.errors?.length && !result.data) {
    return {
      bulkOperation: null,
      userErrors: result.errors.map((error) => ({ field: ['query'], message: error.message, code: 'INVALID' })),
    };
  }
  const roots = jsonlRoots(result.data);
  const operation: FakeBulkOperation = {
    id: `gid://shopify/BulkOperation/${context.newId()}`,
    status: 'CREATED',
    query,
    createdAt: new Date(context.nowMs).toISOString(),
    completedAt: null,
    pollsUntilDone: context.bulkPolls,
    lines: roots.map((node) => JSON.stringify(node)),
    rootObjectCount: roots.length,
    errorCode: null,
    failWith: context.takeBulkFailure(),
  };
  shop.bulkOperations.set(operation.id, operation);
  shop.mostBulkAtOnce = Math.max(shop.mostBulkAtOnce, running.length + 1);
  return { bulkOperation: bulkView(operation, context), userErrors: [] };
}

/** A bulk result's lines: the nodes of the top connection, one object a line. */
function jsonlRoots(data: unknown): unknown[] {
  const top = Object.values((data ?? {}) as Record<string, unknown>)[0] as
    { edges?: Array<{ node: unknown }>; nodes?: unknown[] } | undefined;
  return top?.edges?.map((edge) => edge.node) ?? top?.nodes ?? [];
}

export interface ExecutionResultLike {
  data?: Record<string, unknown> | null;
  errors?: ReadonlyArray<{
    message: string;
    path?: ReadonlyArray<string | number>;
    extensions?: Record<string, unknown>;
  }>;
}

/** One Admin API request, executed on the schema of that version. */
export async function executeShopifyAdmin(
  context: AdminContext,
  version: string,
  source: string,
  variables: Record<string, unknown>,
  options: { bulk?: boolean } = {},
): Promise<ExecutionResultLike> {
  const schema = shopifyAdminSchema(version);
  // Bulk queries name no page size: their connections return everything.
  const root = rootValue(context, version);
  const result = await graphql({
    schema,
    source,
    rootValue: options.bulk
      ? { ...root, orders: (args: { query?: string }) => connection(matchingOrders(context, args.query), {}) }
      : root,
    contextValue: context,
    variableValues: variables,
    fieldResolver,
  });
  // Shopify answers a denied root field with no data at all, where graphql-js would null that field alone.
  const rootDenied = result.errors?.some(
    (error) =>
      error.path?.length === 1 && error.extensions?.code === 'ACCESS_DENIED' && ROOT_SCOPES[String(error.path[0])],
  );
  return {
    ...(result.data !== undefined ? { data: rootDenied ? null : (result.data as Record<string, unknown> | null) } : {}),
    ...(result.errors ? { errors: result.errors.map((error) => error.toJSON()) } : {}),
  };
}
