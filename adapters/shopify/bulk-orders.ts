// Large resyncs through Shopify's bulk operations: one bulkOperationRunQuery instead of hundreds of pages,
// polled with backoff, then read as JSONL a line at a time from Shopify's storage (no token is sent there).
// The orders become the same OrderEvents with the same delivery ids as pages give, so bulk and paged
// resyncs dedupe against each other. One bulk operation per shop at a time, under the exclusive lock.
import { createInterface } from 'node:readline';
import { outboundGot } from '../../src/net/outbound.ts';
import { refusalOf, refusalText } from '../../src/net/refusal.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { OrderWindow } from '../../src/core/order-source.ts';
import type { ShopifyAdminApi } from './admin-api.ts';
import { ShopifyAdminError } from './admin-api.ts';
import {
  bulkOrdersQuery,
  deniedFields,
  explainScope,
  fetchShopifyOrders,
  filterFor,
  graphqlOrderToEvent,
  orderDocuments,
} from './graphql-orders.ts';
import { forgetScopes } from './scopes.ts';

export const ORDERS_COUNT_QUERY = `query LoyaltyBridgeOrdersCount($query: String) {
  ordersCount(query: $query, limit: null) { count precision }
}`;

export const BULK_ORDERS_MUTATION = `mutation LoyaltyBridgeBulkOrders($query: String!) {
  bulkOperationRunQuery(query: $query, groupObjects: false) {
    bulkOperation { id status }
    userErrors { field message code }
  }
}`;

export const BULK_STATUS_QUERY = `query LoyaltyBridgeBulkStatus($id: ID!) {
  bulkOperation(id: $id) { id status errorCode objectCount rootObjectCount url partialDataUrl }
}`;

export const BULK_CANCEL_MUTATION = `mutation LoyaltyBridgeBulkCancel($id: ID!) {
  bulkOperationCancel(id: $id) {
    bulkOperation { id status }
    userErrors { field message }
  }
}`;

/** Orders that an async iteration will yield, when known before the first one. */
export interface ExpectedOrders extends AsyncIterable<OrderEvent> {
  expected?: number | undefined;
}

export interface BulkOptions {
  /** Windows with at least this many orders go through a bulk operation. */
  threshold: number;
  /** The ledger's lock, so that one instance at a time runs a shop's bulk operation. */
  exclusive: <T>(name: string, fn: () => Promise<T>) => Promise<{ ran: true; value: T } | { ran: false }>;
  /** First wait between status checks; it grows by half each time, up to maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
  /** Give up waiting for Shopify (or for another instance's operation) after this long. */
  maxWaitMs?: number;
  /**
   * The result's download fails only when its connection goes quiet this
   * long. Never a limit on the whole download: reading it is paced by the
   * ledger taking each order, which for a large result takes longer than any
   * fixed limit.
   */
  downloadIdleMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
}

interface BulkOperationNode {
  id: string;
  status: string;
  errorCode: string | null;
  rootObjectCount: string;
  url: string | null;
  partialDataUrl: string | null;
}

export async function countShopifyOrders(api: ShopifyAdminApi, window: OrderWindow): Promise<number> {
  const data = await api.query<{ ordersCount: { count: number } | null }>(
    ORDERS_COUNT_QUERY,
    { query: filterFor(window) },
    2,
  );
  return data.ordersCount?.count ?? 0;
}

/**
 * Orders updated in the window: counted first, then paged or, from the
 * threshold on, read through a bulk operation. `expected` is the count.
 */
export function shopifyOrdersInWindow(api: ShopifyAdminApi, window: OrderWindow, options: BulkOptions): ExpectedOrders {
  const source: ExpectedOrders = {
    expected: undefined,
    async *[Symbol.asyncIterator]() {
      const count = await countShopifyOrders(api, window);
      source.expected = count;
      if (count < options.threshold) return yield* fetchShopifyOrders(api, window, options.now?.());
      try {
        yield* fetchShopifyOrdersInBulk(api, window, options);
      } catch (error) {
        // Shopify failed the operation for a missing scope before any order came: the scopes are asked again, and the window paged.
        if (!(error instanceof BulkAccessDenied)) throw error;
        forgetScopes(api);
        yield* fetchShopifyOrders(api, window, options.now?.());
      }
    },
  };
  return source;
}

export async function* fetchShopifyOrdersInBulk(
  api: ShopifyAdminApi,
  window: OrderWindow,
  options: BulkOptions,
): AsyncGenerator<OrderEvent> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => new Date());
  const { documents, withheld } = await probedDocuments(api, window, now);
  const url = await completedOperation(api, window, options, sleep, documents.withCustomer);
  if (!url) return; // No order in the window.
  yield* resultOrders(api, url, options.downloadIdleMs ?? 5 * 60_000, now, withheld);
}

/** The order documents for the scopes the shop still grants, and whether its contact data is withheld. */
async function probedDocuments(
  api: ShopifyAdminApi,
  window: OrderWindow,
  now: () => Date,
): Promise<{ documents: Awaited<ReturnType<typeof orderDocuments>>; withheld: boolean }> {
  let documents = await orderDocuments(api);
  // A bulk result carries no errors beside its data: one order read the usual way tells whether contact data is
  // withheld, and whether the scopes the documents were built for are still granted.
  const probe = await api
    .queryPartial(documents.orders, { first: 1, after: null, query: filterFor(window) }, 4)
    .catch((error: unknown) => {
      throw explainScope(error, window.since, now());
    });
  const denied = deniedFields(probe.partialErrors);
  if (denied.missingScopes.length > 0) {
    forgetScopes(api);
    documents = await orderDocuments(api);
  }
  return { documents, withheld: denied.withheld };
}

/** Runs the shop's bulk operation to its end, one instance at a time: its result's URL, or null for no order. */
async function completedOperation(
  api: ShopifyAdminApi,
  window: OrderWindow,
  options: BulkOptions,
  sleep: (ms: number) => Promise<void>,
  withCustomer: boolean,
): Promise<{ url: string; orders: number } | null> {
  const started = Date.now();
  const waitedTooLong = () => Date.now() - started > (options.maxWaitMs ?? 4 * 60 * 60_000);
  let wait = options.pollMs ?? 1000;
  const backoff = async () => {
    await sleep(wait);
    wait = Math.min(Math.ceil(wait * 1.5), options.maxPollMs ?? 30_000);
  };

  for (;;) {
    const ran = await options.exclusive(`shopify-bulk:${api.shop}`, () =>
      runToCompletion(api, bulkOrdersQuery(filterFor(window), withCustomer), backoff, waitedTooLong),
    );
    if (ran.ran) return ran.value;
    // Another instance runs this shop's bulk operation: wait for it to finish, then run ours.
    if (waitedTooLong())
      throw new ShopifyAdminError(
        `another instance's bulk operation on ${api.shop} did not finish in time`,
        'UNAVAILABLE',
        true,
      );
    await backoff();
  }
}

/** The result's orders, read a line at a time from Shopify's storage; a result cut short fails. */
async function* resultOrders(
  api: ShopifyAdminApi,
  url: { url: string; orders: number },
  idle: number,
  now: () => Date,
  withheld: boolean,
): AsyncGenerator<OrderEvent> {
  const lines = createInterface({
    input: storage.stream(url.url, { timeout: { connect: 30_000, response: 60_000, socket: idle } }),
    crlfDelay: Infinity,
  });
  let read = 0;
  try {
    for await (const line of lines) {
      if (!line.trim()) continue;
      let node: Record<string, unknown>;
      try {
        node = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // Never the parser's message: it quotes the line, an order with its customer.
        throw new ShopifyAdminError(
          `Shopify's bulk result for ${api.shop} has a line that is not JSON (line ${read + 1})`,
          'UNREADABLE',
          true,
        );
      }
      // Children of nested connections come as lines of their own; the bridge's query has none.
      if ('__parentId' in node) continue;
      read++;
      const event = graphqlOrderToEvent(node, api.shop, 'shopify-resync', now(), withheld);
      if (event) yield event;
    }
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal)
      throw new ShopifyAdminError(
        `Shopify's bulk result for ${api.shop}: ${refusalText(refusal)}`,
        refusal.kind === 'redirect' ? 'REDIRECTED' : 'ADDRESS_REFUSED',
      );
    throw error;
  }
  // A result cut short (a connection closed early) is not taken for the whole: the next run reads the window again.
  if (read < url.orders)
    throw new ShopifyAdminError(
      `Shopify's bulk result for ${api.shop} ended after ${read} of ${url.orders} orders`,
      'UNAVAILABLE',
      true,
    );
}

/**
 * The result lives on Shopify's storage, at a signed URL on another host:
 * its signature is its credential, so no Admin API token goes there (this is
 * not the Admin API's client), and a redirect from it is not followed, to
 * another host or to plain http (the result is customers' data).
 */
const storage = outboundGot({ userAddress: false });

/** Shopify failed the bulk operation for missing access scopes (BulkOperationErrorCode.ACCESS_DENIED). */
class BulkAccessDenied extends ShopifyAdminError {}

/**
 * Starts the operation (waiting while Shopify runs another for this shop) and
 * waits for its result's URL and order count. One that fails or is given up
 * on is cancelled, so that no orphan keeps a place among the shop's
 * concurrent operations. (One left by a process that died finishes on its
 * own; Shopify allows a shop several at once.)
 */
async function runToCompletion(
  api: ShopifyAdminApi,
  query: string,
  backoff: () => Promise<void>,
  waitedTooLong: () => boolean,
): Promise<{ url: string; orders: number } | null> {
  let id: string | undefined;
  while (!id) {
    const data = await api.query<{
      bulkOperationRunQuery: {
        bulkOperation: { id: string } | null;
        userErrors: Array<{ message: string; code?: string | null }>;
      };
    }>(BULK_ORDERS_MUTATION, { query }, 10);
    const { bulkOperation, userErrors } = data.bulkOperationRunQuery;
    if (bulkOperation) {
      id = bulkOperation.id;
      break;
    }
    const busy = userErrors.some((error) => error.code === 'OPERATION_IN_PROGRESS' || error.code === 'LIMIT_REACHED');
    if (!busy || waitedTooLong())
      throw new ShopifyAdminError(
        `Shopify refused the bulk operation for ${api.shop}: ${userErrors.map((error) => error.message).join('; ')}`,
        busy ? 'UNAVAILABLE' : 'USER_ERROR',
        busy,
      );
    await backoff();
  }
  try {
    for (;;) {
      await backoff();
      const { bulkOperation } = await api.query<{ bulkOperation: BulkOperationNode | null }>(
        BULK_STATUS_QUERY,
        { id },
        2,
      );
      if (!bulkOperation) throw new ShopifyAdminError(`Shopify has no bulk operation ${id}`);
      if (bulkOperation.status === 'COMPLETED')
        return bulkOperation.url ? { url: bulkOperation.url, orders: Number(bulkOperation.rootObjectCount) } : null;
      if (['FAILED', 'CANCELED', 'CANCELING', 'EXPIRED'].includes(bulkOperation.status)) {
        const message = `Shopify's bulk operation for ${api.shop} ended ${bulkOperation.status}${bulkOperation.errorCode ? ` (${bulkOperation.errorCode})` : ''}`;
        if (bulkOperation.errorCode === 'ACCESS_DENIED') throw new BulkAccessDenied(message, 'ACCESS_DENIED');
        throw new ShopifyAdminError(
          message,
          bulkOperation.errorCode ?? undefined,
          bulkOperation.errorCode === 'INTERNAL_SERVER_ERROR' || bulkOperation.errorCode === 'TIMEOUT',
        );
      }
      if (waitedTooLong())
        throw new ShopifyAdminError(
          `Shopify's bulk operation for ${api.shop} did not finish in time`,
          'UNAVAILABLE',
          true,
        );
    }
  } catch (error) {
    await api.query(BULK_CANCEL_MUTATION, { id }, 10).catch(() => undefined);
    throw error;
  }
}
