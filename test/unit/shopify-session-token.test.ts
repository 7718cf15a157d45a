// Session tokens' reasons come from jose's typed errors (session-token.ts),
// never from reading a library's message: one row per way a token is refused.
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifySessionToken, type SessionTokenRefusal } from '../../adapters/shopify/session-token.ts';

const CLIENT_ID = 'client-id';
const SECRET = 'client-secret';
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const seconds = (ms: number) => Math.floor(ms / 1000);

interface Shape {
  secret?: string;
  alg?: string;
  aud?: string | null;
  exp?: number | null;
  nbf?: number | null;
}

function token({
  secret = SECRET,
  alg = 'HS256',
  aud = CLIENT_ID,
  exp = seconds(NOW) + 60,
  nbf = seconds(NOW) - 5,
}: Shape = {}) {
  const claims: Record<string, unknown> = {
    iss: 'https://shop-a.myshopify.com/admin',
    dest: 'https://shop-a.myshopify.com',
    sub: '42',
  };
  if (aud !== null) claims.aud = aud;
  if (exp !== null) claims.exp = exp;
  if (nbf !== null) claims.nbf = nbf;
  return new SignJWT(claims)
    .setProtectedHeader({ alg })
    .sign(new TextEncoder().encode(secret.padEnd(alg === 'HS512' ? 64 : 32, '.')));
}

const keys = (secret = SECRET) => ({ clientId: CLIENT_ID, clientSecret: secret.padEnd(32, '.'), now: () => NOW });

describe('verifySessionToken', () => {
  it('accepts a token of this app, within its time', async () => {
    const result = await verifySessionToken(await token(), keys());
    expect(result).toMatchObject({ ok: true, payload: { dest: 'https://shop-a.myshopify.com' } });
  });

  it('keeps the library leeway of 10 seconds on exp', async () => {
    expect((await verifySessionToken(await token({ exp: seconds(NOW) - 9 }), keys())).ok).toBe(true);
    expect(await verifySessionToken(await token({ exp: seconds(NOW) - 11 }), keys())).toEqual({
      ok: false,
      refusal: 'expired',
    });
  });

  it.each<[string, () => Promise<string>, SessionTokenRefusal]>([
    ['expired', () => token({ exp: seconds(NOW) - 60 }), 'expired'],
    ['not valid yet', () => token({ nbf: seconds(NOW) + 60 }), 'not_yet_valid'],
    ['another app', () => token({ aud: 'someone-else' }), 'wrong_audience'],
    ['no audience', () => token({ aud: null }), 'wrong_audience'],
    ['another secret', () => token({ secret: 'another-secret' }), 'bad_signature'],
    ['HS512', () => token({ alg: 'HS512' }), 'wrong_algorithm'],
    ['no exp', () => token({ exp: null }), 'missing_claim'],
    ['no nbf', () => token({ nbf: null }), 'missing_claim'],
    ['not a JWT', async () => 'not.a.jwt', 'malformed'],
  ])('refuses a token that is %s', async (_name, make, refusal) => {
    expect(await verifySessionToken(await make(), keys())).toEqual({ ok: false, refusal });
  });
});
