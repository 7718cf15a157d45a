// Verification of a Shopify delivery, pure: base64 HMAC-SHA256 of the exact bytes with the app's client
// secret, compared in constant time. Shopify signs more than webhooks with that secret (a session token
// h.p.s is a valid "webhook" with body h.p), so a body that is not a JSON object is refused too. Not
// @shopify/shopify-api's webhooks.validate (the tests hold this to it): its WebCrypto round trips cost
// about 40% of the acknowledgement's throughput, and it takes a string, so non-UTF-8 bodies cannot be checked.
import type { Preflight, RawDelivery, Verification } from '../../src/core/platform-adapter.ts';
import { asRecord, type JsonObject } from '../shared/json.ts';
import { hmacBase64Matches } from '../shared/signature.ts';
import { normaliseShopifyHeaders, SHOPIFY_HEADER } from './headers.ts';

export interface ShopifyDelivery {
  webhookId: string;
  /** X-Shopify-Event-Id, when Shopify sent it. */
  eventId: string | undefined;
  /** As Shopify writes it: orders/paid. */
  topic: string;
  shop: string;
  apiVersion: string;
  triggeredAt: string | undefined;
  /** X-Shopify-Name: the delivering subscription's name, when it has one. */
  name: string | undefined;
  body: Buffer;
  /** The body parsed: always a JSON object (numbers past 2^53 rounded: for checking its shape, never for ids). */
  payload: JsonObject;
  receivedAt: Date;
}

const MYSHOPIFY_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/** Only a request with Shopify's signature header is read at all. */
export function shopifyPreflight(headers: RawDelivery['headers']): Preflight {
  return headers[SHOPIFY_HEADER.hmac] || headers['shopify-hmac-sha256']
    ? { ok: true }
    : { ok: false, reason: 'missing_hmac' };
}

/** Headers every delivery carries, as the library requires them (the HMAC aside). */
const REQUIRED = [
  SHOPIFY_HEADER.topic,
  SHOPIFY_HEADER.shop,
  SHOPIFY_HEADER.apiVersion,
  SHOPIFY_HEADER.webhookId,
] as const;

/**
 * A verifier bound to the app's client secret, and during a rotation the
 * previous one as well (Shopify signs with the new secret once it is
 * rotated, but deliveries already under way carry the old signature).
 */
export function shopifyVerifier(
  apiSecretKeys: readonly string[],
): (raw: RawDelivery) => Promise<Verification<ShopifyDelivery>> {
  return async (raw) => {
    const headers = normaliseShopifyHeaders(raw.headers);
    // As the library: no body or no HMAC is a missing signature, a wrong one is invalid; both 401.
    if (raw.body.length === 0) return { ok: false, status: 401, reason: 'missing_body' };
    if (!headers[SHOPIFY_HEADER.hmac]) return { ok: false, status: 401, reason: 'missing_hmac' };
    // Every secret is checked, so the time taken does not tell which one matched.
    const matches = apiSecretKeys.map((secret) => hmacBase64Matches(raw.body, secret, headers[SHOPIFY_HEADER.hmac]));
    if (!matches.includes(true)) return { ok: false, status: 401, reason: 'invalid_hmac' };

    const payload = jsonObject(raw.body);
    if (!payload) return { ok: false, status: 401, reason: 'not_a_json_object' };

    const missing = REQUIRED.filter((name) => !headers[name]);
    if (missing.length > 0) return { ok: false, status: 400, reason: `missing headers: ${missing.join(', ')}` };
    // Shopify names the shop by its myshopify domain; anything else is not a shop of Shopify's (and must not become one of ours).
    if (!MYSHOPIFY_DOMAIN.test((headers[SHOPIFY_HEADER.shop] ?? '').toLowerCase()))
      return { ok: false, status: 400, reason: 'X-Shopify-Shop-Domain is not a myshopify.com domain' };
    return {
      ok: true,
      delivery: {
        webhookId: headers[SHOPIFY_HEADER.webhookId] ?? '',
        eventId: headers[SHOPIFY_HEADER.eventId] || undefined,
        topic: (headers[SHOPIFY_HEADER.topic] ?? '').toLowerCase(),
        shop: (headers[SHOPIFY_HEADER.shop] ?? '').toLowerCase(),
        apiVersion: headers[SHOPIFY_HEADER.apiVersion] ?? '',
        triggeredAt: headers[SHOPIFY_HEADER.triggeredAt],
        name: headers[SHOPIFY_HEADER.name] || undefined,
        body: raw.body,
        payload,
        receivedAt: raw.receivedAt,
      },
    };
  };
}

/** The body as a JSON object, or undefined when it is anything else (not JSON, an array, a string). */
function jsonObject(body: Buffer): JsonObject | undefined {
  // Cheap refusals first: every JSON object starts with '{' after any white space.
  const first = body.findIndex((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
  if (first < 0 || body[first] !== 0x7b) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? asRecord(value) : undefined;
  } catch {
    return undefined;
  }
}
