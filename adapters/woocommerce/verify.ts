// WooCommerce deliveries: X-WC-Webhook-Signature, the base64 HMAC-SHA256 of the raw body, checked with the
// secret of the store the delivery comes from (X-WC-Webhook-Source), so that one store's secret never
// passes another's delivery. The one unsigned request accepted is the ping WooCommerce sends when a webhook
// is saved ("webhook_id=N", no X-WC headers), which must get exactly 200.
import { createHash } from 'node:crypto';
import type { Preflight, RawDelivery, Verification } from '../../src/core/platform-adapter.ts';
import { flatHeaders, hmacBase64Matches } from '../shared/signature.ts';
import { wooShopOf } from './shop-identity.ts';

export const WC_HEADER = {
  signature: 'x-wc-webhook-signature',
  topic: 'x-wc-webhook-topic',
  source: 'x-wc-webhook-source',
  webhookId: 'x-wc-webhook-id',
  deliveryId: 'x-wc-webhook-delivery-id',
} as const;

export type WooDelivery =
  | { kind: 'ping'; webhookId: string; digest: string }
  | {
      kind: 'event';
      topic: string;
      source: string;
      shop: string | undefined;
      webhookId: string;
      body: Buffer;
      digest: string;
      receivedAt: Date;
    };

/** The secrets a delivery from this shop (undefined: the delivery names none) may be signed with. */
export type WooSecrets = (shop: string | undefined) => Promise<string[]>;

/** The shop a source names, or undefined when it is not an address. */
export function shopOfSource(source: string | undefined): string | undefined {
  if (!source) return undefined;
  try {
    return wooShopOf(source);
  } catch {
    return undefined;
  }
}

const isPing = (body: Buffer, headers: Record<string, string>) =>
  !Object.keys(headers).some((name) => name.startsWith('x-wc-webhook-')) &&
  /^webhook_id=\d{1,20}$/.test(body.toString('latin1').trim());

/** "webhook_id=" and up to 20 digits: the whole of a ping. */
const PING_MAX_BYTES = 64;

/**
 * Only a request with WooCommerce's signature header is read in full. The
 * ping WooCommerce sends when a webhook is saved carries no X-WC header at
 * all and must get 200: such a request is read up to a ping's size.
 */
export function wooPreflight(headers: RawDelivery['headers']): Preflight {
  if (headers[WC_HEADER.signature]) return { ok: true };
  if (Object.keys(headers).some((name) => name.toLowerCase().startsWith('x-wc-webhook-')))
    return { ok: false, reason: 'missing_signature' };
  const length = Number(headers['content-length'] ?? Number.NaN);
  return Number.isInteger(length) && length <= PING_MAX_BYTES
    ? { ok: true, maxBodyBytes: PING_MAX_BYTES }
    : { ok: false, reason: 'missing_signature' };
}

export function wooVerifier(secretsFor: WooSecrets): (raw: RawDelivery) => Promise<Verification<WooDelivery>> {
  return async (raw) => {
    const headers = flatHeaders(raw.headers);
    const digest = createHash('sha256').update(raw.body).digest('hex');
    if (isPing(raw.body, headers)) {
      return {
        ok: true,
        delivery: { kind: 'ping', webhookId: raw.body.toString('latin1').trim().slice('webhook_id='.length), digest },
      };
    }
    const source = headers[WC_HEADER.source];
    const shop = shopOfSource(source);
    // A source that names no store is no store's: not counted as the configured store's, as one without a source is.
    if (source && shop === undefined) return { ok: false, status: 401, reason: 'the webhook source names no store' };
    const secrets = await secretsFor(shop);
    if (!secrets.some((secret) => hmacBase64Matches(raw.body, secret, headers[WC_HEADER.signature]))) {
      return {
        ok: false,
        status: 401,
        reason:
          secrets.length === 0
            ? `no store is connected for ${shop ?? 'a delivery without X-WC-Webhook-Source'}`
            : 'invalid_signature',
      };
    }
    const topic = headers[WC_HEADER.topic];
    if (!topic) return { ok: false, status: 400, reason: `missing headers: ${WC_HEADER.topic}` };
    return {
      ok: true,
      delivery: {
        kind: 'event',
        topic: topic.toLowerCase(),
        source: headers[WC_HEADER.source] ?? '',
        shop,
        webhookId: headers[WC_HEADER.webhookId] ?? '',
        body: raw.body,
        digest,
        receivedAt: raw.receivedAt,
      },
    };
  };
}
