// App Bridge's session tokens, verified with jose as @shopify/shopify-api does it (HS256 with the client
// secret, exp and nbf with 10 seconds of leeway, aud the client id), but with jose's typed errors read into
// reasons of our own: the library wraps them all in one InvalidJwtError whose message quotes the token.
import { errors, jwtVerify, type JWTPayload } from 'jose';

/** The library's leeway on exp and nbf (decode-session-token's JWT_PERMITTED_CLOCK_TOLERANCE). */
export const SESSION_TOKEN_LEEWAY_SECONDS = 10;

export const SESSION_TOKEN_REFUSALS = {
  malformed: 'the session token is not valid',
  bad_signature: "the session token is not signed with this app's client secret",
  wrong_algorithm: 'the session token is not signed with HS256',
  expired: 'the session token has expired',
  not_yet_valid: 'the session token is not valid yet',
  wrong_audience: 'the session token is for another app (aud is not this client id)',
  missing_claim: 'the session token has no exp or nbf',
  no_shop: 'the session token does not name a shop (dest)',
  wrong_issuer: 'the session token was not issued by the shop it names (iss and dest differ)',
  customer_token: "the session token names a customer (sub), not a staff member: a customer account extension's",
} as const;

export type SessionTokenRefusal = keyof typeof SESSION_TOKEN_REFUSALS;

export interface SessionTokenKeys {
  clientId: string;
  clientSecret: string;
  /** A test's clock; jose reads the system's otherwise. */
  now?: () => number;
}

export type SessionTokenResult = { ok: true; payload: JWTPayload } | { ok: false; refusal: SessionTokenRefusal };

/** jose's verdict as one of ours; an error that is not jose's is a bug, and is thrown on. */
function refusalOf(error: unknown): SessionTokenRefusal {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return error.claim === 'aud' ? 'wrong_audience' : 'missing_claim';
    if (error.claim === 'aud') return 'wrong_audience';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not_yet_valid';
    return 'malformed';
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'wrong_algorithm';
  if (error instanceof errors.JOSEError) return 'malformed';
  throw error;
}

/** The token's claims when it is good for this app now: signature, algorithm, audience, exp and nbf (both required). */
export async function verifySessionToken(token: string, keys: SessionTokenKeys): Promise<SessionTokenResult> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(keys.clientSecret), {
      algorithms: ['HS256'],
      audience: keys.clientId,
      clockTolerance: SESSION_TOKEN_LEEWAY_SECONDS,
      // The library checks exp and nbf only when present; Shopify's tokens always carry both.
      requiredClaims: ['exp', 'nbf'],
      ...(keys.now ? { currentDate: new Date(keys.now()) } : {}),
    });
    return { ok: true, payload };
  } catch (error) {
    return { ok: false, refusal: refusalOf(error) };
  }
}
