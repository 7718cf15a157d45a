// A shop's test orders (core/test-order.ts), from its own page, on an account of the shop's own only: on the
// operator's account a made-up order would earn in the operator's program. Each enters the ledger as events,
// durably, before the answer. A shop makes at most 10 an hour, counted from the records the ledger keeps, so a
// page cannot fill the account with them. The answer waits, a little, for the order to be kept: the page looks
// it up at once, and a look before the intake folded it was a 404 in the merchant's console.
import { orderKey } from '../../core/order-event.ts';
import type { OrderWorkRole, OperatorQueries, RecordRole, LedgerLifecycle } from '../../core/store/ledger-store.ts';
import {
  isTestOrderId,
  newTestOrderId,
  testOrderEvent,
  type TestOrder,
  TEST_ORDER_KIND,
} from '../../core/test-order.ts';
import type { MerchantAsker, MerchantContext } from './parts.ts';

const KIND = TEST_ORDER_KIND;
const TEST_ORDERS_PER_HOUR = 10;
/** Kept for a cancel this long; each new one of the shop takes the older ones away. */
const KEPT_MS = 30 * 86_400_000;
/** How long the answer waits for the order to be kept: the intake folds it within milliseconds, seconds when busy. */
const FOLDED_WITHIN_MS = 5_000;

type Store = OrderWorkRole & OperatorQueries & RecordRole & LedgerLifecycle;

/**
 * Waits on the ledger's news (store.onWork: an entry taken, an order folded, on this instance or another), not on a
 * timer: `until(found, deadline)` asks `found` again at each piece of news, until it answers true or the deadline.
 */
export function ledgerNews(store: Store) {
  let waiting = new Set<() => void>();
  let listening = false;
  return async (found: () => Promise<boolean>, deadline: number): Promise<void> => {
    // At the first wait, not when the service is made: making it asks nothing of the store.
    if (!listening) {
      listening = true;
      store.onWork(() => {
        const woken = waiting;
        waiting = new Set();
        for (const wake of woken) wake();
      });
    }
    for (;;) {
      let wake = () => {};
      // Listening before the look: news between the look and the wait is not missed.
      const news = new Promise<void>((resolve) => (wake = resolve));
      waiting.add(wake);
      const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
      try {
        if ((await found()) || Date.now() >= deadline) return;
        await news;
      } finally {
        clearTimeout(timer);
        waiting.delete(wake);
      }
    }
  };
}

/** The shop's currency as its newest real order names it; none yet: dollars. */
async function shopCurrency(store: Store, platform: string, shop: string): Promise<string> {
  const { orders } = await store.listOrders({ page: 1, limit: 20, platform, shop });
  return orders.find((order) => order.total && !isTestOrderId(order.orderId))?.total?.currency ?? 'USD';
}

/** A shop's test order, by its shop too: two shops' ids made in one millisecond may meet. */
const recordId = (order: Pick<TestOrder, 'platform' | 'shop' | 'orderId'>) => orderKey(order);

/** The test orders' use cases, with one wait on the ledger's news shared by every request. */
export function testOrders(ctx: MerchantContext) {
  const { store, ingest, logger } = ctx;
  const untilFound = ledgerNews(store);

  async function send({ shop: ref, by }: MerchantAsker) {
    await ctx.ownAccount(ref, 'change');
    const { platform, shop } = ref;
    const cap = {
      what: 'test order',
      limit: TEST_ORDERS_PER_HOUR,
      madeSince: async (since: string) => {
        const ofShop = (await store.listRecords(KIND)).filter(
          ({ value }) => value.platform === platform && value.shop === shop,
        );
        const expired = new Date(Date.now() - KEPT_MS).toISOString();
        for (const { id, value } of ofShop) if (value.at < expired) await store.deleteRecord(KIND, id);
        return ofShop.filter(({ value }) => value.at > since).length;
      },
      refusal: `a shop sends at most ${TEST_ORDERS_PER_HOUR} test orders an hour`,
    };
    const sent = await ctx.hourly(ref, cap, async () => {
      const now = Date.now();
      const order: TestOrder = { platform, shop, orderId: newTestOrderId(now), at: new Date(now).toISOString(), by };
      await store.putRecord(KIND, recordId(order), order);
      const event = testOrderEvent(order, 'paid', await shopCurrency(store, platform, shop));
      await ingest.events(event.deliveryId, [event]);
      logger.info({ shop, order: order.orderId, by: order.by }, 'a shop sent a test order');
      return { testOrder: { ...order, key: orderKey(order), orderName: event.orderName } };
    });
    // Outside the shop's one-at-a-time step: a second click meanwhile is counted, not refused as under way. Until
    // the order is kept (folded from the inbox), for a while at most: it is durable either way.
    const { key } = sent.testOrder;
    await untilFound(async () => (await store.getOrder(key)) !== undefined, Date.now() + FOLDED_WITHIN_MS);
    return sent;
  }

  /** One of the shop's test orders cancelled; null for another shop's, or a real order's id. */
  async function cancel({ shop: ref, by }: MerchantAsker, id: string) {
    await ctx.ownAccount(ref, 'change');
    const { platform, shop } = ref;
    const order = isTestOrderId(id)
      ? await store.getRecord(KIND, recordId({ platform, shop, orderId: id }))
      : undefined;
    if (!order) return null;
    // In the currency it was paid in.
    const currency = (await store.getOrder(orderKey(order)))?.snapshot.total.currency || 'USD';
    const event = testOrderEvent(order, 'cancelled', currency);
    const result = await ingest.events(event.deliveryId, [event]);
    logger.info({ shop, order: id, by }, 'a shop cancelled a test order');
    return {
      testOrder: { ...order, key: orderKey(order) },
      cancelled: result === 'accepted' ? ('now' as const) : ('already' as const),
    };
  }

  return { send, cancel };
}
