// A verified delivery as the ledger keeps it between the answer and its
// translation: the bytes as received and the few headers its adapter needs to
// read them again. This is the boundary between the webhook route (which
// only receives) and the core (which translates, folds and calls), so
// nothing here waits on another server.
import { createHash } from 'node:crypto';
import type { Lane } from './lanes.ts';
import type { OrderEvent } from './order-event.ts';

export interface StoredDelivery {
  platform: string;
  topic: string;
  shop: string;
  /** When the platform says it sent the event (a header's timestamp), else when it arrived. */
  sentAt: string;
  /** The headers translation needs, lower-case names; never a secret. */
  headers: Record<string, string>;
  /** The body: as text when it is valid UTF-8 (nearly always), else base64. Only the fields translation reads (adapters' keptBody). */
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  /**
   * bodyDigest of the body as it came, when what is kept is less: a
   * destructive body acted on is known again by it (intake's acted-once).
   * Absent on deliveries kept whole (earlier releases): their body's digest.
   */
  digest?: string;
}

/** A body's identity: its platform, topic and exact bytes (which name the shop). */
export function bodyDigest(platform: string, topic: string, body: Buffer): string {
  return createHash('sha256').update(`${platform}\n${topic}\n`).update(body).digest('base64url');
}

/** The digest of a kept delivery's body as it came. */
export const digestOf = (delivery: StoredDelivery): string =>
  delivery.digest ?? bodyDigest(delivery.platform, delivery.topic, deliveryBody(delivery));

/** Retry state of an inbox entry whose translation waits on a platform that did not answer. */
export interface EntryRetry {
  attempts: number;
  firstFailureAt: string;
  retryAt: string;
  lastError: string;
}

/**
 * What a customer's erasure reached of an inbox entry (store/entry-erasure.ts). Intake may have read the entry
 * before the erasure rewrote it: its step erases these orders as it folds them, as the erasure would have had
 * they been folded already. Order keys only: nothing of the customer is kept to tell them again.
 */
export interface EntryErasure {
  at: string;
  /** The orders whose events were the customer's; absent: every order the entry folds into but `except`. */
  orders?: string[];
  /** Orders the erasure left alone (another loyalty account's: CustomerMatch.exceptOrderKeys). */
  except?: string[];
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
  /** The customers' erasures that reached it while it waited, oldest first. */
  erasures?: EntryErasure[] | undefined;
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
