// A test order the bridge makes up, so that a merchant sees their set-up work before a customer buys. It
// enters the ledger as events and lives as a real order: paid, it earns on the shop's account under its
// rules; cancelled on the merchant's word, its points are cancelled. Nothing reaches the platform. Its id is
// 20 digits beginning 99, above 2^63, so no platform's 64-bit order id can be the same; its customer is made
// up too (example.com, a 555-01xx number), so it earns for no real customer.
import { randomInt } from 'node:crypto';
import type { OrderEvent } from './order-event.ts';
import { z } from 'zod';
import { recordType } from './store/roles/record-types.ts';

export const TEST_ORDER_PREFIX = '99';
const ID_DIGITS = 20;

export const isTestOrderId = (orderId: string) => orderId.length === ID_DIGITS && orderId.startsWith(TEST_ORDER_PREFIX);

export function newTestOrderId(now: number = Date.now()): string {
  const time = String(now).padStart(13, '0').slice(-13);
  return `${TEST_ORDER_PREFIX}${time}${String(randomInt(100_000)).padStart(5, '0')}`;
}

export interface TestOrder {
  platform: string;
  shop: string;
  orderId: string;
  /** When the merchant asked for it. */
  at: string;
  /** Who asked, as the audit names them. */
  by: string;
}

export const TEST_ORDER_KIND = recordType<TestOrder>(
  'test-order',
  z.looseObject({ platform: z.string(), shop: z.string(), orderId: z.string(), at: z.string(), by: z.string() }),
);

/**
 * The order's events, as a platform's would say them: paid, and later cancelled; 50.00 in the shop's `currency` (a
 * test order in dollars among a euro shop's orders reads wrong).
 */
export function testOrderEvent(
  order: TestOrder,
  step: 'paid' | 'cancelled',
  currency: string,
  at: Date = new Date(),
): OrderEvent {
  const suffix = order.orderId.slice(-4);
  return {
    platform: order.platform,
    shop: order.shop,
    orderId: order.orderId,
    orderName: `Test order ${suffix}`,
    deliveryId: `test-order:${order.orderId}:${step}`,
    occurredAt: at.toISOString(),
    facts: step === 'paid' ? ['placed', 'paid'] : ['placed', 'paid', 'cancelled'],
    customer: {
      name: 'Test Customer',
      email: `loyalty-test-${suffix}@example.com`,
      mobile: `+1202555${String(100 + (Number(suffix) % 100))
        .slice(-4)
        .padStart(4, '0')}`,
    },
    total: { amount: '50.00', currency },
    subtotal: '50.00',
    refunds: [],
    // Not the platform's test flag: a test order of the bridge's earns, so the merchant sees their rules at work.
    test: false,
    source: 'loyalty-bridge-test',
    discountCodes: [],
    attributes: {},
    landingSite: null,
  };
}
