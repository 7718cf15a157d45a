// BigCommerce: Standard Webhooks verification, status mapping, and the real
// payloads in ../shared/fixtures when present.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createBigCommerceAdapter } from '../../adapters/bigcommerce/adapter.ts';
import { BC_STATUS_FACTS, bigCommerceOrderToEvent } from '../../adapters/bigcommerce/order-events.ts';
import { BC_SECRET, bcHeaders, bcOrder, bcPayload, signBigCommerce } from '../helpers/bigcommerce.ts';

const adapter = createBigCommerceAdapter({ clientSecret: BC_SECRET });
const raw = (body: string, headers: Record<string, string>) => ({ body: Buffer.from(body), headers, receivedAt: new Date() });
const now = () => Math.floor(Date.now() / 1000);

describe('verification', () => {
  const body = bcPayload('store/order/created', 101);

  it('accepts a signed delivery and reads the order id and hash', async () => {
    const result = await adapter.verify(raw(body, bcHeaders(body, { id: 'msg_a' })));
    expect(result).toMatchObject({ ok: true, delivery: { webhookId: 'msg_a', scope: 'store/order/created', orderId: '101' } });
  });

  it('accepts one good signature among several, as during a secret rotation', async () => {
    const timestamp = now();
    const signature = `${signBigCommerce('msg_r', timestamp, body, 'old-secret')} ${signBigCommerce('msg_r', timestamp, body)}`;
    expect((await adapter.verify(raw(body, bcHeaders(body, { id: 'msg_r', timestamp, signature })))).ok).toBe(true);
  });

  const cases: Array<[string, string, Record<string, string>, number]> = [
    ['no signature', body, { ...bcHeaders(body), 'webhook-signature': '' }, 401],
    ['a wrong signature', body, bcHeaders(body, { secret: 'someone-else' }), 401],
    ['a timestamp 6 minutes old', body, bcHeaders(body, { timestamp: now() - 360 }), 401],
    ['a timestamp 6 minutes ahead', body, bcHeaders(body, { timestamp: now() + 360 }), 401],
    ['a body re-encoded after signing', JSON.stringify(JSON.parse(body), null, 2), bcHeaders(body), 401],
    ['a signature of another version', body, { ...bcHeaders(body), 'webhook-signature': 'v2,abc' }, 401],
    ['no webhook-id', body, (({ 'webhook-id': _, ...rest }) => rest)(bcHeaders(body)), 400],
    ['no webhook-timestamp', body, (({ 'webhook-timestamp': _, ...rest }) => rest)(bcHeaders(body)), 400],
  ];
  it.each(cases)('refuses %s', async (_name, sent, headers, status) => {
    expect(await adapter.verify(raw(sent, headers))).toMatchObject({ ok: false, status });
  });

  it('dedupes on the payload hash as well as the webhook id', async () => {
    const result = await adapter.verify(raw(body, bcHeaders(body)));
    if (!result.ok) throw new Error(result.reason);
    const info = adapter.describe(result.delivery);
    expect(info.aliases?.[0]).toMatch(/^bigcommerce:hash:/);
  });

  it('dead-letters an order delivery when the API cannot be read, saying which settings', async () => {
    const result = await adapter.verify(raw(body, bcHeaders(body)));
    if (!result.ok) throw new Error(result.reason);
    expect(await adapter.toEvents(result.delivery)).toMatchObject({ kind: 'unusable', reason: expect.stringContaining('BIGCOMMERCE_ACCESS_TOKEN') });
  });
});

describe('status mapping', () => {
  it.each(Object.entries(BC_STATUS_FACTS))('status %s shows %j', (statusId, facts) => {
    expect(bigCommerceOrderToEvent(bcOrder(1, Number(statusId)), [], 'lbtest01', 'd', new Date())?.facts).toEqual(facts);
  });

  it('reads the customer, total, refunded amount and coupons of a V2 order', () => {
    const event = bigCommerceOrderToEvent(bcOrder(2, 14, { refunded: '20.0000', couponDiscount: '5.0000' }), [{ code: 'LOYALTY-9', discount: 5 }], 'lbtest01', 'd', new Date());
    expect(event).toMatchObject({
      orderId: '2',
      occurredAt: '2026-11-19T12:00:00.000Z',
      customer: { name: 'Dorothy Vaughan', email: 'dorothy@example.com', mobile: '+17575550199' },
      total: { amount: '150.0000', currency: 'USD' },
      refunds: [{ id: 'refunded_amount', amount: '20.0000' }],
      discountCodes: [{ code: 'LOYALTY-9', amount: '5' }],
    });
  });
});

const FIXTURES = new URL('../../../shared/fixtures/bigcommerce/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

describe.skipIf(!existsSync(FIXTURES))('real payloads from ../shared/fixtures/bigcommerce', () => {
  it.each([
    ['webhook-order-statusUpdated.capture.json', 'store/order/statusUpdated', '423'],
    ['webhook-order-created.capture.json', 'store/order/created', '2749'],
    ['webhook-order-refund-created.docs-example.json', 'store/order/refund/created', '250'],
  ])('verifies and reads %s once signed', async (name, scope, orderId) => {
    const body = fixture(name);
    const result = await adapter.verify(raw(body, bcHeaders(body)));
    expect(result).toMatchObject({ ok: true, delivery: { scope, orderId } });
  });

  it('reads the orders of a recorded V2 list', () => {
    const [order] = JSON.parse(fixture('v2-orders-list.2013.json')) as unknown[];
    const event = bigCommerceOrderToEvent(order, [], 'store', 'd', new Date());
    expect(event).toMatchObject({ orderId: '100', facts: ['placed', 'paid'], occurredAt: '2013-03-24T23:07:53.000Z', total: { amount: '158.9500' } });
  });
});
