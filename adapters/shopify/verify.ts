// Verification of a Shopify delivery: a pure function of the raw bytes and
// headers. The HMAC is Shopify's: base64 HMAC-SHA256 of the exact body with
// the app's client secret, compared in constant time.
//
// @shopify/shopify-api's webhooks.validate computes the same thing, and the
// tests hold this verifier to it (the known vector, and a property test that
// both give the same answer on random bodies and headers). It is not called
// here because it signs through WebCrypto, two thread-pool round trips per
// delivery: on the acknowledgement path that cost about 40% of the bridge's
// throughput (npm run bench). It also takes the body as a string, so a body
// that is not valid UTF-8 could not be checked exactly; raw bytes can.
import type { RawDelivery, Verification } from '../adapter.ts';
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
  body: Buffer;
  receivedAt: Date;
}

/** Headers every delivery carries, as the library requires them (the HMAC aside). */
const REQUIRED = [SHOPIFY_HEADER.topic, SHOPIFY_HEADER.shop, SHOPIFY_HEADER.apiVersion, SHOPIFY_HEADER.webhookId] as const;

/**
 * A verifier bound to the app's client secret, and during a rotation the
 * previous one as well (Shopify signs with the new secret once it is
 * rotated, but deliveries already under way carry the old signature).
 */
export function shopifyVerifier(apiSecretKeys: readonly string[]): (raw: RawDelivery) => Promise<Verification<ShopifyDelivery>> {
  return async (raw) => {
    const headers = normaliseShopifyHeaders(raw.headers);
    // As the library: no body or no HMAC is a missing signature, a wrong one is invalid; both 401.
    if (raw.body.length === 0) return { ok: false, status: 401, reason: 'missing_body' };
    if (!headers[SHOPIFY_HEADER.hmac]) return { ok: false, status: 401, reason: 'missing_hmac' };
    // Every secret is checked, so the time taken does not tell which one matched.
    const matches = apiSecretKeys.map((secret) => hmacBase64Matches(raw.body, secret, headers[SHOPIFY_HEADER.hmac]));
    if (!matches.includes(true)) return { ok: false, status: 401, reason: 'invalid_hmac' };

    const missing = REQUIRED.filter((name) => !headers[name]);
    if (missing.length > 0) return { ok: false, status: 400, reason: `missing headers: ${missing.join(', ')}` };
    return {
      ok: true,
      delivery: {
        webhookId: headers[SHOPIFY_HEADER.webhookId] ?? '',
        eventId: headers[SHOPIFY_HEADER.eventId] || undefined,
        topic: (headers[SHOPIFY_HEADER.topic] ?? '').toLowerCase(),
        shop: (headers[SHOPIFY_HEADER.shop] ?? '').toLowerCase(),
        apiVersion: headers[SHOPIFY_HEADER.apiVersion] ?? '',
        triggeredAt: headers[SHOPIFY_HEADER.triggeredAt],
        body: raw.body,
        receivedAt: raw.receivedAt,
      },
    };
  };
}
