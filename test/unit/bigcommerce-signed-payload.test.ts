// The signed_payload_jwt of BigCommerce's load and uninstall callbacks,
// checked as BigCommerce documents it: HS256 with the client secret, aud the
// client id, iss "bc", valid between nbf and exp, sub "stores/<hash>".
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignedPayload } from '../../adapters/bigcommerce/signed-payload.ts';

const keys = { clientId: 'app-client-id', clientSecret: 'app-client-secret', now: () => Date.parse('2026-11-20T10:00:00Z') };
const now = keys.now() / 1000;
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claims = { aud: 'app-client-id', iss: 'bc', iat: now, nbf: now, exp: now + 86_400, jti: 'c5f0bcf5', sub: 'stores/z4zn3wo', user: { id: 9876543, email: 'user@example.com', locale: 'en-US' }, owner: { id: 7654321, email: 'owner@example.com' }, url: '/', channel_id: null };
function jwt(payload: Record<string, unknown> = {}, { alg = 'HS256', secret = keys.clientSecret }: { alg?: string; secret?: string } = {}) {
  const signed = `${part({ typ: 'JWT', alg })}.${part({ ...claims, ...payload })}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

describe('the signed_payload_jwt', () => {
  it('names the store, the user and the deep link of a payload BigCommerce signed', () => {
    expect(verifySignedPayload(jwt(), keys)).toEqual({ ok: true, claims: { storeHash: 'z4zn3wo', url: '/', userId: 9876543, jti: 'c5f0bcf5' } });
  });

  it('allows a minute of clock difference at either end', () => {
    expect(verifySignedPayload(jwt({ nbf: now + 30 }), keys).ok).toBe(true);
    expect(verifySignedPayload(jwt({ exp: now - 30 }), keys).ok).toBe(true);
  });

  it.each([
    ['a missing payload', undefined, /missing/],
    ['two parts', 'a.b', /not a JWT/],
    ['another secret', jwt({}, { secret: 'someone-else' }), /signature/],
    ['alg none', `${part({ alg: 'none' })}.${part(claims)}.`, /not a JWT|HS256/],
    ['HS512', jwt({}, { alg: 'HS512' }), /HS256/],
    ['another app', jwt({ aud: 'other-app' }), /aud/],
    ['another issuer', jwt({ iss: 'me' }), /iss/],
    ['an expired one', jwt({ exp: now - 3_600 }), /expired/],
    ['one not valid yet', jwt({ nbf: now + 3_600 }), /not valid yet/],
    ['no store', jwt({ sub: 'users/1' }), /sub/],
    ['a changed claim', (() => { const [h, , s] = jwt().split('.'); return `${h}.${part({ ...claims, sub: 'stores/other' })}.${s}`; })(), /signature/],
  ])('refuses %s', (_name, token, reason) => {
    expect(verifySignedPayload(token, keys)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });
});
