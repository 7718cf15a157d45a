// With EARN_TRIGGER=placed an order earns when it is placed, but not every
// order a platform reports is one a customer placed: WooCommerce's
// checkout-draft (a cart at checkout) and failed (payment declined), and
// BigCommerce's Incomplete (status 0, an abandoned checkout) earn nothing.
import { describe, expect, it } from 'vitest';
import { BC_STATUS_FACTS } from '../../adapters/bigcommerce/order-events.ts';
import { WOO_STATUS_FACTS } from '../../adapters/woocommerce/order-events.ts';
import type { Fact } from '../../src/core/order-event.ts';
import { applyEvent, newOrderRecord } from '../../src/core/order-record.ts';
import { plan } from '../../src/core/lifecycle.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { orderEvent } from '../helpers/order-events.ts';

const placedTrigger = { ...DEFAULT_POLICY, earnTrigger: 'placed' as const };
let id = 500;

function nextCall(facts: Fact[]) {
  const event = orderEvent({ orderId: String(++id), facts });
  const record = newOrderRecord(event, event.occurredAt);
  applyEvent(record, event, event.deliveryId, event.occurredAt);
  return plan(record, placedTrigger, new Date()).next?.kind;
}

describe('EARN_TRIGGER=placed', () => {
  it.each([
    ['WooCommerce checkout-draft', WOO_STATUS_FACTS['checkout-draft'] ?? []],
    ['WooCommerce failed', WOO_STATUS_FACTS.failed ?? []],
    ['BigCommerce Incomplete (0)', BC_STATUS_FACTS[0] ?? []],
  ])('%s earns nothing', (_name, facts) => {
    expect(nextCall(facts)).toBeUndefined();
  });

  it.each([
    ['WooCommerce pending', WOO_STATUS_FACTS.pending ?? []],
    ['WooCommerce on-hold', WOO_STATUS_FACTS['on-hold'] ?? []],
    ['BigCommerce Pending (1)', BC_STATUS_FACTS[1] ?? []],
  ])('%s, a placed order, earns', (_name, facts) => {
    expect(nextCall(facts)).toBe('earn');
  });
});
