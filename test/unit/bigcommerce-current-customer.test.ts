// The current-customer JWT of a BigCommerce storefront (adapters/bigcommerce/current-customer.ts), row by row: what a
// good token names, every way a token is refused, the clock's edges (30 seconds of leeway, 15 minutes from iat), and
// who asks from a request's headers and query. Tokens are signed as BigCommerce documents it
// (test/helpers/bigcommerce-customer-jwt.ts), with node:crypto, independently of the library that checks.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bigCommerceCustomerAsker,
  checkCurrentCustomerToken,
  CURRENT_CUSTOMER_REFUSALS,
  type CurrentCustomerRefusal,
} from '../../adapters/bigcommerce/current-customer.ts';
import { verifySignedPayload } from '../../adapters/bigcommerce/signed-payload.ts';
import { currentCustomerJwt, type CurrentCustomerJwtOptions } from '../helpers/bigcommerce-customer-jwt.ts';
import { unreadRequest } from '../helpers/unread-request.ts';

const STORE = 'abc123';
const SERVED = new Set([STORE, 'def456']);
const CLIENT_ID = '6sv16tfx3j5gsopm42ss5dd67g2srvq';
const SECRET = 'app-client-secret-0123456789abcdef';
const OLD_SECRET = 'old-client-secret-0123456789abcdef';
const EMAIL = 'john.doe@example.com';
const NOW_MS = Date.parse('2026-11-20T10:00:00Z');
const NOW = NOW_MS / 1000;
const keys = { clientId: CLIENT_ID, clientSecrets: [SECRET, OLD_SECRET], now: () => NOW_MS };

const jwt = (options: Partial<CurrentCustomerJwtOptions> = {}) =>
  currentCustomerJwt({
    storeHash: STORE,
    customerId: 4927,
    email: EMAIL,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    iat: NOW,
    ...options,
  });
const check = (token: string, atS = NOW) => checkCurrentCustomerToken(token, { ...keys, now: () => atS * 1000 });
const refusal = (refusal: CurrentCustomerRefusal) => ({ ok: false, refusal });
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('a current-customer token', () => {
  it('names the store and the customer of a token BigCommerce signed for this app', async () => {
    expect(await check(jwt())).toEqual({ ok: true, shop: STORE, customerId: '4927' });
    // Signed with the previous secret during a rotation.
    expect(await check(jwt({ clientSecret: OLD_SECRET }))).toEqual({ ok: true, shop: STORE, customerId: '4927' });
  });

  it("takes the documentation's own example, whose application_id differs from aud", async () => {
    const token = jwt({ claims: { application_id: '6sv16tasdgr2b5hs5dd67g2srvq' } });
    expect(await check(token)).toEqual({ ok: true, shop: STORE, customerId: '4927' });
  });

  it('refuses a token not signed with this app’s secret, or not with HS256', async () => {
    const rows: Array<[string, string, CurrentCustomerRefusal]> = [
      ['another secret (forged)', jwt({ clientSecret: 'a-forger-s-guess' }), 'bad_signature'],
      ['alg none', jwt({ header: { alg: 'none' } }), 'wrong_algorithm'],
      ['HS512', jwt({ header: { alg: 'HS512' } }), 'wrong_algorithm'],
      ['RS256 named, signed with the secret', jwt({ header: { alg: 'RS256' } }), 'wrong_algorithm'],
      ['a changed payload', swapPayload(jwt(), { customer: { id: 1 } }), 'bad_signature'],
    ];
    for (const [what, token, why] of rows) expect([what, await check(token)]).toEqual([what, refusal(why)]);
  });

  it('tries no secret when none is set, and never an empty one', async () => {
    const emptySigned = jwt({ clientSecret: '' });
    for (const clientSecrets of [[], [''], [SECRET, '']])
      expect(await checkCurrentCustomerToken(emptySigned, { ...keys, clientSecrets })).toEqual(
        refusal('bad_signature'),
      );
  });

  it('refuses what is not a JWT, or longer than any BigCommerce makes', async () => {
    const good = jwt();
    for (const token of ['', 'a.b', `${good}.x`, `${good} `, good.replace('.', '..'), 'é.é.é'])
      expect([token, await check(token)]).toEqual([token, refusal('malformed')]);
    const long = jwt({ email: `${'x'.repeat(2000)}@example.com` });
    expect(await check(long)).toEqual(refusal('malformed'));
    const notAnObject = `${part({ alg: 'HS256', typ: 'JWT' })}.${part([1])}`;
    expect(
      await check(`${notAnObject}.${createHmac('sha256', SECRET).update(notAnObject).digest('base64url')}`),
    ).toEqual(refusal('malformed'));
  });

  it('refuses a token signed for another purpose, another app or another store', async () => {
    const rows: Array<[Record<string, unknown>, CurrentCustomerRefusal]> = [
      [{ iss: 'bc' }, 'wrong_issuer'],
      [{ iss: undefined }, 'wrong_issuer'],
      [{ operation: 'customer_login' }, 'wrong_operation'],
      [{ operation: undefined }, 'wrong_operation'],
      [{ aud: 'another-apps-client-id' }, 'wrong_audience'],
      [{ aud: [CLIENT_ID] }, 'wrong_audience'],
      [{ aud: undefined }, 'wrong_audience'],
      [{ sub: 'def456' }, 'no_store'],
      [{ store_hash: 'def456' }, 'no_store'],
      [{ sub: undefined }, 'no_store'],
      [{ store_hash: undefined }, 'no_store'],
      [{ sub: 'stores/abc123', store_hash: 'stores/abc123' }, 'no_store'],
      [{ sub: 'ABC123', store_hash: 'ABC123' }, 'no_store'],
      [{ customer: undefined }, 'no_customer'],
      [{ customer: { email: EMAIL } }, 'no_customer'],
      [{ customer: { id: 0 } }, 'no_customer'],
      [{ customer: { id: -4 } }, 'no_customer'],
      [{ customer: { id: 4.5 } }, 'no_customer'],
      [{ customer: { id: '4927' } }, 'no_customer'],
      [{ customer: { id: '4927; drop' } }, 'no_customer'],
      [{ customer: { id: 2 ** 53 } }, 'no_customer'],
      [{ customer: 4927 }, 'no_customer'],
    ];
    for (const [claims, why] of rows) expect([claims, await check(jwt({ claims }))]).toEqual([claims, refusal(why)]);
    // The store is the one the token names, in both claims.
    const other = jwt({ claims: { sub: 'def456', store_hash: 'def456' } });
    expect(await check(other)).toEqual({ ok: true, shop: 'def456', customerId: '4927' });
  });

  it('gives exp and iat 30 seconds of leeway, and a token 15 minutes from its iat whatever its exp says', async () => {
    const token = jwt();
    expect((await check(token, NOW + 900 + 29)).ok).toBe(true);
    // Replayed after the freshness window, its honest exp then past too.
    expect(await check(token, NOW + 900 + 31)).toEqual(refusal('too_old'));
    // A shorter life ends at its exp.
    const short = jwt({ exp: NOW + 300 });
    expect((await check(short, NOW + 329)).ok).toBe(true);
    expect(await check(short, NOW + 331)).toEqual(refusal('expired'));
    // Issued in the future.
    expect((await check(token, NOW - 29)).ok).toBe(true);
    expect(await check(token, NOW - 31)).toEqual(refusal('not_yet_valid'));
    expect(await check(jwt({ claims: { nbf: NOW + 60 } }))).toEqual(refusal('not_yet_valid'));
  });

  it('refuses a token whose exp is not within the 15 minutes after its iat, or lacks either', async () => {
    const rows: Array<[Partial<CurrentCustomerJwtOptions>, CurrentCustomerRefusal]> = [
      [{ exp: NOW + 901 }, 'bad_lifetime'],
      [{ exp: NOW + 86_400 }, 'bad_lifetime'],
      [{ exp: NOW }, 'bad_lifetime'],
      [{ exp: NOW - 60 }, 'bad_lifetime'],
      [{ claims: { exp: undefined } }, 'missing_time'],
      [{ claims: { iat: undefined } }, 'missing_time'],
      [{ claims: { exp: String(NOW + 900) } }, 'missing_time'],
      // A forged long exp does not stretch the freshness window either: refused before the window is asked.
      [{ iat: NOW - 3600, exp: NOW + 3600 }, 'bad_lifetime'],
    ];
    for (const [options, why] of rows) expect([options, await check(jwt(options))]).toEqual([options, refusal(why)]);
  });

  it("refuses the signed_payload_jwt of a load callback signed with the same secret, and signed-payload.ts refuses BigCommerce's current-customer token", async () => {
    const load = signedPayloadJwt();
    expect(await check(load)).toEqual(refusal('wrong_issuer'));
    // The same payload with the issuer changed still names no operation and no store hash of the right shape.
    expect(await check(signedPayloadJwt({ iss: 'bc/apps' }))).toEqual(refusal('wrong_operation'));
    // And the other way: a current-customer token opens no callback.
    const loadCheck = await verifySignedPayload(jwt(), {
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      now: () => NOW_MS,
    });
    expect(loadCheck.ok).toBe(false);
  });

  it('says every refusal in words, and never with the token in them', () => {
    const token = jwt();
    for (const words of Object.values(CURRENT_CUSTOMER_REFUSALS)) {
      expect(words.length).toBeGreaterThan(20);
      expect(words).not.toContain(token.slice(0, 20));
    }
  });
});

describe('who asks on a BigCommerce storefront', () => {
  const logged: string[] = [];
  const asker = bigCommerceCustomerAsker({
    ...keys,
    served: async (shop) => SERVED.has(shop),
    onRefused: (reason) => void logged.push(reason),
  });
  const request = (headers: Record<string, string>, query: Record<string, string> = {}): Request =>
    unreadRequest('/bigcommerce/storefront/points', headers, query);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('is the customer a good token names, of a served store', async () => {
    expect(await asker(request(bearer(jwt())))).toEqual({ kind: 'customer', shop: STORE, customerId: '4927' });
  });

  it('is a guest of a served store named by store, with no Authorization header at all', async () => {
    expect(await asker(request({}, { store: STORE }))).toEqual({ kind: 'guest', shop: STORE });
  });

  it('refuses everything else, saying why in the log and never the token', async () => {
    logged.length = 0;
    const good = jwt();
    const stranger = jwt({ storeHash: 'zzz999' });
    const rows: Array<[string, Request]> = [
      ['a forged bearer', request(bearer(jwt({ clientSecret: 'guess' })))],
      ['a bearer and a store', request(bearer(good), { store: STORE })],
      ['a bearer and another store', request(bearer(good), { store: 'def456' })],
      ['a bearer of a store not served', request(bearer(stranger))],
      ['a malformed header', request({ authorization: good })],
      ['basic credentials', request({ authorization: 'Basic dXNlcjpwYXNz' })],
      ['two bearers', request({ authorization: `Bearer ${good}, Bearer ${good}` })],
      ['an empty header with a store', request({ authorization: '' }, { store: STORE })],
      ['a store not served', request({}, { store: 'zzz999' })],
      ['a store not of a hash’s shape', request({}, { store: 'ABC123' })],
      ['a store with a path', request({}, { store: 'abc123/../def456' })],
      ['nothing at all', request({})],
    ];
    for (const [what, asked] of rows) expect([what, await asker(asked)]).toEqual([what, { kind: 'refused' }]);
    expect(logged).toHaveLength(rows.length);
    expect(logged).toContain('zzz999 is not a store this bridge serves');
    expect(logged).toContain(CURRENT_CUSTOMER_REFUSALS.bad_signature);
    for (const line of logged) {
      expect(line).not.toContain(good.split('.')[1]);
      expect(line).not.toContain(EMAIL);
    }
  });
});

/** The token with its payload replaced and its signature kept. */
function swapPayload(token: string, claims: Record<string, unknown>) {
  const [header, , signature] = token.split('.');
  return `${header}.${part(claims)}.${signature}`;
}

/** A load callback's signed_payload_jwt ("Single-Click App Callback Handlers"), signed with the same secret. */
function signedPayloadJwt(changes: Record<string, unknown> = {}) {
  const signed = `${part({ typ: 'JWT', alg: 'HS256' })}.${part({
    aud: CLIENT_ID,
    iss: 'bc',
    iat: NOW,
    nbf: NOW,
    exp: NOW + 86_400,
    jti: 'c5f0bcf5-a504-4ae6-8dcc-0e40eaa5a070',
    sub: `stores/${STORE}`,
    user: { id: 4927, email: EMAIL, locale: 'en-US' },
    owner: { id: 4927, email: EMAIL },
    url: '/',
    channel_id: null,
    ...changes,
  })}`;
  return `${signed}.${createHmac('sha256', SECRET).update(signed).digest('base64url')}`;
}
