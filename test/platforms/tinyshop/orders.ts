// TinyShop, a made-up platform that proves a new platform is one folder (docs/development.md, "Adding a
// platform"). Its orders as it sends and serves them, and how each becomes the bridge's OrderEvent.
import type { Fact, OrderEventInput } from '../../../src/core/order-event.ts';

export const PLATFORM = 'tinyshop';

/** An order as TinyShop's webhooks carry it and its API answers it. */
export interface TinyOrder {
  id: number;
  number: string;
  status: 'paid' | 'fulfilled' | 'cancelled' | 'refunded';
  total: string;
  currency: string;
  customer: { name: string; email: string; phone: string | null };
  updated_at: string;
}

const FACTS: Record<TinyOrder['status'], Fact[]> = {
  paid: ['placed', 'paid'],
  fulfilled: ['placed', 'paid', 'fulfilled'],
  cancelled: ['placed', 'cancelled'],
  refunded: ['placed', 'paid', 'fullyRefunded'],
};

export function isTinyOrder(value: unknown): value is TinyOrder {
  const order = value as Partial<TinyOrder> | null;
  return (
    typeof order === 'object' &&
    order !== null &&
    Number.isSafeInteger(order.id) &&
    typeof order.number === 'string' &&
    typeof order.status === 'string' &&
    order.status in FACTS &&
    typeof order.total === 'string' &&
    typeof order.updated_at === 'string'
  );
}

export const orderEvent = (store: string, order: TinyOrder, deliveryId: string): OrderEventInput => ({
  platform: PLATFORM,
  shop: store,
  orderId: String(order.id),
  orderName: `#${order.number}`,
  deliveryId,
  occurredAt: order.updated_at,
  facts: FACTS[order.status],
  customer: { name: order.customer.name, email: order.customer.email, mobile: order.customer.phone },
  total: { amount: order.total, currency: order.currency },
  subtotal: order.total,
  test: false,
  source: 'web',
  discountCodes: [],
});
