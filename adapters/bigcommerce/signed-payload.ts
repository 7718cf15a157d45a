// The signed_payload_jwt BigCommerce sends to a single-click app's load,
// uninstall and remove_user callbacks: a JWT signed HS256 with the app's
// client secret, whose claims are (BigCommerce, "Single-Click App Callback
// Handlers"): aud, the app's client id; iss, always "bc"; iat and nbf; exp,
// 24 hours later; jti; sub, "stores/<store hash>"; user and owner; url;
// channel_id. Checked here with node:crypto, in constant time; any algorithm
// but HS256 (among them "none") is refused.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { asRecord, asString } from '../shared/json.ts';

export interface SignedPayloadClaims {
  storeHash: string;
  /** The deep link the load came with ("/" from the Apps menu). */
  url: string;
  userId: number | null;
  jti: string | null;
}

export type SignedPayloadResult = { ok: true; claims: SignedPayloadClaims } | { ok: false; reason: string };

export interface SignedPayloadKeys {
  clientId: string;
  clientSecret: string;
  /** Seconds of clock difference allowed around nbf and exp. */
  leewaySeconds?: number;
  now?: () => number;
}

const decodeJson = (part: string): Record<string, unknown> | undefined => {
  try {
    return asRecord(JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
};

export function verifySignedPayload(jwt: string | undefined, keys: SignedPayloadKeys): SignedPayloadResult {
  const parts = (jwt ?? '').split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return { ok: false, reason: 'signed_payload_jwt is missing or not a JWT' };
  const [header, payload, signature] = parts as [string, string, string];
  if (decodeJson(header)?.alg !== 'HS256') return { ok: false, reason: 'signed_payload_jwt is not signed with HS256' };
  const expected = createHmac('sha256', keys.clientSecret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signed_payload_jwt has a signature that is not ours (BIGCOMMERCE_CLIENT_SECRET)' };
  const claims = decodeJson(payload);
  if (!claims) return { ok: false, reason: 'signed_payload_jwt has claims that are not JSON' };
  const now = (keys.now ?? Date.now)() / 1000;
  const leeway = keys.leewaySeconds ?? 60;
  if (claims.iss !== 'bc') return { ok: false, reason: 'signed_payload_jwt was not issued by BigCommerce (iss)' };
  if (claims.aud !== keys.clientId) return { ok: false, reason: 'signed_payload_jwt is for another app (aud is not BIGCOMMERCE_CLIENT_ID)' };
  if (typeof claims.exp !== 'number' || claims.exp + leeway < now) return { ok: false, reason: 'signed_payload_jwt has expired' };
  if (typeof claims.nbf === 'number' && claims.nbf - leeway > now) return { ok: false, reason: 'signed_payload_jwt is not valid yet' };
  const storeHash = /^stores\/([a-z0-9]{1,32})$/.exec(asString(claims.sub) ?? '')?.[1];
  if (!storeHash) return { ok: false, reason: 'signed_payload_jwt names no store (sub)' };
  const user = asRecord(claims.user);
  return { ok: true, claims: { storeHash, url: asString(claims.url) ?? '/', userId: typeof user.id === 'number' ? user.id : null, jti: asString(claims.jti) } };
}
