// The signed_payload_jwt of BigCommerce's load, uninstall and remove_user
// callbacks, checked with jose as BigCommerce documents it: HS256 with the
// client secret, aud the client id, iss "bc", valid between nbf and exp and
// for no more than a day from iat (a minute's leeway), and every claim
// BigCommerce always sends present. Tokens are made here with node:crypto,
// independently of the library that checks.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SIGNED_PAYLOAD_REFUSALS,
  verifySignedPayload,
  type SignedPayloadRefusal,
} from '../../adapters/bigcommerce/signed-payload.ts';

const keys = {
  clientId: 'app-client-id',
  clientSecret: 'app-client-secret',
  now: () => Date.parse('2026-11-20T10:00:00Z'),
};
const now = keys.now() / 1000;
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claims = {
  aud: 'app-client-id',
  iss: 'bc',
  iat: now,
  nbf: now,
  exp: now + 86_400,
  jti: 'c5f0bcf5-a504-4ae6-8dcc-0e40eaa5a070',
  sub: 'stores/z4zn3wo',
  user: { id: 9876543, email: 'user@example.com', locale: 'en-US' },
  owner: { id: 7654321, email: 'owner@example.com' },
  url: '/',
  channel_id: null,
};

/** A payload with claims changed (undefined removes one), signed as given. */
function jwt(
  changes: Record<string, unknown> = {},
  { alg = 'HS256', secret = keys.clientSecret }: { alg?: string; secret?: string } = {},
) {
  const signed = `${part({ typ: 'JWT', alg })}.${part({ ...claims, ...changes })}`;
  const digest = alg === 'HS512' ? 'sha512' : 'sha256';
  return `${signed}.${createHmac(digest, secret).update(signed).digest('base64url')}`;
}

describe('the signed_payload_jwt', () => {
  it('names the store, the payload’s id and expiry, the user and the deep link of a payload BigCommerce signed', async () => {
    expect(await verifySignedPayload(jwt(), keys)).toEqual({
      ok: true,
      claims: {
        storeHash: 'z4zn3wo',
        jti: claims.jti,
        expiresAt: now + 86_400,
        issuedAt: now,
        url: '/',
        userId: 9876543,
      },
    });
  });

  it('allows a minute of clock difference at either end', async () => {
    expect((await verifySignedPayload(jwt({ nbf: now + 30 }), keys)).ok).toBe(true);
    expect((await verifySignedPayload(jwt({ exp: now - 30 }), keys)).ok).toBe(true);
    // BigCommerce's payloads live a day from iat.
    expect((await verifySignedPayload(jwt({ iat: now - 86_400 - 30, exp: now + 3_600 }), keys)).ok).toBe(true);
  });

  const [header, body] = jwt().split('.') as [string, string];
  const cases: Array<[string, string | undefined, SignedPayloadRefusal]> = [
    ['no payload at all', undefined, 'malformed'],
    ['two parts', 'a.b', 'malformed'],
    ['parts that are not base64url JSON', 'a.b.c', 'malformed'],
    [
      'claims that are not an object',
      (() => {
        const signed = `${header}.${Buffer.from('[1]').toString('base64url')}`;
        return `${signed}.${createHmac('sha256', keys.clientSecret).update(signed).digest('base64url')}`;
      })(),
      'malformed',
    ],
    ['alg "none", unsigned', `${part({ typ: 'JWT', alg: 'none' })}.${body}.`, 'wrong_algorithm'],
    [
      'alg "none" with the HS256 signature kept',
      `${part({ typ: 'JWT', alg: 'none' })}.${body}.${jwt().split('.')[2]}`,
      'wrong_algorithm',
    ],
    ['HS512, though with the right secret', jwt({}, { alg: 'HS512' }), 'wrong_algorithm'],
    ['RS256 in the header', `${part({ typ: 'JWT', alg: 'RS256' })}.${body}.${jwt().split('.')[2]}`, 'wrong_algorithm'],
    ['another secret', jwt({}, { secret: 'someone-else' }), 'bad_signature'],
    [
      'a tampered payload (another store), the signature kept',
      `${header}.${part({ ...claims, sub: 'stores/other1' })}.${jwt().split('.')[2]}`,
      'bad_signature',
    ],
    ['another app (aud)', jwt({ aud: 'other-app' }), 'wrong_audience'],
    ['no aud', jwt({ aud: undefined }), 'wrong_audience'],
    ['another issuer', jwt({ iss: 'me' }), 'wrong_issuer'],
    ['no issuer', jwt({ iss: undefined }), 'wrong_issuer'],
    ['expired beyond the leeway', jwt({ exp: now - 61 }), 'expired'],
    ['expired an hour ago', jwt({ exp: now - 3_600 }), 'expired'],
    ['nbf beyond the leeway in the future', jwt({ nbf: now + 61 }), 'not_yet_valid'],
    [
      'issued more than a day and the leeway ago, with an exp far later',
      jwt({ iat: now - 86_400 - 61, exp: now + 3_600 }),
      'expired',
    ],
    ['issued beyond the leeway in the future', jwt({ iat: now + 61 }), 'not_yet_valid'],
    ['no exp', jwt({ exp: undefined }), 'missing_claim'],
    ['no iat', jwt({ iat: undefined }), 'missing_claim'],
    ['no nbf', jwt({ nbf: undefined }), 'missing_claim'],
    ['an exp that is not a number', jwt({ exp: 'tomorrow' }), 'malformed'],
    ['no jti', jwt({ jti: undefined }), 'no_jti'],
    ['an empty jti', jwt({ jti: '' }), 'no_jti'],
    ['a jti that is not text', jwt({ jti: 42 }), 'no_jti'],
    ['no sub', jwt({ sub: undefined }), 'no_store'],
    ['a sub that is not a store', jwt({ sub: 'users/1' }), 'no_store'],
  ];
  it.each(cases)('refuses %s', async (_name, token, refusal) => {
    expect(await verifySignedPayload(token, keys)).toEqual({
      ok: false,
      refusal,
      reason: SIGNED_PAYLOAD_REFUSALS[refusal],
    });
  });

  it('never puts the token, or anything of its claims, in a reason', async () => {
    const secretish = jwt({ jti: undefined, sub: 'stores/leakcheck9' });
    for (const token of [secretish, jwt({ exp: now - 3_600, sub: 'stores/leakcheck9' }), `${secretish}x`]) {
      const result = await verifySignedPayload(token, keys);
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toMatch(/leakcheck9|eyJ/);
    }
  });
});
