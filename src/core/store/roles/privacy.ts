// The privacy role: a customer's data exported or erased, a shop's erased, kept deliveries trimmed.
import type { InboxEntry, StoredDelivery } from '../../delivery.ts';
import type { OrderRecord } from '../../order-record.ts';
import type { DeadLetter } from './dead-letters.ts';
import type { Adjustment } from './records.ts';

/** Who a privacy request is about. Any order, delivery or record that matches one of these is the customer's. */
export interface CustomerMatch {
  platform?: string | undefined;
  shop?: string | undefined;
  emails: string[];
  phones: string[];
  /** Platform order ids named by the request (a platform's list of orders to redact). */
  orderIds: string[];
  /**
   * The platform's own ids of the customer (with platform and shop): what the bridge keeps under the platform's id
   * (a reward code's reservation) is theirs even when their contact changed since.
   */
  customerIds?: readonly string[] | undefined;
  /** Orders never matched, whoever's they look like: another loyalty account's, in a request limited to one. */
  exceptOrderKeys?: readonly string[] | undefined;
}

/** A delivery with only the fields translation reads; undefined when it has nothing more (or cannot be read). */
export type DeliveryTrimmer = (delivery: StoredDelivery) => StoredDelivery | undefined;

/** Reads a raw delivery for a privacy request: whether it is about the customer, and the delivery with their data removed. */
export type DeliveryRedactor = (delivery: StoredDelivery) => { about: boolean; redacted: StoredDelivery };

export interface CustomerData {
  orders: OrderRecord[];
  deadLetters: DeadLetter[];
  inbox: InboxEntry[];
  adjustments: Adjustment[];
  dataRequests: unknown[];
  /** What the bridge keeps of the customer in memory alone, by what keeps it (privacy.ts, KeptInMemory). */
  inMemory?: Record<string, unknown>;
}

export interface ErasureReport {
  orders: number;
  deadLetters: number;
  inbox: number;
  /** Records of every kind (adjustments, data requests, a shop's own records). */
  records: number;
  /** Of the records, manual adjustments: a shop's request reaches those made for that shop alone. */
  adjustments: number;
}

export interface PrivacyRole {
  exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData>;
  /** Erases the customer's personal data from everything the store keeps, copies and backups included; orders keep their facts and points. */
  eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport>;
  /** Everything of one shop; `keyPrefix`: the dedupe keys that name it (PlatformAdapter.shopKeyPrefix), forgotten too. */
  eraseShop(platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport>;
  /**
   * Rewrites the deliveries kept in the inbox and in dead letters through
   * `trim` (undefined: unchanged), backups included: for bodies kept whole by
   * releases before the ledger kept only what translation reads.
   */
  trimDeliveries(trim: DeliveryTrimmer): Promise<{ inbox: number; deadLetters: number }>;
}
