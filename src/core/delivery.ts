// A verified delivery as the ledger keeps it between the answer and its
// translation: the bytes as received and the few headers its adapter needs to
// read them again. This is the boundary between the webhook route (which
// only receives) and the core (which translates, folds and calls), so
// nothing here waits on another server.
import type { Lane } from './lanes.ts';
import type { OrderEvent } from './order-event.ts';

export interface StoredDelivery {
  platform: string;
  topic: string;
  shop: string;
  /** When the platform says it sent the event (Shopify's triggered-at), else when it arrived. */
  sentAt: string;
  /** The headers translation needs, lower-case names; never a secret. */
  headers: Record<string, string>;
  /** The exact body: as text when it is valid UTF-8 (nearly always), else base64. */
  body: string;
  bodyEncoding: 'utf8' | 'base64';
}

/** Retry state of an inbox entry whose translation waits on a platform that did not answer. */
export interface EntryRetry {
  attempts: number;
  firstFailureAt: string;
  retryAt: string;
  lastError: string;
}

/**
 * One acknowledged delivery waiting to be translated and folded into its
 * orders: a platform's raw delivery, or order events already in neutral form
 * (resync and reconciliation read them from the platform's API).
 */
export interface InboxEntry {
  /** The dedupe key it was accepted under. */
  key: string;
  /** Other keys of the same delivery, remembered for dedupe as well. */
  aliases: string[];
  receivedAt: string;
  delivery?: StoredDelivery;
  events?: OrderEvent[];
  retry: EntryRetry | null;
  /** The lane of the work it causes: live for a delivery, backfill for a resync's or reconciliation's events (absent: live). */
  lane?: Lane | undefined;
}

export function deliveryBody(delivery: Pick<StoredDelivery, 'body' | 'bodyEncoding'>): Buffer {
  return Buffer.from(delivery.body, delivery.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** Keeps a body as text when it is valid UTF-8, so that it stays readable (and erasable) in the ledger. */
export function storedBody(body: Buffer): Pick<StoredDelivery, 'body' | 'bodyEncoding'> {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body)
    ? { body: text, bodyEncoding: 'utf8' }
    : { body: body.toString('base64'), bodyEncoding: 'base64' };
}
