// The signed_payload_jwt of BigCommerce's load, uninstall and remove_user callbacks: HS256 with the app's
// client secret ("Single-Click App Callback Handlers"). Only HS256 is allowed, every claim BigCommerce
// always sends is required, and a payload lives a day from its iat whatever its exp says. Reasons come
// from jose's error classes, never from message text. The signature does not say for which callback:
// callback-payloads.ts keeps each payload to one.
import { errors, jwtVerify } from 'jose';
import { asRecord, asString } from '../shared/json.ts';

/** Why a payload was refused, in words a merchant or operator can act on. Nothing of the token is ever in them. */
export const SIGNED_PAYLOAD_REFUSALS = {
  malformed: 'the signed_payload_jwt is missing or is not a JWT',
  wrong_algorithm: 'the signed_payload_jwt is not signed with HS256',
  bad_signature: 'the signed_payload_jwt is not signed with this app’s client secret (BIGCOMMERCE_CLIENT_SECRET)',
  wrong_issuer: 'the signed_payload_jwt was not issued by BigCommerce (iss is not "bc")',
  wrong_audience: 'the signed_payload_jwt is for another app (aud is not BIGCOMMERCE_CLIENT_ID)',
  expired: 'the signed_payload_jwt has expired: open the app again from the BigCommerce control panel',
  not_yet_valid: 'the signed_payload_jwt is not valid yet (is this server’s clock right?)',
  missing_claim: 'the signed_payload_jwt lacks a time BigCommerce always sends (exp, iat or nbf)',
  no_store: 'the signed_payload_jwt names no store (sub is not stores/<hash>)',
  no_jti: 'the signed_payload_jwt has no id (jti)',
} as const;

export type SignedPayloadRefusal = keyof typeof SIGNED_PAYLOAD_REFUSALS;

export interface SignedPayloadClaims {
  storeHash: string;
  /** The payload's own id: each is used at one callback only. */
  jti: string;
  /** When the payload expires (seconds since the epoch, BigCommerce's exp). */
  expiresAt: number;
  /** When BigCommerce made it (seconds since the epoch, its iat). */
  issuedAt: number;
  /** The deep link the load came with ("/" from the Apps menu). */
  url: string;
  userId: number | null;
}

export type SignedPayloadResult =
  | { ok: true; claims: SignedPayloadClaims }
  | { ok: false; refusal: SignedPayloadRefusal; reason: (typeof SIGNED_PAYLOAD_REFUSALS)[SignedPayloadRefusal] };

export interface SignedPayloadKeys {
  clientId: string;
  clientSecret: string;
  /** Seconds of clock difference allowed around nbf and exp. */
  leewaySeconds?: number;
  now?: () => number;
}

export const SIGNED_PAYLOAD_LEEWAY_SECONDS = 60;
/** BigCommerce's payloads expire 24 hours after they are issued. */
const PAYLOAD_LIFETIME_SECONDS = 86_400;

const STORE_SUBJECT = /^stores\/([a-z0-9]{1,32})$/;
/** BigCommerce's jti is a UUID; anything longer than this is not one of theirs, and would only bloat the records kept of it. */
const MAX_JTI_LENGTH = 200;

const refused = (refusal: SignedPayloadRefusal): SignedPayloadResult => ({
  ok: false,
  refusal,
  reason: SIGNED_PAYLOAD_REFUSALS[refusal],
});

/** jose's verdict as one of ours; an error that is not jose's is a bug, and is thrown on. */
function refusalOf(error: unknown): SignedPayloadRefusal {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') {
      if (error.claim === 'jti') return 'no_jti';
      if (error.claim === 'sub') return 'no_store';
      if (error.claim === 'iss') return 'wrong_issuer';
      if (error.claim === 'aud') return 'wrong_audience';
      return 'missing_claim';
    }
    if (error.claim === 'iss') return 'wrong_issuer';
    if (error.claim === 'aud') return 'wrong_audience';
    // An iat that fails its check here is in the future (one too far in the past is JWTExpired).
    if ((error.claim === 'nbf' || error.claim === 'iat') && error.reason === 'check_failed') return 'not_yet_valid';
    return 'malformed';
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'wrong_algorithm';
  if (error instanceof errors.JOSEError) return 'malformed';
  throw error;
}

export async function verifySignedPayload(
  jwt: string | undefined,
  keys: SignedPayloadKeys,
): Promise<SignedPayloadResult> {
  if (!jwt) return refused('malformed');
  let payload;
  try {
    ({ payload } = await jwtVerify(jwt, new TextEncoder().encode(keys.clientSecret), {
      algorithms: ['HS256'],
      issuer: 'bc',
      audience: keys.clientId,
      clockTolerance: keys.leewaySeconds ?? SIGNED_PAYLOAD_LEEWAY_SECONDS,
      // jose allows the clockTolerance on top: 24 hours and the leeway from iat in all.
      maxTokenAge: PAYLOAD_LIFETIME_SECONDS,
      requiredClaims: ['jti', 'sub', 'exp', 'iat', 'nbf'],
      ...(keys.now ? { currentDate: new Date(keys.now()) } : {}),
    }));
  } catch (error) {
    return refused(refusalOf(error));
  }
  const storeHash = STORE_SUBJECT.exec(asString(payload.sub) ?? '')?.[1];
  if (!storeHash) return refused('no_store');
  const jti = asString(payload.jti);
  if (!jti || jti.length > MAX_JTI_LENGTH) return refused('no_jti');
  const user = asRecord(payload.user);
  return {
    ok: true,
    claims: {
      storeHash,
      jti,
      expiresAt: payload.exp!,
      issuedAt: payload.iat!,
      url: asString(payload.url) ?? '/',
      userId: typeof user.id === 'number' ? user.id : null,
    },
  };
}
