// The shape every platform adapter has. An adapter is the only code that knows
// a platform. Before the answer it only verifies a raw delivery and describes
// it (pure, no I/O); after the answer, in the core, it translates the stored
// delivery into OrderEvents, reading the platform's API where it must. It
// never calls the loyalty client.
import { storedBody, type StoredDelivery } from '../src/core/delivery.ts';
import type { OrderEvent } from '../src/core/order-event.ts';
import type { PrivacyRequest } from '../src/core/privacy-request.ts';
import type { CustomerMatch } from '../src/core/store/ledger-store.ts';

export interface RawDelivery {
  /** The exact bytes received. */
  body: Buffer;
  /** Header names in lower case, as Node gives them. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  receivedAt: Date;
}

export type Verification<Delivery> =
  | { ok: true; delivery: Delivery }
  /** 401: not authentic. 400: authentic-looking but missing what every delivery must carry. Nothing is stored. */
  | { ok: false; status: 400 | 401; reason: string };

export interface DeliveryInfo {
  /** Dedupe key, unique per delivery across platforms. */
  key: string;
  /** Other keys that also identify this delivery: any of them seen makes it a duplicate. */
  aliases?: string[];
  topic: string;
  shop: string;
  /** When the platform says it sent the delivery (ISO), when it says so. */
  sentAt?: string | undefined;
  /** The headers translation needs again, lower-case names. */
  keep?: Record<string, string>;
  /** Nothing for us, decided from the headers alone (another topic, a ping): acknowledged, not kept. */
  ignore?: string | undefined;
}

export type Translation =
  | { kind: 'events'; events: OrderEvent[] }
  /** Authentic and fine, but nothing for us. */
  | { kind: 'ignored'; reason: string }
  /** Authentic, kept for the record, no order change (orders/edited without API access). */
  | { kind: 'recorded'; reason: string }
  /** Authentic but unusable (bad JSON, no order id, an order the platform says does not exist): a dead letter with the reason. */
  | { kind: 'unusable'; reason: string }
  /** The app was removed from the shop. */
  | { kind: 'uninstalled' }
  /** A customer's or a shop's privacy request (Shopify's compliance topics). */
  | { kind: 'privacy'; request: PrivacyRequest };

/**
 * The platform did not answer (down, slow, throttling): the translation is
 * tried again later, with backoff, from the stored delivery.
 */
export class PlatformUnavailableError extends Error {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'PlatformUnavailableError';
    this.retryAfterMs = retryAfterMs;
  }
}

/** A delivery read for a privacy request: whether it is about the customer, and the delivery without their personal data. */
export interface Redaction {
  about: boolean;
  redacted: StoredDelivery;
}

export interface PlatformAdapter<Delivery> {
  readonly platform: string;
  verify(raw: RawDelivery): Promise<Verification<Delivery>>;
  describe(delivery: Delivery): DeliveryInfo;
  /** After the answer: the stored delivery as events, reading the platform where the delivery alone cannot say. */
  translate(stored: StoredDelivery): Promise<Translation>;
  redact(stored: StoredDelivery, match: CustomerMatch): Redaction;
}

/** What is kept of a verified delivery, to be translated after the answer. */
export function storedDelivery(platform: string, info: DeliveryInfo, body: Buffer, receivedAt: Date): StoredDelivery {
  return { platform, topic: info.topic, shop: info.shop, sentAt: info.sentAt ?? receivedAt.toISOString(), headers: info.keep ?? {}, ...storedBody(body) };
}
