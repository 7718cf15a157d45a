// Who asks on a WooCommerce storefront (adapters/woocommerce/plugin-identity.ts, docs/wordpress-plugin.md §3): the
// plugin's identity token is taken only under the store's current key, for the identity purpose, within its five
// minutes; a forged, expired, edited or crossed one is refused, and a guest names a served store. The fixed vectors
// below were checked with `openssl dgst -sha256 -hmac <key>` over "<purpose>.<payload>" (the plugin's PHP makes the
// same with hash_hmac): the key is used as its base64url text.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPluginIdentity, wooCustomerAsker } from '../../adapters/woocommerce/plugin-identity.ts';
import type { KeyOf } from '../../adapters/woocommerce/plugin-keys.ts';
import { DOOR_PURPOSE, IDENTITY_PURPOSE, pluginSignature } from '../../adapters/woocommerce/plugin-signature.ts';
import type { PlatformRequest } from '../../src/core/platform-module.ts';

const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const KEY_ID = 'pk_AAAAAAAAAAAA';
const OTHER_KEY = 'ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8';
const IAT = 1767225600;

/** The identity vector: its payload (base64url of the JSON below) and its signature. */
const VECTOR = {
  payload: {
    purpose: 'storefront-identity',
    store: 'store.example',
    keyId: KEY_ID,
    customerId: '42',
    email: 'ada@example.com',
    phone: '+44 20 7946 0958',
    iat: IAT,
    exp: IAT + 300,
  },
  token:
    'eyJwdXJwb3NlIjoic3RvcmVmcm9udC1pZGVudGl0eSIsInN0b3JlIjoic3RvcmUuZXhhbXBsZSIsImtleUlkIjoicGtfQUFBQUFBQUFBQUFBIiwiY3VzdG9tZXJJZCI6IjQyIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb20iLCJwaG9uZSI6Iis0NCAyMCA3OTQ2IDA5NTgiLCJpYXQiOjE3NjcyMjU2MDAsImV4cCI6MTc2NzIyNTkwMH0' +
    '.QVha-tCOuFv5S9vDOa_ROVNEYWG4idNQq3WxISJ-gfM',
};
/** The door vector (plugin-door.ts): the same payload rules, the door's purpose. */
const DOOR_VECTOR = {
  payload:
    'eyJwdXJwb3NlIjoibWVyY2hhbnQtZG9vciIsInN0b3JlIjoic3RvcmUuZXhhbXBsZSIsImtleUlkIjoicGtfQUFBQUFBQUFBQUFBIiwibm9uY2UiOiJubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5ubm5uIiwidXNlciI6MSwiaWF0IjoxNzY3MjI1NjAwfQ',
  sig: 'Rlz1wVBTz_-yObOKmQLDGblDWeIUMZMl9Z7aQQv4jQw',
};

const keys: Record<string, { keyId: string; key: string }> = {
  'store.example': { keyId: KEY_ID, key: KEY },
  'other.example': { keyId: 'pk_BBBBBBBBBBBB', key: OTHER_KEY },
};
const keyOf: KeyOf = (shop) => Promise.resolve(keys[shop]);
const at = (seconds: number) => seconds * 1000;

function token(fields: Record<string, unknown>, key = KEY, purpose: string = IDENTITY_PURPOSE): string {
  const payload = Buffer.from(JSON.stringify({ ...VECTOR.payload, ...fields })).toString('base64url');
  const sig = createHmac('sha256', key).update(`${purpose}.${payload}`).digest('base64url');
  return `${payload}.${sig}`;
}

describe('the plugin’s identity token', () => {
  it('matches the fixed vectors, made elsewhere', () => {
    const [payload, sig] = VECTOR.token.split('.') as [string, string];
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual(VECTOR.payload);
    expect(pluginSignature(IDENTITY_PURPOSE, payload, KEY)).toBe(sig);
    expect(pluginSignature(DOOR_PURPOSE, DOOR_VECTOR.payload, KEY)).toBe(DOOR_VECTOR.sig);
  });

  it('names the store, the customer and who they are, the phone in E.164', async () => {
    expect(await checkPluginIdentity(VECTOR.token, keyOf, at(IAT + 10))).toEqual({
      ok: true,
      shop: 'store.example',
      customerId: '42',
      contact: { email: 'ada@example.com', phone: '+442079460958' },
    });
    // A phone typed without its country is left out: the token names no country to read it in.
    const local = await checkPluginIdentity(token({ phone: '020 7946 0958' }), keyOf, at(IAT));
    expect(local).toMatchObject({ ok: true, contact: { email: 'ada@example.com' } });
    expect(local.ok && local.contact.phone).toBeUndefined();
  });

  it('refuses a token forged under another store’s key', async () => {
    expect(await checkPluginIdentity(token({}, OTHER_KEY), keyOf, at(IAT))).toEqual({
      ok: false,
      refusal: 'bad_signature',
    });
    // Another store's own token, edited to name this store, fails the same way.
    const theirs = token({ store: 'other.example', keyId: 'pk_BBBBBBBBBBBB' }, OTHER_KEY);
    expect(await checkPluginIdentity(theirs, keyOf, at(IAT))).toMatchObject({ ok: true, shop: 'other.example' });
    const [, sig] = theirs.split('.');
    const edited = `${Buffer.from(JSON.stringify({ ...VECTOR.payload, store: 'store.example', keyId: 'pk_BBBBBBBBBBBB' })).toString('base64url')}.${sig}`;
    expect(await checkPluginIdentity(edited, keyOf, at(IAT))).toEqual({ ok: false, refusal: 'old_key' });
  });

  it('refuses another customer’s token edited to name this one', async () => {
    const [, sig] = VECTOR.token.split('.');
    const edited = `${Buffer.from(JSON.stringify({ ...VECTOR.payload, customerId: '43', email: 'eve@example.com' })).toString('base64url')}.${sig}`;
    expect(await checkPluginIdentity(edited, keyOf, at(IAT))).toEqual({ ok: false, refusal: 'bad_signature' });
  });

  it('refuses a door signature offered as an identity', async () => {
    expect(await checkPluginIdentity(token({}, KEY, DOOR_PURPOSE), keyOf, at(IAT))).toEqual({
      ok: false,
      refusal: 'bad_signature',
    });
    // Even a payload of the identity's shape fails when the purpose it was signed for is the door's.
    expect(await checkPluginIdentity(token({ purpose: 'merchant-door' }), keyOf, at(IAT))).toEqual({
      ok: false,
      refusal: 'bad_signature',
    });
  });

  it('takes a token only within its five minutes, and refuses a replay after', async () => {
    expect((await checkPluginIdentity(VECTOR.token, keyOf, at(IAT + 300))).ok).toBe(true);
    expect(await checkPluginIdentity(VECTOR.token, keyOf, at(IAT + 301))).toEqual({ ok: false, refusal: 'expired' });
    expect(await checkPluginIdentity(VECTOR.token, keyOf, at(IAT + 3600))).toEqual({ ok: false, refusal: 'expired' });
    expect((await checkPluginIdentity(VECTOR.token, keyOf, at(IAT - 30))).ok).toBe(true);
    expect(await checkPluginIdentity(VECTOR.token, keyOf, at(IAT - 31))).toEqual({
      ok: false,
      refusal: 'not_yet_valid',
    });
    // A token that says it lives longer is not the plugin's.
    expect(await checkPluginIdentity(token({ exp: IAT + 3600 }), keyOf, at(IAT))).toEqual({
      ok: false,
      refusal: 'bad_lifetime',
    });
  });

  it('refuses a token under a key the store replaced, or of a store with no plugin', async () => {
    const replaced: KeyOf = () => Promise.resolve({ keyId: 'pk_CCCCCCCCCCCC', key: KEY });
    expect(await checkPluginIdentity(VECTOR.token, replaced, at(IAT))).toEqual({ ok: false, refusal: 'old_key' });
    expect(await checkPluginIdentity(VECTOR.token, () => Promise.resolve(undefined), at(IAT))).toEqual({
      ok: false,
      refusal: 'not_connected',
    });
    expect(await checkPluginIdentity('not.a-token', keyOf, at(IAT))).toEqual({ ok: false, refusal: 'malformed' });
  });
});

describe('who asks a WooCommerce storefront', () => {
  const request = (headers: Record<string, string>, query: Record<string, string> = {}): PlatformRequest => ({
    method: 'GET',
    path: '/storefront/points',
    query,
    headers,
    body: Buffer.alloc(0),
  });
  const refusals: string[] = [];
  const asker = wooCustomerAsker({
    keyOf,
    served: (shop) => Promise.resolve(shop in keys),
    onRefused: (reason) => refusals.push(reason),
    now: () => at(IAT + 5),
  });

  it('is the token’s customer, with the token’s contact', async () => {
    expect(await asker(request({ authorization: `Bearer ${VECTOR.token}` }))).toEqual({
      kind: 'customer',
      shop: 'store.example',
      customerId: '42',
      contact: { email: 'ada@example.com', phone: '+442079460958' },
    });
  });

  it('is a guest of a served store named with ?store and no token; refused for any other store', async () => {
    expect(await asker(request({}, { store: 'store.example' }))).toEqual({ kind: 'guest', shop: 'store.example' });
    expect(await asker(request({}, { store: 'unknown.example' }))).toEqual({ kind: 'refused' });
    expect(await asker(request({}, { store: 'https://www.store.example/' }))).toEqual({ kind: 'refused' });
    expect(await asker(request({}))).toEqual({ kind: 'refused' });
  });

  it('refuses a bad token, and a token beside a store, saying why without the token', async () => {
    refusals.length = 0;
    expect(await asker(request({ authorization: `Bearer ${token({}, OTHER_KEY)}` }))).toEqual({ kind: 'refused' });
    expect(await asker(request({ authorization: `Bearer ${VECTOR.token}` }, { store: 'store.example' }))).toEqual({
      kind: 'refused',
    });
    expect(refusals).toHaveLength(2);
    expect(refusals.join(' ')).not.toContain(VECTOR.token.slice(0, 20));
    expect(refusals.join(' ')).not.toContain('ada@');
  });
});
