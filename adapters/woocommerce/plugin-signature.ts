// What the WordPress plugin signs for the bridge (docs/wordpress-plugin.md): an HMAC-SHA256 under the store's
// plugin key over "<purpose>.<payload as sent, base64url>", the purpose a fixed string per use, so that a signature
// made for one use (the door) opens nothing at another (who the customer is). The key is the 32 bytes its
// base64url text encodes (the plugin decodes it before hash_hmac); wordpress/tests/vectors.json, made by the
// plugin's PHP, pins both sides to the same bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DOOR_PURPOSE = 'loyalty-bridge merchant-door v1';
export const IDENTITY_PURPOSE = 'loyalty-bridge identity v1';
export const DISCONNECT_PURPOSE = 'loyalty-bridge disconnect v1';
export type PluginPurpose = typeof DOOR_PURPOSE | typeof IDENTITY_PURPOSE | typeof DISCONNECT_PURPOSE;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** An HMAC-SHA256 in base64url, unpadded. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** The signature of a payload (already base64url) for a purpose: base64url, unpadded. */
export function pluginSignature(purpose: PluginPurpose, payload: string, key: string): string {
  return createHmac('sha256', Buffer.from(key, 'base64url'))
    .update(`${purpose}.${payload}`, 'utf8')
    .digest('base64url');
}

/**
 * The payload's JSON object, if `signature` is the key's for this purpose over it; undefined otherwise (a wrong
 * signature, another purpose's, or a payload that is not a JSON object). Compared in constant time.
 */
export function signedPayload(
  purpose: PluginPurpose,
  payload: string,
  signature: string,
  key: string,
): Record<string, unknown> | undefined {
  if (!BASE64URL.test(payload) || !SIGNATURE.test(signature) || key === '') return undefined;
  const expected = Buffer.from(pluginSignature(purpose, payload, key));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  return readPayload(payload);
}

/**
 * A payload's JSON object, read before its signature is checked only to learn which store's key checks it: nothing
 * else of it is trusted until then.
 */
export function readPayload(payload: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(payload)) return undefined;
  try {
    const read: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof read === 'object' && read !== null && !Array.isArray(read)
      ? (read as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
