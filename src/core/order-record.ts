// One mapped order as the ledger keeps it, and the pure fold of an event into
// it. The fold is what makes duplicates and reordering harmless: facts are a
// union, and every detail of the order is taken from the newest event that
// knew it, newest by when it happened, not by when it arrived.
import { laneAfter, type Lane } from './lanes.ts';
import { compareDecimal, divideDecimalUp, multiplyDecimal, sumDecimal } from './decimal.ts';
import { FACTS, orderKey, type Fact, type OrderEvent } from './order-event.ts';

/**
 * 'earning': an earn was being sent; it may or may not have reached the
 * service (a crash came before its answer was recorded).
 */
export type UpstreamPoints = 'none' | 'earning' | 'earned' | 'approved' | 'cancelled';

export interface OrderSnapshot {
  orderName: string;
  customer: { name: string | null; email: string | null; mobile: string | null };
  total: { amount: string; currency: string; presentment?: { amount: string; currency: string } | undefined };
  /** Goods after discounts, before shipping and tax, in the shop's currency, when known. */
  subtotal?: string | null | undefined;
  test: boolean;
  source: string | null;
  referral?: { campaignId: number } | undefined;
  discountCodes: Array<{ code: string; amount: string }>;
  attributes: Record<string, string>;
  landingSite: string | null;
  /** The newest event that said anything about the customer's contact details said the platform withheld them. */
  protectedDataHidden?: boolean | undefined;
}

export interface RefundAmount {
  amount: string;
  /** null: the platform did not say; taken to be the currency the customer paid in. */
  currency: string | null;
}

export interface CallRecord {
  operation: 'earn' | 'approve' | 'cancel' | 'redeem' | 'conversion' | 'approveConversion' | 'rejectConversion';
  at: string;
  attempts: number;
  outcome: 'success' | 'retry' | 'failed';
  httpStatus?: number | undefined;
  message: string;
}

export type ConversionStatus = 'pending' | 'approved' | 'rejected';

/**
 * returning: the manual earn is under way (or its outcome unknown, with a
 * dead letter); a second click is refused. returned: it was applied.
 */
export interface RedemptionReturn {
  state: 'returning' | 'returned';
  points: number;
  activityId: string;
  by: string;
  reason: string;
  at: string;
  adjustmentId: string;
}

export interface RedeemCode {
  code: string;
  account: string;
  points: number;
  /** The holder record (reward-holder) and the reservation in it. */
  holder: string;
  reservation: string;
}

/** Where one redeem stands. sending: the call may have been made; a crash here leaves it in doubt. */
export type Redemption = 'none' | 'sending' | 'sent';

/** A reward code the order paid with, and where its own redeem stands (an order may carry several). */
export interface CodeRedeem extends RedeemCode {
  redemption: Redemption;
}

export interface OrderRecord {
  key: string;
  platform: string;
  shop: string;
  orderId: string;
  facts: Fact[];
  snapshot: OrderSnapshot;
  /** Per snapshot field (customer fields one by one), the sort key of the event it was taken from. */
  snapshotFrom: Record<string, string>;
  /** Refunds seen, by refund id, as positive amounts. */
  refunds: Record<string, RefundAmount>;
  firstSeenAt: string;
  updatedAt: string;
  /** Where the lifecycle last said the points belong, for people to read. */
  target: { state: string; reason?: string } | null;
  /** What the loyalty service is known to hold for this order. */
  upstream: {
    points: UpstreamPoints;
    earnedAt: string | null;
    /**
     * The activity the order earns under, fixed with its first earn's intent: a later edit of the total does not
     * move its points. Dropped again only with an intent whose call certainly never took effect (undoIntent).
     */
    earnActivityId?: string | undefined;
    /**
     * sending: as for earning, the call may have been made. void: it was in
     * doubt, and a reject answered "conversion does not exist": it never landed.
     */
    conversion: 'none' | 'sending' | 'sent' | 'void';
    /** The campaign the conversion was added under, fixed with the add's intent: confirm names the same one. */
    conversionCampaignId?: number | undefined;
    conversionSentAt?: string | null | undefined;
    /** Where conversion/confirm has moved the conversion. */
    conversionStatus?: ConversionStatus | undefined;
    /**
     * The order's own redeem, of a code of the merchant's (REDEEM_CODE_PATTERN), for the order's customer on its
     * account. sending: the call may have been made; a crash here leaves it in doubt.
     */
    redemption: Redemption;
    /** Points the order's own redeem took, once it did. */
    redeemedPoints?: number | undefined;
    /** The redeemed points of a cancelled order, given back by a person's manual earn. */
    redemptionReturn?: RedemptionReturn | null | undefined;
    /** The lp_orderid this order was registered under before its first call, once it was. */
    lpOrderId?: string | null | undefined;
    /** The loyalty account of the order's first call of any kind: every later call goes there (accounts.ts). */
    account?: string | undefined;
    /**
     * The bridge's reward codes the order paid with, in the order they were taken, each with the reservation it
     * spends (core/storefront/reservations.ts) and its own redeem: for its points, for the code's customer, on the
     * account that issued it, which is not the order's account (upstream.account is never set by it). The customer
     * is read from the holder at the call, so that no contact is copied here. Format 4; format 3 kept one code as
     * `redeemCode`, its redeem's state in `redemption` (upgrade-records.ts).
     */
    redeemCodes?: CodeRedeem[] | undefined;
  };
  /**
   * Retry state of the next call, and the calls held by a dead letter (by
   * operation). A held call holds only itself: a failed redeem must not stop
   * a cancellation.
   */
  work: {
    attempts: number;
    firstFailureAt: string | null;
    retryAt: string | null;
    lastError: string | null;
    /** Failures in words the service does not document, for the next call: retried only so many times. */
    unknownFailures?: number | undefined;
    held: Partial<Record<CallRecord['operation'], string>>;
    /**
     * What the order waits for before its next call: 'account' while its shop
     * is linked to none (folded, nothing sent), 'pause:<account>' while its
     * account's credentials are refused. Whatever ends the wait makes it due.
     */
    waitingFor?: string | undefined;
  };
  calls: CallRecord[];
  /** The most recent delivery keys folded in, newest last. */
  deliveries: string[];
  /** When the customer's personal data was erased from this order: later events add none back. */
  erasedAt?: string | null | undefined;
  /**
   * Kept by the store. version counts every write; foldVersion counts folds,
   * so a worker that saves its progress learns that new facts arrived while
   * it was calling. dueAt: when the worker should look at the order next
   * (null: nothing to do until an event comes).
   */
  version: number;
  foldVersion: number;
  dueAt: string | null;
  /** The lane of the work pending on the order (lanes.ts); kept by the store with dueAt. */
  lane?: Lane | undefined;
}

/** The part of a record that folding events writes; the worker never writes it. */
export const FOLD_FIELDS = [
  'facts',
  'snapshot',
  'snapshotFrom',
  'refunds',
  'firstSeenAt',
  'deliveries',
  'erasedAt',
] as const satisfies ReadonlyArray<keyof OrderRecord>;
/** The part the worker writes; folding never writes it. */
export const PROGRESS_FIELDS = ['target', 'upstream', 'work', 'calls'] as const satisfies ReadonlyArray<
  keyof OrderRecord
>;

/**
 * What a shop's own page reads of a record as it is stored (src/services/merchant/views.ts copies these, an absent
 * one as null). Never listed, views reshape them by hand: the snapshot (the customer's contact, shown in part),
 * work and calls (their text may name another store) and upstream (which account is the operator's to read).
 */
export const SHOP_ORDER_FIELDS = [
  'key',
  'orderId',
  'facts',
  'firstSeenAt',
  'updatedAt',
  'erasedAt',
] as const satisfies ReadonlyArray<Exclude<keyof OrderRecord, 'snapshot' | 'upstream' | 'work' | 'calls'>>;

/** What PostgreSQL keeps in columns of their own beside the two parts; lowdb keeps the record whole. */
export const COLUMN_FIELDS = [
  'key',
  'platform',
  'shop',
  'orderId',
  'updatedAt',
  'version',
  'foldVersion',
  'dueAt',
  'lane',
] as const satisfies ReadonlyArray<keyof OrderRecord>;

/**
 * PostgreSQL rebuilds a record from the three lists alone, so a key of
 * OrderRecord in none of them would vanish there and persist on lowdb: such
 * a key fails to compile here ("property is missing"), until it is listed.
 */
type StoredField = (typeof FOLD_FIELDS)[number] | (typeof PROGRESS_FIELDS)[number] | (typeof COLUMN_FIELDS)[number];
const everyFieldStored: Record<Exclude<keyof OrderRecord, StoredField>, never> = {};
void everyFieldStored;

export type FoldPart = Pick<OrderRecord, (typeof FOLD_FIELDS)[number]>;
export type ProgressPart = Pick<OrderRecord, (typeof PROGRESS_FIELDS)[number]>;

export const foldPart = (record: OrderRecord): FoldPart =>
  Object.fromEntries(FOLD_FIELDS.map((field) => [field, record[field] ?? null])) as FoldPart;
export const progressPart = (record: OrderRecord): ProgressPart =>
  Object.fromEntries(PROGRESS_FIELDS.map((field) => [field, record[field]])) as ProgressPart;

const MAX_DELIVERIES_KEPT = 20;
const MAX_CALLS_KEPT = 50;

/** Sorts events by when they happened; the delivery id breaks ties so any arrival order gives one answer. */
export const eventSortKey = (event: Pick<OrderEvent, 'occurredAt' | 'deliveryId'>): string =>
  `${new Date(event.occurredAt).toISOString()}|${event.deliveryId}`;

export function newOrderRecord(event: OrderEvent, now: string): OrderRecord {
  return {
    key: orderKey(event),
    platform: event.platform,
    shop: event.shop,
    orderId: event.orderId,
    facts: [],
    snapshot: {
      orderName: event.orderName,
      customer: { name: null, email: null, mobile: null },
      total: event.total ?? { amount: '0', currency: '' },
      test: false,
      source: null,
      discountCodes: [],
      attributes: {},
      landingSite: null,
    },
    snapshotFrom: {},
    refunds: {},
    target: null,
    firstSeenAt: now,
    updatedAt: now,
    upstream: { points: 'none', earnedAt: null, conversion: 'none', redemption: 'none' },
    work: { attempts: 0, firstFailureAt: null, retryAt: null, lastError: null, held: {} },
    calls: [],
    deliveries: [],
    erasedAt: null,
    version: 0,
    foldVersion: 0,
    dueAt: now,
  };
}

/** Folds one event into the record, in place; `cause` is the lane of the work it makes (a webhook's is live). */
export function applyEvent(
  record: OrderRecord,
  event: OrderEvent,
  deliveryKey: string,
  now: string,
  cause: Lane = 'live',
): void {
  const at = eventSortKey(event);
  /** Whether this event is at least as new as the one a detail was last taken from. */
  const newest = (detail: string) => (record.snapshotFrom[detail] ?? '') <= at;
  const take = <K extends keyof OrderSnapshot>(field: K, value: OrderSnapshot[K], known: boolean) => {
    if (!known || !newest(field)) return;
    record.snapshot[field] = value;
    record.snapshotFrom[field] = at;
  };
  // Each customer field on its own: a refund event that knows no e-mail must not erase it.
  // Once the customer was erased from this order, nothing personal comes back.
  const customer = { ...record.snapshot.customer };
  for (const field of ['name', 'email', 'mobile'] as const) {
    const value = record.erasedAt ? null : event.customer[field];
    if (value === null || !newest(`customer.${field}`)) continue;
    customer[field] = value;
    record.snapshotFrom[`customer.${field}`] = at;
  }
  record.snapshot.customer = customer;
  take('orderName', event.orderName, event.orderName !== '');
  if (event.total !== null) take('total', event.total, true);
  take('subtotal', event.subtotal, event.subtotal !== null && event.subtotal !== undefined);
  take('source', event.source, event.source !== null);
  take('referral', event.referral, event.referral !== undefined);
  // An empty list replaces the codes only where the event says it lists them all (a code removed from the order).
  take('discountCodes', event.discountCodes, event.discountCodes.length > 0 || event.discountCodesComplete === true);
  take('attributes', event.attributes, Object.keys(event.attributes).length > 0);
  take('landingSite', event.landingSite, event.landingSite !== null);
  // Withheld contact details are a fact about the newest event that knew the customer.
  take(
    'protectedDataHidden',
    event.protectedDataHidden ?? false,
    event.customer.email !== null || event.customer.mobile !== null || event.protectedDataHidden === true,
  );
  // A test order stays a test order, whatever arrives later.
  record.snapshot.test = record.snapshot.test || event.test;

  // Facts: the union so far, this event's, and what the refunds add up to against the (maybe just learnt) total.
  for (const refund of event.refunds)
    record.refunds[refund.id] = { amount: refund.amount.replace(/^-/, ''), currency: refund.currency ?? null };
  const facts = new Set<Fact>([...record.facts, ...event.facts, ...refundFacts(record)]);
  record.facts = FACTS.filter((fact) => facts.has(fact));

  if (!record.deliveries.includes(deliveryKey)) {
    record.deliveries.push(deliveryKey);
    if (record.deliveries.length > MAX_DELIVERIES_KEPT)
      record.deliveries.splice(0, record.deliveries.length - MAX_DELIVERIES_KEPT);
  }
  record.updatedAt = now;
  record.foldVersion++;
  record.lane = laneAfter(record, cause);
  record.dueAt = now;
}

export function recordCall(record: OrderRecord, call: CallRecord): void {
  record.calls.push(call);
  if (record.calls.length > MAX_CALLS_KEPT) record.calls.splice(0, record.calls.length - MAX_CALLS_KEPT);
}

/**
 * Refunds as facts: all of them together against the order's total tell a
 * full refund from a partial one, whichever arrived first. Without a known
 * total, a refund is at least a partial one.
 */
function refundFacts(record: OrderRecord): Fact[] {
  if (Object.keys(record.refunds).length === 0) return [];
  const refunded = refundedInShopMoney(record);
  if (compareDecimal(refunded, '0') <= 0) return [];
  const total = record.snapshotFrom.total === undefined ? undefined : record.snapshot.total.amount;
  if (total !== undefined && compareDecimal(total, '0') > 0 && compareDecimal(refunded, total) >= 0)
    return ['partiallyRefunded', 'fullyRefunded'];
  return ['partiallyRefunded'];
}

/**
 * What the refunds add up to in the shop's currency. A refund in the
 * currency the customer paid in (the webhooks' refund transactions) is
 * converted at the order's own rate: shop total / presentment total. So the
 * webhook and the Admin API, which gives refunds in shop money, agree.
 */
export function refundedInShopMoney(record: Pick<OrderRecord, 'refunds' | 'snapshot'>): string {
  const { currency, presentment } = record.snapshot.total;
  const inShop: string[] = [];
  for (const refund of Object.values(record.refunds)) {
    const paidIn = refund.currency ?? presentment?.currency ?? currency;
    if (
      presentment &&
      paidIn === presentment.currency &&
      paidIn !== currency &&
      compareDecimal(presentment.amount, '0') > 0
    ) {
      // Rounded up: a refund of all of it must not fall a hair short of the total.
      inShop.push(divideDecimalUp(multiplyDecimal(refund.amount, record.snapshot.total.amount), presentment.amount));
    } else {
      inShop.push(refund.amount);
    }
  }
  return sumDecimal(inShop);
}
