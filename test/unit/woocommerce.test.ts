// WooCommerce: verification (the ping included), status mapping, refunds,
// dedupe keys, and the real payloads in ../shared/fixtures when present.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWooAdapter } from '../../adapters/woocommerce/adapter.ts';
import { WOO_STATUS_FACTS } from '../../adapters/woocommerce/order-events.ts';
import type { WooDelivery } from '../../adapters/woocommerce/verify.ts';
import { applyEvent, newOrderRecord } from '../../src/core/order-record.ts';
import { translateRaw } from '../helpers/adapters.ts';
import { signWoo, WOO_SECRET, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';
import { fixturesOf } from '../helpers/test-tools.ts';

const adapter = createWooAdapter({ secrets: WOO_SECRET, url: 'https://wp.lb-test.example' });
const raw = (body: string | Buffer, headers: Record<string, string>) => ({
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  headers,
  receivedAt: new Date(),
});
async function verified(body: string, headers: Record<string, string>): Promise<WooDelivery> {
  const result = await adapter.verify(raw(body, headers));
  if (!result.ok) throw new Error(result.reason);
  return result.delivery;
}
async function eventOf(topic: string, body: string) {
  const translation = await translateRaw(adapter, body, wooHeaders(topic, body));
  if (translation.kind !== 'events') throw new Error(JSON.stringify(translation));
  return translation.events[0]!;
}

describe('verification', () => {
  it('accepts a signed delivery', async () => {
    const body = wooOrderJson({ id: 1, status: 'processing' });
    expect((await adapter.verify(raw(body, wooHeaders('order.updated', body)))).ok).toBe(true);
  });

  it('answers the ping of a new webhook, unsigned, with a plain 200-worthy result', async () => {
    const delivery = await verified('webhook_id=12', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(delivery.kind).toBe('ping');
    expect(adapter.describe(delivery).ignore).toMatch(/ping/);
  });

  const body = wooOrderJson({ id: 2, status: 'processing' });
  const good = wooHeaders('order.updated', body);
  const cases: Array<[string, string, Record<string, string>, number]> = [
    ['no signature', body, { ...good, 'x-wc-webhook-signature': '' }, 401],
    ['a wrong signature', body, { ...good, 'x-wc-webhook-signature': signWoo('{}') }, 401],
    ["another store's secret", body, { ...good, 'x-wc-webhook-signature': signWoo(body, 'other-secret') }, 401],
    ['a body re-encoded after signing', JSON.stringify(JSON.parse(body), null, 1), good, 401],
    [
      'an unsigned JSON body pretending to be a ping',
      '{"webhook_id": 12}',
      { 'content-type': 'application/json' },
      401,
    ],
    [
      'a ping body with WooCommerce headers but no signature',
      'webhook_id=12',
      { 'x-wc-webhook-topic': 'order.updated' },
      401,
    ],
    ['a signed body with no topic header', body, { 'x-wc-webhook-signature': good['x-wc-webhook-signature']! }, 400],
  ];
  it.each(cases)('refuses %s', async (_name, sent, headers, status) => {
    expect(await adapter.verify(raw(sent, headers))).toMatchObject({ ok: false, status });
  });
});

describe('status mapping', () => {
  it.each(Object.entries(WOO_STATUS_FACTS))('%s shows %j', async (status, facts) => {
    expect((await eventOf('order.updated', wooOrderJson({ id: 3, status }))).facts).toEqual(facts);
  });

  it('reads a stale order.created that already says completed as completed', async () => {
    expect((await eventOf('order.created', wooOrderJson({ id: 4, status: 'completed' }))).facts).toContain('fulfilled');
  });

  it('reads a partial refund from refunds[], whose totals are negative strings', async () => {
    const event = await eventOf(
      'order.updated',
      wooOrderJson({ id: 5, status: 'completed', total: '64.00', refunds: [{ id: 91, total: '-14.00' }] }),
    );
    expect(event.refunds).toEqual([{ id: '91', amount: '14.00' }]);
    const record = newOrderRecord(event, 'now');
    applyEvent(record, event, 'k', 'now');
    expect(record.facts).toContain('partiallyRefunded');
    expect(record.facts).not.toContain('fullyRefunded');
  });

  it('reads the subtotal as the line items’ totals: after coupons, before shipping and tax', async () => {
    const body = JSON.parse(wooOrderJson({ id: 8, status: 'processing', total: '80.40' })) as Record<string, unknown>;
    body.line_items = [
      { id: 1, total: '40.00' },
      { id: 2, total: '25.50' },
    ];
    expect((await eventOf('order.updated', JSON.stringify(body))).subtotal).toBe('65.5');
  });

  it('maps the customer, with the mobile in E.164 from the billing country', async () => {
    expect((await eventOf('order.updated', wooOrderJson({ id: 6, status: 'processing' }))).customer).toEqual({
      name: 'Katherine Johnson',
      email: 'katherine@example.com',
      mobile: '+33612345678',
    });
  });

  it('records order.deleted without cancelling: a trashed order can be restored', async () => {
    const body = '{"id": 7}';
    expect((await translateRaw(adapter, body, wooHeaders('order.deleted', body))).kind).toBe('recorded');
  });
});

describe('dedupe keys', () => {
  it('differ for two orders sent in the same second with the same delivery id', async () => {
    const a = wooOrderJson({ id: 8, status: 'processing' });
    const b = wooOrderJson({ id: 9, status: 'processing' });
    const keyOf = async (body: string) =>
      adapter.describe(await verified(body, wooHeaders('order.updated', body, { deliveryId: '1700000000' }))).key;
    expect(await keyOf(a)).not.toBe(await keyOf(b));
  });

  it('are the same for the same delivery sent twice, and differ when the order changed', async () => {
    const body = wooOrderJson({ id: 10, status: 'processing' });
    const later = wooOrderJson({ id: 10, status: 'completed', modified: '2026-11-19T11:00:00' });
    const keyOf = async (sent: string, deliveryId: string) =>
      adapter.describe(await verified(sent, wooHeaders('order.updated', sent, { deliveryId }))).key;
    expect(await keyOf(body, '1')).toBe(await keyOf(body, '2'));
    expect(await keyOf(body, '1')).not.toBe(await keyOf(later, '1'));
  });
});

const FIXTURES = fixturesOf('woocommerce');
const fixture = (name: string, key?: string) => {
  const text = readFileSync(new URL(name, FIXTURES), 'utf8');
  return key ? JSON.stringify((JSON.parse(text) as Record<string, unknown>)[key]) : text;
};

describe.skipIf(!existsSync(FIXTURES))('real payloads from ../shared/fixtures/woocommerce', () => {
  it('reads a WooCommerce 8 webhook body for a completed order', async () => {
    const event = await eventOf('order.updated', fixture('order-completed.webhook-body.wc-8.json'));
    expect(event).toMatchObject({ orderId: '15', customer: { email: 'user@example.com' } });
    expect(event.facts).toContain('fulfilled');
  });

  it('reads a processing order with a coupon whose meta_data value is an object', async () => {
    const event = await eventOf('order.updated', fixture('order-processing-with-coupon.rest-v2.json', 'data'));
    expect(event.facts).toEqual(['placed', 'paid']);
    expect(event.discountCodes.length).toBeGreaterThan(0);
  });

  it('reads a completed order with two partial refunds as partially refunded', async () => {
    const event = await eventOf('order.updated', fixture('order-completed-partially-refunded.rest.json', 'data'));
    expect(event.refunds).toHaveLength(2);
    const record = newOrderRecord(event, 'now');
    applyEvent(record, event, 'k', 'now');
    expect(record.facts).toContain('partiallyRefunded');
  });

  it('reads a refunded order as fully refunded', async () => {
    const event = await eventOf('order.updated', fixture('order-fully-refunded.rest-v3.json', 'data'));
    expect(event.facts).toContain('fullyRefunded');
  });
});
