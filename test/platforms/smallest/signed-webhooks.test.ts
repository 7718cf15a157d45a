// What the shared builder (adapters/shared/signed-webhooks.ts) holds every platform built on it to, without a
// bridge: PocketShop's adapter, fed the exact bytes, with signatures made here over them.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { shapeOf } from '../../../adapters/shared/kept-fields.ts';
import { signedWebhookAdapter } from '../../../adapters/shared/signed-webhooks.ts';
import { storedDelivery } from '../../../src/core/platform-adapter.ts';
import { pocketShopAdapter, SIGNATURE } from './module.ts';

const SECRET = 'pocketshop-webhook-secret-builder';
const adapter = pocketShopAdapter(SECRET);
const order = { id: 7, number: '1007', total: '9.50', currency: 'EUR', email: 'a@example.com', address: 'Main St 1' };
const body = (value: unknown) => Buffer.from(JSON.stringify(value));
const good = body({ id: 'd-7', topic: 'order.paid', shop: 'acme:x', order });
const hex = (bytes: Buffer, secret = SECRET) => createHmac('sha256', secret).update(bytes).digest('hex');
const verify = (bytes: Buffer, signature: string) =>
  adapter.verify({ body: bytes, headers: { [SIGNATURE]: signature }, receivedAt: new Date() });

describe('an adapter made by signedWebhookAdapter', () => {
  it('reads no body without the signature header', () => {
    expect(adapter.preflight({}).ok).toBe(false);
    expect(adapter.preflight({ [SIGNATURE]: 'x' }).ok).toBe(true);
  });

  it('takes the exact bytes signed with the secret, and refuses any other signature (401)', async () => {
    expect((await verify(good, hex(good))).ok).toBe(true);
    expect((await verify(good, hex(good).toUpperCase())).ok).toBe(true);
    const base64 = createHmac('sha256', SECRET).update(good).digest('base64');
    for (const forged of [hex(good, 'another-secret-0123456789'), hex(Buffer.from(`${good} `)), base64, ''])
      expect(await verify(good, forged)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses an authentic body it cannot read, or that names no shop, with the reason (400)', async () => {
    for (const [bytes, reason] of [
      [Buffer.from('{"id": '), /not valid JSON/],
      [body([1]), /not a JSON object/],
      [Buffer.from([0x7b, 0xff, 0x7d]), /not UTF-8/],
      [body({ id: 'd-1', topic: 'order.paid', order }), /names no shop/],
    ] as const)
      expect(await verify(bytes, hex(bytes))).toMatchObject({
        ok: false,
        status: 400,
        reason: expect.stringMatching(reason),
      });
  });

  it('refuses for good (400) an authentic body its platform cannot read, never 503, which is sent again forever', async () => {
    const strict = signedWebhookAdapter({
      platform: 'pocketshop',
      signature: { header: SIGNATURE, encoding: 'hex' },
      secrets: async () => [SECRET],
      read: (value) => {
        if (typeof value.order !== 'object') throw new TypeError('a delivery without its order');
        return value;
      },
      describe: () => ({ topic: 'order.paid', shop: 'acme', id: 'd-1' }),
      translate: async () => ({ kind: 'ignored', reason: 'not read here' }),
      kept: shapeOf([]),
      personal: { personal: new Set(), emailKeys: new Set(), phoneKeys: new Set(), orderIdKeys: [] },
    });
    const orderless = body({ id: 'd-1', topic: 'order.paid', shop: 'acme' });
    const answer = await strict.verify({
      body: orderless,
      headers: { [SIGNATURE]: hex(orderless) },
      receivedAt: new Date(),
    });
    expect(answer).toMatchObject({ ok: false, status: 400, reason: 'the body is not a delivery of this platform' });
  });

  it('keys a delivery by its shop, keeps only what translation reads, and checks the events it makes', async () => {
    const verified = await verify(good, hex(good));
    const info = adapter.describe(verified.ok ? verified.delivery : {});
    expect(info.key).toBe('pocketshop:acme%3Ax:d-7');
    expect(info.key.startsWith(adapter.shopKeyPrefix!('acme:x'))).toBe(true);
    const kept = adapter.keptBody!(info.topic, good);
    expect(kept.toString()).not.toContain('Main St');
    const translated = await adapter.translate(storedDelivery('pocketshop', info, good, new Date(), kept));
    expect(translated).toMatchObject({
      kind: 'events',
      events: [{ platform: 'pocketshop', shop: 'acme:x', orderId: '7' }],
    });
    const bad = body({ order: { ...order, id: 'seven' } });
    const unusable = await adapter.translate(storedDelivery('pocketshop', info, bad, new Date()));
    expect(unusable).toMatchObject({ kind: 'unusable', reason: expect.stringContaining('orderId') });
    // Where it is wrong, never the value, which can be a customer's.
    expect(JSON.stringify(unusable)).not.toContain('seven');
  });
});
