// Shopify verification: the known vector from Shopify's own tests, and every
// way a delivery can fail to be authentic or complete.
import { describe, expect, it } from 'vitest';
import { shopifyVerifier } from '../../adapters/shopify/verify.ts';
import { shopifyHeaders, SHOPIFY_SECRET, signShopify } from '../helpers/shopify.ts';

const verify = shopifyVerifier([SHOPIFY_SECRET]);
const raw = (body: string | Buffer, headers: Record<string, string>) => ({
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
  receivedAt: new Date(),
});

describe('Shopify verification', () => {
  it("accepts Shopify's own test vector", async () => {
    const vector = shopifyVerifier(['test_secret_key']);
    const headers = {
      ...shopifyHeaders({ topic: 'orders/paid', body: '{"foo": "bar"}' }),
      'X-Shopify-Hmac-Sha256': 'B23tXN681gZ0qIWNRrgtzBE9XSDo5yaUu6wfmhu3a7g=',
    };
    const result = await vector(raw('{"foo": "bar"}', headers));
    expect(result).toMatchObject({ ok: true, delivery: { topic: 'orders/paid', shop: 'lb-test-store.myshopify.com' } });
  });

  it('accepts the previous secret as well as the new one during a rotation, and nothing else', async () => {
    const rotating = shopifyVerifier(['shpss_new_secret', 'shpss_previous_secret']);
    const body = '{"id": 2}';
    for (const secret of ['shpss_new_secret', 'shpss_previous_secret'])
      expect((await rotating(raw(body, shopifyHeaders({ topic: 'orders/paid', body, secret })))).ok).toBe(true);
    expect(
      await rotating(raw(body, shopifyHeaders({ topic: 'orders/paid', body, secret: SHOPIFY_SECRET }))),
    ).toMatchObject({ ok: false, status: 401 });
  });

  it('accepts the newer shopify-* header names', async () => {
    const body = '{"id": 1}';
    const result = await verify(
      raw(body, shopifyHeaders({ topic: 'orders/create', body, newStyle: true, webhookId: 'new-style-1' })),
    );
    expect(result).toMatchObject({ ok: true, delivery: { webhookId: 'new-style-1', topic: 'orders/create' } });
  });

  it('recognises an authentic body that is not valid UTF-8, over its raw bytes', async () => {
    const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const result = await verify(raw(body, shopifyHeaders({ topic: 'orders/paid', body })));
    expect(result.ok).toBe(true);
  });

  const body = '{"id": 450789469}';
  const good = shopifyHeaders({ topic: 'orders/paid', body });
  const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([key]) => key !== name));
  const cases: Array<[string, string | Buffer, Record<string, string>, 400 | 401]> = [
    ['no HMAC header', body, without('X-Shopify-Hmac-Sha256'), 401],
    ['a wrong HMAC', body, { ...good, 'X-Shopify-Hmac-Sha256': signShopify('{"id": 1}') }, 401],
    ["another app's secret", body, { ...good, 'X-Shopify-Hmac-Sha256': signShopify(body, 'shpss_someone_else') }, 401],
    [
      'the right HMAC with anything after it',
      body,
      { ...good, 'X-Shopify-Hmac-Sha256': `${signShopify(body)}, AAAA` },
      401,
    ],
    ['a body re-encoded after signing', '{"id":450789469}', good, 401],
    ['a body with a byte appended', `${body}\n`, good, 401],
    ['an HMAC that is not base64', body, { ...good, 'X-Shopify-Hmac-Sha256': 'not base64 at all' }, 401],
    ['an empty body', '', good, 401],
    ['no topic header', body, without('X-Shopify-Topic'), 400],
    ['no shop header', body, without('X-Shopify-Shop-Domain'), 400],
    ['no webhook id header', body, without('X-Shopify-Webhook-Id'), 400],
    ['no API version header', body, without('X-Shopify-API-Version'), 400],
  ];
  it.each(cases)('refuses %s', async (_name, sentBody, headers, status) => {
    const result = await verify(raw(sentBody, headers));
    expect(result).toMatchObject({ ok: false, status });
  });

  it('accepts deliveries signed with the previous secret during a rotation, and no other', async () => {
    const rotating = shopifyVerifier(['shpss_new_secret', 'shpss_previous_secret']);
    const signedWith = (secret: string) => raw(body, shopifyHeaders({ topic: 'orders/paid', body, secret }));
    expect((await rotating(signedWith('shpss_new_secret'))).ok).toBe(true);
    expect((await rotating(signedWith('shpss_previous_secret'))).ok).toBe(true);
    expect(await rotating(signedWith('shpss_someone_else'))).toMatchObject({ ok: false, status: 401 });
  });
});
