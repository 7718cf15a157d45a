// The shape every platform adapter has. An adapter is the only code that knows
// a platform. Before the answer it only verifies a raw delivery and describes
// it (pure, no I/O); after the answer, in the core, it translates the stored
// delivery into OrderEvents, reading the platform's API where it must. It
// never calls the loyalty client.
import { bodyDigest, storedBody, type StoredDelivery } from './delivery.ts';
import type { OrderEvent } from './order-event.ts';
import type { PrivacyRequest } from './privacy-request.ts';
import type { CustomerMatch } from './store/ledger-store.ts';
import { BridgeError } from '../errors.ts';

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

/**
 * Whether a request is worth reading, from its headers alone, before a byte of
 * its body is read: one without its platform's signature header is refused at
 * once (401), so an unauthenticated sender costs no memory and no time.
 */
export type Preflight =
  | {
      ok: true;
      /** A smaller limit than the route's, for a request that may only be small (a platform's ping). */ maxBodyBytes?: number;
    }
  | { ok: false; reason: string };

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
  /**
   * Authentic bytes under headers they were not sent with (a body that is not
   * its topic's, or names another shop than the header): acknowledged, since
   * any other answer only makes a sender try again, but not kept, and logged
   * as a warning with the reason.
   */
  mislabelled?: string | undefined;
  /**
   * A destructive body that cannot confirm itself (an uninstall naming no
   * shop): the platform has to be asked, which needs access to the shop. Kept
   * only where the bridge holds that access; otherwise acknowledged and
   * ignored with this reason, so that one captured body sent under invented
   * shops' names leaves nothing behind.
   */
  unconfirmed?: string | undefined;
  /**
   * It came through a subscription the app's own configuration declares
   * (app-specific subscriptions), as shown by its signed body
   * ('body') or only by an unsigned header ('name').
   */
  viaAppConfiguration?: 'body' | 'name' | undefined;
}

/**
 * When a destructive body (an uninstall, an erasure) may act again after it
 * acted once. Platforms send the same bytes again for a new install's events
 * (an uninstall or a shop's erasure may carry no time), so "once" is per
 * install where it must be:
 *   per-install     again once the shop was installed after the last act
 *                   (the bridge got a new token, or an order sent after the
 *                   uninstall arrived: neither comes from a captured body)
 *   per-uninstall   again once the shop was uninstalled after the last act
 *   ever            never again
 */
export type ActsOnce = 'per-install' | 'per-uninstall' | 'ever';

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
  /** A customer's or a shop's privacy request (a platform's compliance topics). */
  | { kind: 'privacy'; request: PrivacyRequest };

/**
 * The platform did not answer (down, slow, throttling): the translation is
 * tried again later, with backoff, from the stored delivery.
 */
export class PlatformUnavailableError extends BridgeError<'platform_unavailable'> {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs?: number) {
    super('platform_unavailable', message);
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
  /** Order ids unique across all the platform's shops: an order belongs to the first shop it came from. */
  readonly orderIdsAreGlobal: boolean;
  /**
   * Topics whose bodies act once, and what lets them act again; checked before translating, so a replay costs the
   * platform no call. None: `{}`.
   */
  readonly actsOnce: Readonly<Record<string, ActsOnce>>;
  preflight(headers: RawDelivery['headers']): Preflight;
  verify(raw: RawDelivery): Promise<Verification<Delivery>>;
  describe(delivery: Delivery): DeliveryInfo;
  /** After the answer: the stored delivery as events, reading the platform where the delivery alone cannot say. */
  translate(stored: StoredDelivery): Promise<Translation>;
  /**
   * What of a verified body the ledger keeps: the fields translate reads, and
   * nothing else (no street address, no buyer's IP). null: the body is kept
   * as it came (for bodies that carry an id alone).
   */
  readonly keptBody: ((topic: string, body: Buffer) => Buffer) | null;
  redact(stored: StoredDelivery, match: CustomerMatch): Redaction;
  /**
   * What every dedupe key (describe's key and aliases) that names a shop
   * starts with: a shop's erasure forgets those keys, so that nothing but
   * its erasure record names it. null: the platform's keys name no shop.
   */
  readonly shopKeyPrefix: ((shop: string) => string) | null;
}

/**
 * The dedupe keys of a platform whose deliveries name their shop: <platform>:<shop>:<delivery id>, with the shop
 * percent-encoded, so that no shop's keys start as another's ("acme" and "acme:x"): a delivery of one shop is
 * never a duplicate of another's (store "acme", id "x:1" and store "acme:x", id "1"), and a shop's erasure
 * (shopKeyPrefix, `prefix` here) forgets its own keys alone.
 */
export function shopDeliveryKeys(platform: string): {
  key(shop: string, deliveryId: string): string;
  prefix(shop: string): string;
} {
  const prefix = (shop: string) => `${platform}:${encodeURIComponent(shop)}:`;
  return { key: (shop, deliveryId) => `${prefix(shop)}${deliveryId}`, prefix };
}

/**
 * What is kept of a verified delivery, to be translated after the answer.
 * When it was sent comes from the platform's headers or body, which an
 * attacker holding a captured delivery may change where they are not signed:
 * never later than the moment it arrived, so no delivery can claim to come
 * after one that really came later (an uninstall, a reinstall).
 */
export function storedDelivery(
  platform: string,
  info: DeliveryInfo,
  body: Buffer,
  receivedAt: Date,
  kept?: Buffer,
): StoredDelivery {
  const said = info.sentAt === undefined ? Number.NaN : Date.parse(info.sentAt);
  const sentAt =
    Number.isNaN(said) || said > receivedAt.getTime() ? receivedAt.toISOString() : new Date(said).toISOString();
  const stored = { platform, topic: info.topic, shop: info.shop, sentAt, headers: info.keep ?? {} };
  // What is kept of the body (keptBody), with the digest of the body as it came.
  return kept && !kept.equals(body)
    ? { ...stored, ...storedBody(kept), digest: bodyDigest(platform, info.topic, body) }
    : { ...stored, ...storedBody(body) };
}
