// Order events for the benchmarks: the nth order of a series, with its own
// id range, name and customer, as Shopify would send them.
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';

export interface Series {
  /** Names the series in order names, delivery ids and e-mails. */
  name: string;
  firstId: number;
  facts: Fact[];
  total: string;
  /** When the first order happened; the nth is stepMs later. */
  from: number;
  stepMs: number;
}

export function benchOrder(series: Series, n: number): OrderEvent {
  return {
    platform: 'shopify',
    shop: 'bench-store.myshopify.com',
    orderId: String(series.firstId + n),
    orderName: `#${series.name}${n}`,
    deliveryId: `${series.name}-${n}`,
    occurredAt: new Date(series.from + n * series.stepMs).toISOString(),
    facts: series.facts,
    customer: {
      name: `${series.name} ${n}`,
      email: `${series.name.toLowerCase()}${n}@example.com`,
      mobile: '+12125550142',
    },
    total: { amount: series.total, currency: 'USD' },
    test: false,
    source: 'web',
    discountCodes: [],
    attributes: {},
    landingSite: null,
    refunds: [],
  };
}
