// BigCommerce: Standard Webhooks verification, status mapping, and the real
// payloads in ../shared/fixtures when present.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createBigCommerceAdapter } from '../../adapters/bigcommerce/adapter.ts';
import {
  BC_STATUS_FACTS,
  bigCommerceCurrency,
  bigCommerceOrderToEvent,
  bigCommerceSource,
} from '../../adapters/bigcommerce/order-events.ts';
import { BC_SECRET_HEADER } from '../../adapters/bigcommerce/verify.ts';
import { receive, translateRaw } from '../helpers/adapters.ts';
import { BC_SECRET, BC_STORE, bcHeaders, bcOrder, bcPayload, signBigCommerce } from '../helpers/bigcommerce.ts';
import { fixturesOf } from '../helpers/test-tools.ts';

const adapter = createBigCommerceAdapter({ clientSecret: BC_SECRET });
const raw = (body: string, headers: Record<string, string>) => ({
  body: Buffer.from(body),
  headers,
  receivedAt: new Date(),
});
const now = () => Math.floor(Date.now() / 1000);

describe('verification', () => {
  const body = bcPayload('store/order/created', 101);

  it('accepts a signed delivery and reads the order id and hash', async () => {
    const result = await adapter.verify(raw(body, bcHeaders(body, { id: 'msg_a' })));
    expect(result).toMatchObject({
      ok: true,
      delivery: { webhookId: 'msg_a', scope: 'store/order/created', orderId: '101' },
    });
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
    ['no webhook-id', body, (({ 'webhook-id': _, ...rest }) => rest)(bcHeaders(body)), 401],
    ['no webhook-timestamp', body, (({ 'webhook-timestamp': _, ...rest }) => rest)(bcHeaders(body)), 401],
  ];
  it.each(cases)('refuses %s', async (_name, sent, headers, status) => {
    expect(await adapter.verify(raw(sent, headers))).toMatchObject({ ok: false, status });
  });

  /** Whether two deliveries would be taken for one another. */
  const shareAKey = async (a: string, b: string) => {
    const [keysA, keysB] = await Promise.all(
      [a, b].map(async (each) => {
        const { info } = await receive(adapter, each, bcHeaders(each));
        return [info.key, ...(info.aliases ?? [])];
      }),
    );
    return keysA?.some((key) => keysB?.includes(key)) ?? false;
  };

  it('dedupes on the webhook id, and on the payload hash only together with the scope and created_at', async () => {
    const { info } = await receive(adapter, body, bcHeaders(body, { id: 'msg_d' }));
    expect(info.key).toBe('bigcommerce:msg_d');
    const payload = JSON.parse(body) as { scope: string; hash: string; created_at: number };
    expect(info.aliases).toEqual([
      `bigcommerce:payload:${BC_STORE}:${payload.scope.toLowerCase()}:${payload.hash}:${payload.created_at}`,
    ]);
  });

  it('tells apart an order’s creation and its update in the same second, whose data and so hash are the same', async () => {
    const created = bcPayload('store/order/created', 78, {}, 'samehash', 1_795_000_000);
    const updated = bcPayload('store/order/updated', 78, {}, 'samehash', 1_795_000_000);
    expect(await shareAKey(created, updated)).toBe(false);
  });

  it('tells apart two updates of one order whose payload hash is the same', async () => {
    // For store/order/updated the hashed data is only {type, id}: every update of the order has the same hash.
    const first = bcPayload('store/order/updated', 77, {}, 'samehash', 1_795_000_000);
    const second = bcPayload('store/order/updated', 77, {}, 'samehash', 1_795_000_060);
    expect(await shareAKey(first, second)).toBe(false);
  });

  it('dead-letters an order delivery when the API cannot be read, saying which settings', async () => {
    expect(await translateRaw(adapter, body, bcHeaders(body))).toMatchObject({
      kind: 'unusable',
      reason: expect.stringContaining('BIGCOMMERCE_ACCESS_TOKEN'),
    });
  });
});

describe('the secret header of hooks the bridge creates', () => {
  const secret = 'a-secret-header-value-for-bc-tests';
  const withHeader = createBigCommerceAdapter({ headerSecret: secret });
  const body = bcPayload('store/order/statusUpdated', 102);

  it('accepts a delivery carrying it, and dedupes on hash and time', async () => {
    const { info } = await receive(withHeader, body, {
      'content-type': 'application/json',
      [BC_SECRET_HEADER]: secret,
    });
    expect(info.key).toMatch(/^bigcommerce:payload:/);
  });

  it.each([
    ['a wrong value', { [BC_SECRET_HEADER]: 'not-the-secret-header-value-xx' }],
    ['no header at all', {}],
    ['a Standard Webhooks signature when no client secret is set', bcHeaders(body)],
  ])('refuses %s with 401', async (_name, headers) => {
    expect(await withHeader.verify(raw(body, { 'content-type': 'application/json', ...headers }))).toMatchObject({
      ok: false,
      status: 401,
    });
  });
});

describe('status mapping', () => {
  it.each(Object.entries(BC_STATUS_FACTS))('status %s shows %j', (statusId, facts) => {
    expect(bigCommerceOrderToEvent(bcOrder(1, Number(statusId)), [], 'lbtest01', 'd', new Date())?.facts).toEqual(
      facts,
    );
  });

  it('reads the customer, total, refunded amount and coupons of a V2 order', () => {
    const event = bigCommerceOrderToEvent(
      bcOrder(2, 14, { refunded: '20.0000', couponDiscount: '5.0000' }),
      [{ code: 'LOYALTY-9', discount: 5 }],
      'lbtest01',
      'd',
      new Date(),
    );
    expect(event).toMatchObject({
      orderId: '2',
      occurredAt: '2026-11-19T12:00:00.000Z',
      customer: { name: 'Dorothy Vaughan', email: 'dorothy@example.com', mobile: '+17575550199' },
      total: { amount: '150.0000', currency: 'USD' },
      refunds: [{ id: 'refunded_amount', amount: '20.0000' }],
      discountCodes: [{ code: 'LOYALTY-9', amount: '5' }],
    });
  });

  it('reads the subtotal after the order’s discounts and coupons (V2’s subtotal_ex_tax is before them)', () => {
    const order = {
      ...bcOrder(3, 11, { total: '130.0000', subtotal: '120.0000', couponDiscount: '10.0000' }),
      discount_amount: '2.5000',
    };
    expect(bigCommerceOrderToEvent(order, [], 'lbtest01', 'd', new Date())?.subtotal).toBe('107.5');
  });
});

describe('a delivery is authentic when either the header secret or a signature checks out', () => {
  const header = 'a-secret-header-value-for-bc-tests';
  const both = createBigCommerceAdapter({ clientSecret: BC_SECRET, headerSecret: header });
  const body = bcPayload('store/order/created', 103);
  it.each([
    [
      'the header secret, and a signature by a client secret the bridge does not hold',
      { ...bcHeaders(body, { secret: 'an-api-accounts-secret' }), [BC_SECRET_HEADER]: header },
      true,
    ],
    [
      'the header secret, and a signature without its id and timestamp',
      { 'content-type': 'application/json', 'webhook-signature': 'v1,abc', [BC_SECRET_HEADER]: header },
      true,
    ],
    [
      'a good signature, and a wrong header secret',
      { ...bcHeaders(body), [BC_SECRET_HEADER]: 'x'.repeat(header.length) },
      true,
    ],
    [
      'a wrong header secret, and a signature by another secret',
      { ...bcHeaders(body, { secret: 'an-api-accounts-secret' }), [BC_SECRET_HEADER]: 'x'.repeat(header.length) },
      false,
    ],
    ['neither', { 'content-type': 'application/json' }, false],
  ])('%s', async (_name, headers, accepted) => {
    const result = await both.verify(raw(body, headers));
    expect(result.ok).toBe(accepted);
    if (!result.ok)
      expect(result).toMatchObject({
        status: 401,
        reason: expect.stringMatching(/x-loyalty-bridge-token.*webhook-signature/),
      });
  });

  it('checks the header secret of the store the delivery names', async () => {
    const perStore = createBigCommerceAdapter({
      headerSecretsFor: async (storeHash) => (storeHash === 'alpha1' ? ['alpha-secret-for-bc-tests-0123'] : []),
    });
    const alpha = bcPayload('store/order/created', 104).replace(`stores/${BC_STORE}`, 'stores/alpha1');
    expect((await perStore.verify(raw(alpha, { [BC_SECRET_HEADER]: 'alpha-secret-for-bc-tests-0123' }))).ok).toBe(true);
    expect((await perStore.verify(raw(body, { [BC_SECRET_HEADER]: 'alpha-secret-for-bc-tests-0123' }))).ok).toBe(false);
  });
});

describe('what a V2 order says of its currency and source', () => {
  it('takes the transactional currency (default_currency_code), not the display one, and currency_code when that is all there is', () => {
    expect(
      bigCommerceCurrency({ currency_code: 'USD', default_currency_code: 'EUR', currency_exchange_rate: '1.08' }),
    ).toBe('EUR');
    expect(bigCommerceCurrency({ currency_code: 'GBP' })).toBe('GBP');
  });

  it.each([
    [{ order_source: 'external', external_source: 'POS' }, 'pos'],
    [{ order_source: 'external', external_source: 'POS (Square)' }, 'pos'],
    [{ order_source: 'manual', external_source: 'pos' }, 'pos'],
    [{ order_source: 'external', external_source: 'ERP (Acumatica)' }, 'external'],
    [{ order_source: 'www', external_source: null }, 'www'],
    [{ order_source: 'www', external_source: 'POSTAL-IMPORT' }, 'www'],
  ])('%j comes from %s', (fields, source) => {
    expect(bigCommerceSource(fields)).toBe(source);
  });
});

const FIXTURES = fixturesOf('bigcommerce');
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
    expect(event).toMatchObject({
      orderId: '100',
      facts: ['placed', 'paid'],
      occurredAt: '2013-03-24T23:07:53.000Z',
      total: { amount: '158.9500', currency: 'USD' },
    });
  });
});
