// BigCommerce deliveries are authenticated one of two ways:
//   Standard Webhooks   webhook-id, webhook-timestamp and webhook-signature
//                       ("v1,<base64>", several while a secret rotates) over
//                       "id.timestamp.body", keyed with the app's client
//                       secret; the standardwebhooks library checks them and
//                       refuses timestamps more than 5 minutes off
//   a secret header     the custom headers BigCommerce documents for hook
//                       creation: `register --platform bigcommerce` creates the
//                       hooks with x-loyalty-bridge-token set to
//                       BIGCOMMERCE_WEBHOOK_SECRET, compared in constant time
import { createHash } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { RawDelivery, Verification } from '../adapter.ts';
import { sameSecret } from '../../src/same-secret.ts';
import { asRecord, asString, idDigits, parseJsonLossless, scalarText } from '../shared/json.ts';
import { flatHeaders } from '../shared/signature.ts';

/** The header the hooks loyalty-bridge creates carry, with BIGCOMMERCE_WEBHOOK_SECRET. */
export const BC_SECRET_HEADER = 'x-loyalty-bridge-token';

export interface BigCommerceDelivery {
  /** The Standard Webhooks id, when the delivery was signed that way. */
  webhookId: string | undefined;
  scope: string;
  storeId: string;
  /** The store hash the payload names (producer: stores/<hash>). */
  storeHash: string | undefined;
  orderId: string | undefined;
  /** BigCommerce's SHA-1 of the payload data: the same for every update of one order, so never alone a dedupe key. */
  hash: string | undefined;
  createdAt: string | undefined;
  digest: string;
  body: Buffer;
  payload: Record<string, unknown> | undefined;
}

export interface BigCommerceVerifierOptions {
  clientSecret?: string | undefined;
  headerSecret?: string | undefined;
}

export function bigCommerceVerifier({ clientSecret, headerSecret }: BigCommerceVerifierOptions): (raw: RawDelivery) => Promise<Verification<BigCommerceDelivery>> {
  const webhook = clientSecret ? new Webhook(Buffer.from(clientSecret, 'utf8'), { format: 'raw' }) : undefined;
  return async (raw) => {
    const headers = flatHeaders(raw.headers);
    if (headers['webhook-signature']) {
      if (!webhook) return { ok: false, status: 401, reason: 'signed deliveries need BIGCOMMERCE_CLIENT_SECRET' };
      const missing = ['webhook-id', 'webhook-timestamp'].filter((name) => !headers[name]);
      if (missing.length > 0) return { ok: false, status: 400, reason: `missing headers: ${missing.join(', ')}` };
      try {
        webhook.verify(raw.body, headers, { jsonParse: false });
      } catch (error) {
        if (error instanceof WebhookVerificationError) return { ok: false, status: 401, reason: error.message };
        throw error;
      }
      return { ok: true, delivery: bigCommerceDelivery(raw.body, headers['webhook-id']) };
    }
    const given = headers[BC_SECRET_HEADER];
    if (given !== undefined && headerSecret !== undefined) {
      if (!sameSecret(given, headerSecret)) return { ok: false, status: 401, reason: `wrong ${BC_SECRET_HEADER}` };
      return { ok: true, delivery: bigCommerceDelivery(raw.body, undefined) };
    }
    return { ok: false, status: 401, reason: headerSecret ? `missing webhook-signature or ${BC_SECRET_HEADER}` : 'missing webhook-signature' };
  };
}

/** A verified delivery from its body (and its Standard Webhooks id, when it had one). */
export function bigCommerceDelivery(body: Buffer, webhookId: string | undefined): BigCommerceDelivery {
  const parsed = parseJsonLossless(body.toString('utf8'));
  const payload = parsed.ok ? asRecord(parsed.value) : undefined;
  const data = asRecord(payload?.data);
  return {
    webhookId,
    scope: asString(payload?.scope) ?? '',
    storeId: String(payload?.store_id ?? ''),
    storeHash: asString(payload?.producer)?.replace(/^stores\//, '') ?? undefined,
    orderId: asString(data.type) === 'order' ? idDigits(data.id) : undefined,
    hash: asString(payload?.hash) ?? undefined,
    createdAt: scalarText(payload?.created_at) ?? undefined,
    digest: createHash('sha256').update(body).digest('hex'),
    body,
    payload,
  };
}
