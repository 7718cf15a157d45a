// Seeded order histories for burst and crash tests, with what each must end as.
import { expect } from 'vitest';
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';
import type { SandboxState } from '../../src/sandbox/store.ts';
import { shopifyOrderJson, type OrderOptions } from './shopify.ts';

export type Expected = 'approved' | 'pending' | 'none';

/**
 * Where a referred order's conversion must end. A cancelled order's was
 * added only if the worker reached it before the cancellation arrived, so it
 * ends rejected, or was never sent: 'rejected' allows both.
 */
export type ExpectedConversion = 'pending' | 'approved' | 'rejected';

export interface ScenarioOrder {
  orderId: string;
  email: string;
  events: OrderEvent[];
  expected: Expected;
  referred: boolean;
  conversion: ExpectedConversion | undefined;
}

const SCENARIOS: Array<{ facts: Fact[]; expected: Expected; conversion: ExpectedConversion | undefined }> = [
  { facts: ['placed', 'paid'], expected: 'pending', conversion: 'pending' },
  { facts: ['placed', 'paid', 'fulfilled'], expected: 'approved', conversion: 'approved' },
  { facts: ['placed', 'paid', 'fulfilled', 'partiallyRefunded'], expected: 'approved', conversion: 'approved' },
  { facts: ['placed', 'paid', 'cancelled'], expected: 'none', conversion: 'rejected' },
  { facts: ['placed', 'paid', 'fulfilled', 'fullyRefunded'], expected: 'none', conversion: 'rejected' },
  { facts: ['placed'], expected: 'none', conversion: undefined },
];

/** The referrer code a referred scenario order carries. */
export const scenarioReferrer = (orderId: string) => `FRIEND-${Number(orderId) % 97}`;
const referralAttributes = (orderId: string) => ({
  loyalty_campaign: '21',
  loyalty_referrer: scenarioReferrer(orderId),
});

/** A small deterministic generator, so a failure can be run again as it was. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function scenarioOrders(
  count: number,
  firstOrderId: number,
  random: () => number,
  platform = 'burst',
): ScenarioOrder[] {
  return Array.from({ length: count }, (_, n) => {
    const scenario = SCENARIOS[Math.floor(random() * SCENARIOS.length)] ?? SCENARIOS[0]!;
    const orderId = String(firstOrderId + n);
    const email = `customer${orderId}@example.com`;
    const referred = scenario.conversion !== undefined && random() < 0.3;
    const events = scenario.facts.map((fact, i): OrderEvent => ({
      platform,
      shop: 'shop',
      orderId,
      orderName: `#${orderId}`,
      deliveryId: `${platform}-${orderId}-${i}`,
      occurredAt: new Date(Date.UTC(2026, 10, 20, 10, i)).toISOString(),
      // One fact a delivery, so that losing any delivery would show.
      facts: [fact],
      customer: { name: `Customer ${orderId}`, email, mobile: '+447700900100' },
      total: { amount: '80.00', currency: 'EUR' },
      test: false,
      source: 'web',
      discountCodes: [],
      attributes: referred ? referralAttributes(orderId) : {},
      landingSite: null,
      refunds: [],
    }));
    return {
      orderId,
      email,
      events,
      expected: scenario.expected,
      referred,
      conversion: referred ? scenario.conversion : undefined,
    };
  });
}

export function shuffle<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/**
 * What the sandbox must hold for the orders: never more than one earning an
 * order, the points where each belongs (a cancelled earning counts as none),
 * and for each referred order one conversion with its referrer, approved with
 * its points or rejected with its cancellation (a cancelled one may never have
 * been added). With voidCancelled, an order cancelled before it earned must
 * have no earning at all.
 */
export function expectOrdersEndRight(
  state: SandboxState,
  orders: ScenarioOrder[],
  { voidCancelled = false } = {},
): void {
  for (const order of orders) {
    const earnings = state.earnings.filter((earning) => earning.orderId === order.orderId);
    expect(earnings.length, `earnings of ${order.orderId}`).toBeLessThanOrEqual(1);
    expect(earnings.find((earning) => earning.status !== 'cancelled')?.status ?? 'none', `order ${order.orderId}`).toBe(
      order.expected,
    );
    if (voidCancelled && order.expected === 'none') expect(earnings, `order ${order.orderId} was void`).toEqual([]);
    const conversions = state.conversions.filter((conversion) => conversion.orderId === order.orderId);
    if (!order.conversion) {
      expect(conversions, `conversions of ${order.orderId}`).toEqual([]);
      continue;
    }
    expect(conversions.length, `conversions of ${order.orderId}`).toBe(
      order.conversion === 'rejected' ? Math.min(conversions.length, 1) : 1,
    );
    for (const conversion of conversions) {
      expect(conversion, `conversion of ${order.orderId}`).toMatchObject({
        status: order.conversion,
        referrer: { field: 'referrer_code', value: scenarioReferrer(order.orderId) },
        event: 'sale',
      });
    }
  }
}

/** The Shopify topic and order state that show one fact, as Shopify would send them. */
const SHOPIFY_FOR: Record<Fact, { topic: string; order: Partial<OrderOptions> }> = {
  placed: { topic: 'orders/create', order: { financialStatus: 'pending' } },
  paid: { topic: 'orders/paid', order: { financialStatus: 'paid' } },
  fulfilled: { topic: 'orders/fulfilled', order: { financialStatus: 'paid', fulfillmentStatus: 'fulfilled' } },
  partiallyRefunded: { topic: 'orders/updated', order: { financialStatus: 'partially_refunded' } },
  fullyRefunded: { topic: 'orders/updated', order: { financialStatus: 'refunded' } },
  cancelled: { topic: 'orders/cancelled', order: { financialStatus: 'pending', cancelledAt: '2026-11-20T11:00:00Z' } },
};

/** Each event of each order as the Shopify delivery that shows its fact. */
export function shopifyDeliveries(orders: ScenarioOrder[]): Array<{ webhookId: string; topic: string; body: string }> {
  return orders.flatMap((order) =>
    order.events.map((event, i) => {
      const shape = SHOPIFY_FOR[event.facts[0] ?? 'placed'];
      const body = shopifyOrderJson({
        id: order.orderId,
        email: order.email,
        updatedAt: new Date(Date.UTC(2026, 10, 20, 10, i)).toISOString(),
        ...(order.referred
          ? {
              noteAttributes: Object.entries(referralAttributes(order.orderId)).map(([name, value]) => ({
                name,
                value,
              })),
            }
          : {}),
        ...shape.order,
      });
      return { webhookId: `${order.events[0]?.platform ?? 'order'}-${order.orderId}-${i}`, topic: shape.topic, body };
    }),
  );
}
