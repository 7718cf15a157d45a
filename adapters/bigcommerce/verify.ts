// BigCommerce deliveries are authentic by either of two proofs: a Standard Webhooks signature keyed with the
// app's client secret (timestamps more than 5 minutes off refused), or, for the store configured by hand
// only, x-loyalty-bridge-token equal to BIGCOMMERCE_WEBHOOK_SECRET. Hooks made with a store API account are
// signed with a secret the bridge may not hold, and refusing them would have BigCommerce retry for 48 hours,
// deactivate the hook and blocklist the domain: so 401 only when neither proof checks out.
import { createHash } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Preflight, RawDelivery, Verification } from '../../src/core/platform-adapter.ts';
import { sameSecret } from '../../src/same-secret.ts';
import { asRecord, asString, idDigits, parseJsonLossless, scalarText } from '../shared/json.ts';
import { flatHeaders } from '../shared/signature.ts';
import { storeHashOfContext } from './app-token.ts';

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
  /** Client secrets Standard Webhooks signatures are checked with (the app's; the old one during a rotation). */
  clientSecrets: string[];
  /** The header secrets a delivery from this store (by its producer's hash) may carry. */
  headerSecretsFor: (storeHash: string | undefined) => Promise<string[]>;
}

/** Why a Standard Webhooks signature did not check out, or undefined when it did. */
function signatureProblem(webhooks: Webhook[], body: Buffer, headers: Record<string, string>): string | undefined {
  if (!headers['webhook-signature']) return 'no webhook-signature';
  const missing = ['webhook-id', 'webhook-timestamp'].filter((name) => !headers[name]);
  if (missing.length > 0) return `webhook-signature without ${missing.join(', ')}`;
  if (webhooks.length === 0) return 'a webhook-signature, but no BIGCOMMERCE_CLIENT_SECRET to check it with';
  let problem = 'no signature matches';
  for (const webhook of webhooks) {
    try {
      webhook.verify(body, headers, { jsonParse: false });
      return undefined;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      problem = error.message;
    }
  }
  return `webhook-signature: ${problem}`;
}

/** Only a request with a Standard Webhooks signature or the bridge's header secret is read at all. */
export function bigCommercePreflight(headers: RawDelivery['headers']): Preflight {
  return headers['webhook-signature'] || headers[BC_SECRET_HEADER]
    ? { ok: true }
    : { ok: false, reason: `no webhook-signature and no ${BC_SECRET_HEADER}` };
}

export function bigCommerceVerifier({
  clientSecrets,
  headerSecretsFor,
}: BigCommerceVerifierOptions): (raw: RawDelivery) => Promise<Verification<BigCommerceDelivery>> {
  const webhooks = clientSecrets.map((secret) => new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }));
  return async (raw) => {
    const headers = flatHeaders(raw.headers);
    const delivery = bigCommerceDelivery(raw.body, headers['webhook-id']);
    const given = headers[BC_SECRET_HEADER];
    const headerSecrets = await headerSecretsFor(delivery.storeHash);
    if (given !== undefined && headerSecrets.some((secret) => sameSecret(given, secret))) return { ok: true, delivery };
    const signature = signatureProblem(webhooks, raw.body, headers);
    if (signature === undefined) return { ok: true, delivery };
    const header = given === undefined ? `no ${BC_SECRET_HEADER}` : `wrong ${BC_SECRET_HEADER}`;
    return { ok: false, status: 401, reason: `${header}; ${signature}` };
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
    // A store hash as BigCommerce makes them (letters and digits): it names the store in keys an erasure forgets.
    storeHash: storeHashOfContext(asString(payload?.producer) ?? ''),
    orderId: asString(data.type) === 'order' ? idDigits(data.id) : undefined,
    hash: asString(payload?.hash) ?? undefined,
    createdAt: scalarText(payload?.created_at) ?? undefined,
    digest: createHash('sha256').update(body).digest('hex'),
    body,
    payload,
  };
}
