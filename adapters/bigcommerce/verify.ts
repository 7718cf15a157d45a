// BigCommerce signs webhooks by the Standard Webhooks scheme: webhook-id,
// webhook-timestamp and webhook-signature ("v1,<base64>", several separated
// by spaces while a secret rotates) over "id.timestamp.body", keyed with the
// app's client secret. The standardwebhooks library checks the signatures and
// refuses timestamps more than 5 minutes off.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { RawDelivery, Verification } from '../adapter.ts';
import { asRecord, asString, idDigits, parseJsonLossless } from '../shared/json.ts';
import { flatHeaders } from '../shared/signature.ts';

export interface BigCommerceDelivery {
  webhookId: string;
  scope: string;
  storeId: string;
  /** The order id, when the payload is about an order. */
  orderId: string | undefined;
  /** BigCommerce's hash of the payload, the same on every retry. */
  hash: string | undefined;
  body: Buffer;
  payload: Record<string, unknown> | undefined;
  receivedAt: Date;
}

export function bigCommerceVerifier(clientSecret: string): (raw: RawDelivery) => Promise<Verification<BigCommerceDelivery>> {
  const webhook = new Webhook(Buffer.from(clientSecret, 'utf8'), { format: 'raw' });
  return async (raw) => {
    const headers = flatHeaders(raw.headers);
    if (!headers['webhook-signature']) return { ok: false, status: 401, reason: 'missing webhook-signature' };
    const missing = ['webhook-id', 'webhook-timestamp'].filter((name) => !headers[name]);
    if (missing.length > 0) return { ok: false, status: 400, reason: `missing headers: ${missing.join(', ')}` };
    try {
      webhook.verify(raw.body, headers, { jsonParse: false });
    } catch (error) {
      if (error instanceof WebhookVerificationError) return { ok: false, status: 401, reason: error.message };
      throw error;
    }
    return { ok: true, delivery: bigCommerceDelivery(headers['webhook-id'] ?? '', raw.body, raw.receivedAt) };
  };
}

/** A verified delivery from its id and body (also for one read again from a dead letter). */
export function bigCommerceDelivery(webhookId: string, body: Buffer, receivedAt: Date): BigCommerceDelivery {
  const parsed = parseJsonLossless(body.toString('utf8'));
  const payload = parsed.ok ? asRecord(parsed.value) : undefined;
  const data = asRecord(payload?.data);
  return {
    webhookId,
    scope: asString(payload?.scope) ?? '',
    storeId: String(payload?.store_id ?? ''),
    orderId: asString(data.type) === 'order' ? idDigits(data.id) : undefined,
    hash: asString(payload?.hash) ?? undefined,
    body,
    payload,
    receivedAt,
  };
}
