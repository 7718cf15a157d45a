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
    // Each event a millisecond after the one before, in whatever file of the worker made it (issue 67: a time that
    // wrapped every 60 events put a later event before an earlier one for a file that came after others).
    occurredAt: new Date(Date.UTC(2026, 10, 1, 12) + sequence).toISOString(),
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
