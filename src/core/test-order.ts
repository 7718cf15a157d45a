// A test order, made up by the bridge for a merchant who wants to see their
// set-up work before a customer buys (issue 34's first run: "send a test
// order from the page, see it earn"). It enters the ledger as a platform's
// order would, as events, and lives as one: paid, so it earns on the shop's
// account under the shop's rules; cancelled on the merchant's word, so its
// points are cancelled. Nothing about it reaches the store's platform.
//
// Its id is 20 digits beginning 99: above 2^63, so no platform's order id
// (Shopify's, WooCommerce's and BigCommerce's are 64-bit at most) can be the
// same. Its customer is made up too (example.com, a 555-01xx number that is
// never anyone's), so it earns for no real customer of the program.
import { randomInt } from 'node:crypto';
import type { OrderEvent } from './order-event.ts';

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

/** The order's events, as a platform's would say them: paid, and later cancelled. */
export function testOrderEvent(order: TestOrder, step: 'paid' | 'cancelled', at: Date = new Date()): OrderEvent {
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
    total: { amount: '50.00', currency: 'USD' },
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
