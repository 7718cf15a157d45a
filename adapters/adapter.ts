// The shape every platform adapter has. An adapter is the only code that knows
// a platform: it verifies a raw delivery, turns it into OrderEvents, and (where
// the platform has an API) fetches orders for resync. It never calls the
// loyalty client.
import type { OrderEvent } from '../src/core/order-event.ts';

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

export type Translation =
  | { kind: 'events'; events: OrderEvent[] }
  /** Authentic and fine, but nothing for us (another topic): acknowledged, not kept. */
  | { kind: 'ignored'; reason: string }
  /** Authentic, kept for the record, no order change (orders/edited without API access). */
  | { kind: 'recorded'; reason: string }
  /** Authentic but unusable (bad JSON, no order id): acknowledged and dead-lettered with the reason. */
  | { kind: 'unusable'; reason: string }
  /** The app was removed from the shop: stop processing its deliveries. */
  | { kind: 'uninstalled'; shop: string };

export interface DeliveryInfo {
  /** Dedupe key, unique per delivery across platforms. */
  key: string;
  /** Other keys that also identify this delivery (a payload hash): any of them seen makes it a duplicate. */
  aliases?: string[];
  topic: string;
  shop: string;
}

/** What a dead letter keeps of an authentic delivery, enough to read it again once the cause is fixed. */
export interface StoredDelivery {
  key: string;
  topic: string;
  shop: string;
  body: Buffer;
  receivedAt: Date;
}

export interface PlatformAdapter<Delivery> {
  readonly platform: string;
  verify(raw: RawDelivery): Promise<Verification<Delivery>>;
  describe(delivery: Delivery): DeliveryInfo;
  toEvents(delivery: Delivery): Promise<Translation>;
  /** A delivery verified earlier and kept as a dead letter, as it was. */
  restore(stored: StoredDelivery): Delivery;
}
