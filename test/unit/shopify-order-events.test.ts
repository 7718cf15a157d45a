// Shopify payloads to OrderEvents: the project's own payloads for every topic,
// then the real ones in ../shared/fixtures/shopify when that folder exists.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { applyEvent, newOrderRecord } from '../../src/core/order-record.ts';
import { parse, stringify } from 'lossless-json';
import { DECLARED_FIELDS } from '../../adapters/shopify/topics.ts';
import { translateRaw } from '../helpers/adapters.ts';
import { onlyFields } from '../helpers/fake-shopify.ts';
import { shopifyHeaders, shopifyOrderJson, shopifyRefundJson, SHOPIFY_SECRET } from '../helpers/shopify.ts';
import { fixturesOf } from '../helpers/test-tools.ts';

const adapter = createShopifyAdapter({ apiSecrets: [SHOPIFY_SECRET] });
const translate = (topic: string, body: string) =>
  translateRaw(
    adapter,
    body,
    shopifyHeaders({ topic, body, webhookId: `wh-${topic}` }),
    new Date('2026-11-21T12:00:00Z'),
  );
async function eventOf(topic: string, body: string): Promise<OrderEvent> {
  const translation = await translate(topic, body);
  if (translation.kind !== 'events') throw new Error(`expected events, got ${JSON.stringify(translation)}`);
  return translation.events[0]!;
}

describe('order topics', () => {
  it.each([
    ['orders/create', { financialStatus: 'pending' }, ['placed']],
    ['orders/paid', { financialStatus: 'paid' }, ['placed', 'paid']],
    // The topic's claim is not taken from its (unsigned) header: without Admin API access, the body alone decides.
    ['orders/paid', { financialStatus: 'pending' }, ['placed']],
    ['orders/fulfilled', { fulfillmentStatus: 'fulfilled' }, ['placed', 'paid', 'fulfilled']],
    ['orders/fulfilled', { fulfillmentStatus: null }, ['placed', 'paid']],
    ['orders/partially_fulfilled', { fulfillmentStatus: 'partial' }, ['placed', 'paid']],
    ['orders/updated', { financialStatus: 'partially_refunded' }, ['placed', 'paid', 'partiallyRefunded']],
    ['orders/updated', { financialStatus: 'refunded' }, ['placed', 'paid', 'fullyRefunded']],
    ['orders/updated', { financialStatus: 'voided' }, ['placed', 'cancelled']],
    ['orders/cancelled', { cancelledAt: '2026-11-20T11:00:00-05:00' }, ['placed', 'paid', 'cancelled']],
    ['orders/cancelled', { cancelledAt: null }, ['placed', 'paid']],
  ] as const)('%s with %j shows %j', async (topic, options, facts) => {
    const event = await eventOf(topic, shopifyOrderJson({ id: '5001', ...options }));
    expect(event.facts.sort()).toEqual([...facts].sort());
  });

  it('carries an order id above 2^53 digit for digit', async () => {
    const event = await eventOf('orders/paid', shopifyOrderJson({ id: '820982911946154508123' }));
    expect(event.orderId).toBe('820982911946154508123');
  });

  it('maps the customer, total, source, codes and note attributes', async () => {
    const event = await eventOf(
      'orders/paid',
      shopifyOrderJson({
        id: '5002',
        totalPrice: '99.50',
        discountCodes: [{ code: 'LOYALTY-77', amount: '5.00', type: 'fixed_amount' }],
        noteAttributes: [{ name: 'loyalty_campaign', value: '31' }],
      }),
    );
    expect(event).toMatchObject({
      platform: 'shopify',
      shop: 'lb-test-store.myshopify.com',
      orderName: '#5002',
      occurredAt: '2026-11-20T15:00:00.000Z',
      customer: { name: 'Grace Hopper', email: 'grace@example.com', mobile: '+12125550142' },
      total: { amount: '99.50', currency: 'USD' },
      source: 'web',
      discountCodes: [{ code: 'LOYALTY-77', amount: '5.00' }],
      attributes: { loyalty_campaign: '31' },
      landingSite: '/collections/all?utm_source=newsletter',
    });
  });

  it('reads the subtotal in the shop’s money, after discounts and before shipping and tax', async () => {
    const event = await eventOf(
      'orders/paid',
      shopifyOrderJson({ id: '5003', totalPrice: '107.40', subtotalPrice: '89.90' }),
    );
    expect(event).toMatchObject({ total: { amount: '107.40' }, subtotal: '89.90' });
  });

  it('takes the mobile from the order first, then the customer, in E.164 with the order country', async () => {
    expect(
      (await eventOf('orders/paid', shopifyOrderJson({ id: '5003', phone: '+44 7700 900123' }))).customer.mobile,
    ).toBe('+447700900123');
    expect(
      (await eventOf('orders/paid', shopifyOrderJson({ id: '5004', customerPhone: '415-555-0100' }))).customer.mobile,
    ).toBe('+14155550100');
  });

  it('falls back from the customer to the billing name, and to the e-mail for the name', async () => {
    expect((await eventOf('orders/paid', shopifyOrderJson({ id: '5005', customer: null }))).customer.name).toBe(
      'Grace Hopper',
    );
    const body = JSON.parse(shopifyOrderJson({ id: '5006', customer: null })) as Record<string, unknown>;
    delete body.billing_address;
    delete body.shipping_address;
    expect((await eventOf('orders/paid', JSON.stringify(body))).customer).toMatchObject({
      name: 'grace',
      mobile: null,
    });
  });

  it('leaves e-mail and phone empty when protected customer data hides them', async () => {
    const event = await eventOf('orders/paid', shopifyOrderJson({ id: '5007', email: null, customer: null }));
    expect(event.customer.email).toBeNull();
  });

  it('marks test orders', async () => {
    expect((await eventOf('orders/paid', shopifyOrderJson({ id: '5008', test: true }))).test).toBe(true);
  });
});

describe('refunds/create', () => {
  it('carries the refunded amount, which against the known total makes a full refund', async () => {
    const order = await eventOf('orders/paid', shopifyOrderJson({ id: '6001', totalPrice: '120.00' }));
    const refund = await eventOf('refunds/create', shopifyRefundJson('6001', '9001', '120.00'));
    expect(refund).toMatchObject({ orderId: '6001', total: null, refunds: [{ id: '9001', amount: '120.00' }] });
    const record = newOrderRecord(order, 'now');
    applyEvent(record, order, 'a', 'now');
    applyEvent(record, refund, 'b', 'now');
    expect(record.facts).toContain('fullyRefunded');
  });

  it('is a partial refund when it returns less than the total', async () => {
    const order = await eventOf('orders/paid', shopifyOrderJson({ id: '6002', totalPrice: '120.00' }));
    const refund = await eventOf('refunds/create', shopifyRefundJson('6002', '9002', '20.00'));
    const record = newOrderRecord(refund, 'now');
    applyEvent(record, refund, 'b', 'now');
    applyEvent(record, order, 'a', 'now');
    expect(record.facts).toContain('partiallyRefunded');
    expect(record.facts).not.toContain('fullyRefunded');
  });
});

const uninstallBody = (domain: string | null) =>
  JSON.stringify({ id: 548380009, name: 'Super Toys', domain: null, myshopify_domain: domain });

describe('other deliveries', () => {
  it.each([
    ['orders/edited', '{"order_edit": {"id": 1, "order_id": 1}}', 'recorded'],
    // Bodies not of their topic: an order is no edit, a name alone is no order, an id alone is no refund, a Shop is no order.
    ['orders/edited', shopifyOrderJson({ id: '1' }), 'mislabelled'],
    ['orders/create', uninstallBody('lb-test-store.myshopify.com'), 'mislabelled'],
    ['app/uninstalled', uninstallBody('lb-test-store.myshopify.com'), 'uninstalled'],
    // Names no shop, and the adapter has no Admin API access to confirm it with Shopify: nothing is forgotten.
    ['app/uninstalled', uninstallBody(null), 'recorded'],
    ['app/uninstalled', '{"id": 1}', 'mislabelled'],
    ['app/uninstalled', uninstallBody('another-store.myshopify.com'), 'mislabelled'],
    ['app/uninstalled', shopifyOrderJson({ id: '2' }), 'mislabelled'],
    ['shop/redact', JSON.stringify({ shop_id: 1, shop_domain: 'lb-test-store.myshopify.com' }), 'privacy'],
    ['shop/redact', JSON.stringify({ shop_id: 1 }), 'mislabelled'],
    [
      'shop/redact',
      JSON.stringify({
        shop_id: 1,
        shop_domain: 'lb-test-store.myshopify.com',
        customer: { id: 1 },
        orders_to_redact: [],
      }),
      'mislabelled',
    ],
    // Its shape, but nothing to erase by: kept as a dead letter for a person.
    [
      'customers/redact',
      JSON.stringify({
        shop_id: 1,
        shop_domain: 'lb-test-store.myshopify.com',
        customer: { id: 1 },
        orders_to_redact: [],
      }),
      'unusable',
    ],
    [
      'customers/redact',
      JSON.stringify({
        shop_id: 1,
        shop_domain: 'lb-test-store.myshopify.com',
        customer: { id: 1, email: 'a@example.com' },
        orders_to_redact: [],
      }),
      'privacy',
    ],
    [
      'customers/redact',
      JSON.stringify({
        shop_id: 1,
        shop_domain: 'lb-test-store.myshopify.com',
        customer: { id: 1 },
        orders_requested: [],
        data_request: { id: 9 },
      }),
      'mislabelled',
    ],
    [
      'customers/data_request',
      JSON.stringify({
        shop_id: 1,
        shop_domain: 'lb-test-store.myshopify.com',
        customer: { id: 1 },
        orders_requested: [],
        data_request: { id: 9 },
      }),
      'privacy',
    ],
    [
      'customers/data_request',
      JSON.stringify({
        shop_id: 1,
        shop_domain: 'other.myshopify.com',
        customer: { id: 1 },
        orders_requested: [],
        data_request: { id: 9 },
      }),
      'mislabelled',
    ],
    ['app/scopes_update', JSON.stringify({ id: 1, previous: ['read_orders'], current: [] }), 'recorded'],
    ['app/scopes_update', shopifyOrderJson({ id: '3' }), 'mislabelled'],
    ['products/update', '{"id": 1}', 'ignored'],
    ['orders/paid', '{"name": "#1001"}', 'mislabelled'],
    ['refunds/create', '{"id": 5}', 'mislabelled'],
    // Shaped as an order, but with no id to know it by: kept as a dead letter.
    ['orders/paid', '{"name": "#1001", "order_number": 1001, "financial_status": "paid"}', 'unusable'],
  ])('%s %s is %s', async (topic, body, kind) => {
    expect((await translate(topic, body)).kind).toBe(kind);
  });

  it.each([
    ['a body that is not JSON', '{"id": '],
    ['a JSON array', '[{"id": 1}]'],
    ['a JSON string', '"paid"'],
    ['a session token’s signed part', 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJodHRwczovL3Nob3AifQ'],
    ['an App URL’s signed query', 'embedded=1&host=abc&shop=lb-test-store.myshopify.com&timestamp=1700000000'],
  ])('refuses %s, signed or not', async (_name, body) => {
    await expect(translate('orders/paid', body)).rejects.toThrow(/refused \(401\): not_a_json_object/);
  });
});

describe('the fields shopify.app.toml asks Shopify for', () => {
  const trimmed = (body: string, fields: readonly string[]) => stringify(onlyFields(parse(body), fields)) ?? '';
  const bodies: Array<[string, string, string]> = [
    ['orders/paid', 'a paid order', shopifyOrderJson({ id: '8801', customerPhone: '+44 7700 900123' })],
    [
      'orders/updated',
      'a partly refunded order in another currency',
      shopifyOrderJson({
        id: '8802',
        financialStatus: 'partially_refunded',
        refunds: [{ id: 31, transactions: [{ kind: 'refund', status: 'success', amount: '40.00', currency: 'EUR' }] }],
      }),
    ],
    [
      'orders/paid',
      'a referred order with a loyalty code',
      shopifyOrderJson({
        id: '8803',
        noteAttributes: [{ name: 'loyalty_referrer', value: 'ref@example.com' }],
        discountCodes: [{ code: 'LOYALTY-5', amount: '5.00', type: 'fixed_amount' }],
        landingSite: '/?loyalty_campaign=4',
      }),
    ],
    [
      'orders/cancelled',
      'a cancelled order without a customer',
      shopifyOrderJson({
        id: '8804',
        cancelledAt: '2026-11-20T11:00:00-05:00',
        customer: null,
        phone: '+1 212 555 0199',
      }),
    ],
    ['refunds/create', 'a refund', shopifyRefundJson('8805', '9905', '12.50')],
  ];
  it.each(bodies)(
    '%s: %s reads the same from the declared fields as from the whole body',
    async (topic, _name, body) => {
      const fields = DECLARED_FIELDS.get(topic)!;
      expect(await translate(topic, trimmed(body, fields))).toEqual(await translate(topic, body));
    },
  );
});

const FIXTURES = fixturesOf('shopify');
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
/** The docs samples wrap the payload in {"response": ...}; the REST fixtures in {"order": ...}. */
const unwrap = (text: string, key: string) => JSON.stringify((JSON.parse(text) as Record<string, unknown>)[key]);

describe.skipIf(!existsSync(FIXTURES))('real payloads from ../shared/fixtures/shopify', () => {
  it("reads Shopify's docs sample: a voided, cancelled test order", async () => {
    const event = await eventOf(
      'orders/cancelled',
      unwrap(fixture('orders_create.docs-sample.2026-04.json'), 'response'),
    );
    expect(event.test).toBe(true);
    expect(event.facts).toContain('cancelled');
    expect(event.orderId).toMatch(/^\d+$/);
  });

  it('reads a real anonymised order whose e-mail and phone are hidden', async () => {
    const event = await eventOf('orders/paid', fixture('order.real-anonymized.2025-04.json'));
    expect(event.customer.email).toBeNull();
    expect(event.customer.mobile).toBeNull();
    // Its financial_status was anonymised ("example string"): the body does not show paid, and the topic alone does not make it so.
    expect(event.facts).not.toContain('paid');
  });

  it.each([
    ['app_uninstalled.docs-sample.2026-04.json', 'app/uninstalled', 'recorded'],
    ['shop_redact.docs-sample.2026-04.json', 'shop/redact', 'privacy'],
    ['customers_redact.docs-sample.2026-04.json', 'customers/redact', 'privacy'],
    ['customers_data_request.docs-sample.2026-04.json', 'customers/data_request', 'privacy'],
  ])("takes Shopify's sample %s as %s for the shop it names", async (name, topic, kind) => {
    // The samples name "{shop}.myshopify.com", a template: filled in with a shop, which the header names too, as Shopify's would.
    const body = unwrap(fixture(name), 'response').replaceAll('{shop}', 'sample-shop');
    const shop = (JSON.parse(body) as { shop_domain?: string }).shop_domain ?? 'lb-test-store.myshopify.com';
    const received = await translateRaw(adapter, body, shopifyHeaders({ topic, body, shop }));
    // The uninstall sample's myshopify_domain is null: without a token to ask Shopify with, nothing is forgotten.
    expect(received.kind).toBe(kind);
  });

  it.each([
    ['shop_redact.docs-sample.2026-04.json', 'customers/redact'],
    ['customers_redact.docs-sample.2026-04.json', 'shop/redact'],
    ['customers_redact.docs-sample.2026-04.json', 'customers/data_request'],
    ['customers_data_request.docs-sample.2026-04.json', 'customers/redact'],
    ['customers_data_request.docs-sample.2026-04.json', 'app/uninstalled'],
    ['shop_redact.docs-sample.2026-04.json', 'app/uninstalled'],
  ])("does not act on Shopify's sample %s sent as %s", async (name, topic) => {
    const body = unwrap(fixture(name), 'response').replaceAll('{shop}', 'sample-shop');
    const shop = (JSON.parse(body) as { shop_domain?: string }).shop_domain ?? 'lb-test-store.myshopify.com';
    expect((await translateRaw(adapter, body, shopifyHeaders({ topic, body, shop }))).kind).toBe('mislabelled');
  });

  it('reads an older real order with a customer name but no contact details', async () => {
    const event = await eventOf('orders/updated', fixture('order.real-anonymized.2024-01.json'));
    expect(event.customer.name).toBeTruthy();
    expect(event.customer.email).toBeNull();
  });

  it('reads the REST fixture: authorised, unfulfilled, with discount codes and note attributes', async () => {
    const event = await eventOf('orders/create', unwrap(fixture('order.rest-fixture.json'), 'order'));
    expect(event).toMatchObject({
      orderId: '450789469',
      orderName: '#1001',
      customer: { email: 'bob.norman@hostmail.com' },
    });
    expect(event.facts).toEqual(['placed']);
    expect(event.discountCodes.length).toBeGreaterThan(0);
  });

  it.each([
    ['refunds_create.docs-sample.2026-04.json', 'response'],
    ['refund.real-anonymized.2025-04.json', undefined],
    ['refund.rest-fixture.json', 'refund'],
  ])('reads the refund %s', async (name, key) => {
    const text = key ? unwrap(fixture(name), key) : fixture(name);
    const event = await eventOf('refunds/create', text);
    expect(event.orderId).toMatch(/^\d+$/);
    expect(event.total).toBeNull();
  });

  it.each([
    ['orders/cancelled', 'orders_create.docs-sample.2026-04.json', 'response'],
    ['orders/paid', 'order.real-anonymized.2025-04.json', undefined],
    ['orders/updated', 'order.real-anonymized.2024-01.json', undefined],
    ['orders/create', 'order.rest-fixture.json', 'order'],
    ['refunds/create', 'refunds_create.docs-sample.2026-04.json', 'response'],
    ['refunds/create', 'refund.real-anonymized.2025-04.json', undefined],
  ])(
    'reads %s %s the same from the fields shopify.app.toml declares as from the whole body',
    async (topic, name, key) => {
      const body = key ? unwrap(fixture(name), key) : fixture(name);
      const declared = stringify(onlyFields(parse(body), DECLARED_FIELDS.get(topic)!)) ?? '';
      expect(await translate(topic, declared)).toEqual(await translate(topic, body));
    },
  );

  it('records orders/edited, which carries only the edit', async () => {
    expect(
      (await translate('orders/edited', unwrap(fixture('orders_edited.docs-sample.2026-04.json'), 'response'))).kind,
    ).toBe('recorded');
  });
});
