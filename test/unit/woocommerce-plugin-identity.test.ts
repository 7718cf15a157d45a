// Who asks on a WooCommerce storefront (adapters/woocommerce/plugin-identity.ts, docs/wordpress-plugin.md §3): the
// plugin's identity token is taken only under the store's current key, for the identity purpose, within its five
// minutes; a forged, expired, edited or crossed one is refused, and a guest names a served store. The vectors the
// plugin's own PHP made (wordpress/tests/vectors.json) are checked first: both sides sign the same bytes.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPluginIdentity, wooCustomerAsker } from '../../adapters/woocommerce/plugin-identity.ts';
import type { KeyOf } from '../../adapters/woocommerce/plugin-keys.ts';
import { DOOR_PURPOSE, IDENTITY_PURPOSE, pluginSignature } from '../../adapters/woocommerce/plugin-signature.ts';
import { unreadRequest } from '../helpers/unread-request.ts';

const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const KEY_ID = 'pk_AAAAAAAAAAAA';
const OTHER_KEY = 'ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8';
const IAT = 1767225600;

/** A good identity token's payload: each test changes what it needs. */
const VECTOR = {
  payload: {
    purpose: 'storefront-identity',
    store: 'store.example',
    keyId: KEY_ID,
    customerId: '42',
    email: 'ada@example.com',
    emailProven: true,
    phone: '+44 20 7946 0958',
    iat: IAT,
    exp: IAT + 300,
  },
};

/** What the plugin's PHP signed (wordpress/tests/make-vectors.php): key, purpose, payload and signature. */
const PHP_VECTORS = (
  JSON.parse(readFileSync(new URL('../../wordpress/tests/vectors.json', import.meta.url), 'utf8')) as {
    vectors: Array<{ name: string; key: string; purpose: string; payload: string; signature: string }>;
  }
).vectors;

const keys: Record<string, { keyId: string; key: string }> = {
  'store.example': { keyId: KEY_ID, key: KEY },
  'other.example': { keyId: 'pk_BBBBBBBBBBBB', key: OTHER_KEY },
};
const keyOf: KeyOf = (shop) => Promise.resolve(keys[shop]);
const at = (seconds: number) => seconds * 1000;

function token(fields: Record<string, unknown>, key = KEY, purpose: string = IDENTITY_PURPOSE): string {
  const payload = Buffer.from(JSON.stringify({ ...VECTOR.payload, ...fields })).toString('base64url');
  const sig = createHmac('sha256', Buffer.from(key, 'base64url')).update(`${purpose}.${payload}`).digest('base64url');
  return `${payload}.${sig}`;
}
const GOOD = token({});

describe('the plugin’s identity token', () => {
  it('signs as the plugin’s PHP signs, for each purpose', () => {
    expect(PHP_VECTORS.length).toBeGreaterThanOrEqual(2);
    for (const vector of PHP_VECTORS)
      expect(pluginSignature(vector.purpose as typeof IDENTITY_PURPOSE, vector.payload, vector.key), vector.name).toBe(
        vector.signature,
      );
    expect(PHP_VECTORS.map((vector) => vector.purpose).sort()).toEqual(
      [DOOR_PURPOSE, IDENTITY_PURPOSE, IDENTITY_PURPOSE].sort(),
    );
  });

  it('names the store, the customer and who they are: the account’s e-mail, never the typed billing phone', async () => {
    expect(await checkPluginIdentity(GOOD, keyOf, at(IAT + 10))).toEqual({
      ok: true,
      shop: 'store.example',
      customerId: '42',
      contact: { email: 'ada@example.com' },
    });
    // Without an e-mail, the phone (anyone's, as typed at a checkout) names no one.
    for (const email of ['', '   ', 'not-an-address'])
      expect(await checkPluginIdentity(token({ email }), keyOf, at(IAT))).toMatchObject({ ok: true, contact: {} });
  });

  it('takes an e-mail its owner never proved as no one’s (WooCommerce checks no address)', async () => {
    for (const emailProven of [false, 'true', 1, undefined, null])
      expect(await checkPluginIdentity(token({ emailProven }), keyOf, at(IAT))).toEqual({
        ok: true,
        shop: 'store.example',
        customerId: '42',
        contact: 'unproven',
      });
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
    const [, sig] = GOOD.split('.');
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
    expect((await checkPluginIdentity(GOOD, keyOf, at(IAT + 300))).ok).toBe(true);
    expect(await checkPluginIdentity(GOOD, keyOf, at(IAT + 301))).toEqual({ ok: false, refusal: 'expired' });
    expect(await checkPluginIdentity(GOOD, keyOf, at(IAT + 3600))).toEqual({ ok: false, refusal: 'expired' });
    expect((await checkPluginIdentity(GOOD, keyOf, at(IAT - 30))).ok).toBe(true);
    expect(await checkPluginIdentity(GOOD, keyOf, at(IAT - 31))).toEqual({
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
    expect(await checkPluginIdentity(GOOD, replaced, at(IAT))).toEqual({ ok: false, refusal: 'old_key' });
    expect(await checkPluginIdentity(GOOD, () => Promise.resolve(undefined), at(IAT))).toEqual({
      ok: false,
      refusal: 'not_connected',
    });
    expect(await checkPluginIdentity('not.a-token', keyOf, at(IAT))).toEqual({ ok: false, refusal: 'malformed' });
  });
});

describe('who asks a WooCommerce storefront', () => {
  const request = (headers: Record<string, string>, query: Record<string, string> = {}): Request =>
    unreadRequest('/woocommerce/storefront/points', headers, query);
  const refusals: string[] = [];
  const asker = wooCustomerAsker({
    keyOf,
    served: (shop) => Promise.resolve(shop in keys),
    onRefused: (reason) => refusals.push(reason),
    now: () => at(IAT + 5),
  });

  it('is the token’s customer, with the token’s contact', async () => {
    expect(await asker(request({ authorization: `Bearer ${GOOD}` }))).toEqual({
      kind: 'customer',
      shop: 'store.example',
      customerId: '42',
      contact: { email: 'ada@example.com' },
    });
    // An address not yet proven: the customer, named by no contact, to be asked to prove it.
    expect(await asker(request({ authorization: `Bearer ${token({ emailProven: false })}` }))).toEqual({
      kind: 'customer',
      shop: 'store.example',
      customerId: '42',
      contactUnproven: true,
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
    expect(await asker(request({ authorization: `Bearer ${GOOD}` }, { store: 'store.example' }))).toEqual({
      kind: 'refused',
    });
    expect(refusals).toHaveLength(2);
    expect(refusals.join(' ')).not.toContain(GOOD.slice(0, 20));
    expect(refusals.join(' ')).not.toContain('ada@');
  });
});
