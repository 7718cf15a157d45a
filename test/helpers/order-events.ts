// The project's own order events for core tests: built here, not copied from
// any platform.
import type { Fact, OrderEvent } from '../../src/core/order-event.ts';

let sequence = 0;

export function orderEvent(overrides: Partial<OrderEvent> & { orderId: string; facts: Fact[] }): OrderEvent {
  sequence++;
  return {
    platform: 'testshop',
    shop: 'shop-1',
    orderName: `#${overrides.orderId}`,
    deliveryId: `delivery-${sequence}`,
    occurredAt: new Date(Date.UTC(2026, 10, 1, 12, 0, sequence % 60, sequence % 1000)).toISOString(),
    customer: { name: 'Ada Lovelace', email: 'ada@example.com', mobile: '+447700900123' },
    total: { amount: '120.00', currency: 'EUR' },
    test: false,
    source: 'web',
    discountCodes: [],
    attributes: {},
    landingSite: null,
    refunds: [],
    ...overrides,
  };
}
