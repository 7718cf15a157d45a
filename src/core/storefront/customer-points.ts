// What a customer sees of their points in the store: the balance and recent history, as the service's
// `transaction` answer gives them or, where it does not, as the bridge's own ledger counts them. The figures
// only: who the customer is, and when to read, are the reader's (storefront-reader.ts).
import type { CustomerContact } from '../platform-module.ts';
import { isPlainRecord } from '../../plain-record.ts';
import { internationalPhone } from '../store/customer-data.ts';
import { isTakeBack, TAKEN_BACK_WORDS, type TakeBack } from './take-backs.ts';

/** Who the customer is at the service: the identifier the account's earns and redeems key them by. */
export type ServiceCustomer = { email: string } | { mobile: string };

/**
 * As the worker's calls pick it (src/core/worker/calls.ts): an earn sends both lp_email and lp_mobile and the
 * service keys the user by the e-mail; a redeem sends the e-mail where the order has one, else the phone. So
 * the same here: the e-mail, else the phone; neither, no one to read.
 */
export function serviceCustomer(contact: CustomerContact): ServiceCustomer | undefined {
  if (contact.email) return { email: contact.email };
  // In E.164 only, as the ledger finds a phone's orders: the service pairs numbers by their digits, so "442079460958"
  // is "+442079460958" there, a customer the ledger would not find by it.
  const phone = contact.phone && internationalPhone(contact.phone);
  if (phone) return { mobile: phone };
  return undefined;
}

/** The customer as the bridge's calls name them, for the drop of their kept balance (its one contact, no more). */
export const callContact = (customer: ServiceCustomer): { email: string } | { mobile: string } =>
  'email' in customer ? { email: customer.email } : { mobile: customer.mobile };

/**
 * One key per customer at the service, for caches: e-mails as the service compares them (any case), phones in
 * E.164 (the ledger's own normaliser, customer-data.ts), so that "+1 212-555-0142" and "+12125550142" are one
 * customer; a number without its country code stays as written (it could be anyone's, and matches no other).
 */
export const customerKey = (customer: ServiceCustomer): string =>
  'email' in customer
    ? `email:${customer.email.trim().toLowerCase()}`
    : `mobile:${internationalPhone(customer.mobile) ?? customer.mobile.trim()}`;

export interface PointsBalance {
  /** approved − redeemed − held. */
  available: number;
  approved: number;
  redeemed: number;
  /** Held by the customer's open reservations (the next step of the storefront); 0 until then. */
  held: number;
  pending: number;
  /** When the earliest pending points become available, where the account approves after a number of days. */
  pendingUntil: string | null;
  source: 'service' | 'ledger';
  /**
   * Counted from the bridge's own ledger: earns and redeems made elsewhere are not in it. False for a customer the
   * service said it has never seen, with no order in the ledger: nothing elsewhere exists, and 0 is their balance.
   */
  missingElsewhere: boolean;
}

export interface HistoryLine {
  at: string;
  /** Positive for points earned, negative for points spent. */
  points: number;
  words: string;
}

export interface CustomerPoints {
  balance: PointsBalance;
  history: HistoryLine[];
}

/** At most this many lines of history are shown, the newest first. */
export const HISTORY_LINES = 20;

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const record = (value: unknown): Record<string, unknown> | undefined => (isPlainRecord(value) ? value : undefined);
/** The service's times: "2026-05-01T10:00:00" in UTC, without a zone. */
const serviceTime = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined;
  const at = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
};

/** "Order #1001" as the worker describes an earn: the order's name alone. */
const orderOf = (description: unknown) =>
  typeof description === 'string' ? /^Order (.+)$/.exec(description)?.[1] : undefined;

const earnedWords = (order: string | undefined, state: string) =>
  `Earned${order ? ` on order ${order}` : ''}${state === 'approved' ? '' : `, ${state}`}`;

/**
 * The fields of `transaction` (lp_type=all) the bridge reads; the service documents none of them, so each is
 * optional and an answer without `balance` falls back to the ledger:
 * - `balance.approved`, `balance.redeemed`, `balance.pending` (numbers of points), `balance.available` unread
 *   (the bridge takes held points off itself);
 * - `earned[]`: `points`, `status` (pending, approved, cancelled), `createdAt`, `description`;
 * - `redeemed[]`: `points`, `createdAt`.
 * docs/loyalty-client.md, "What the storefront reads of transaction".
 */
export function pointsFromService(
  data: Record<string, unknown>,
  held: number,
  takeBacks: readonly TakeBack[] = [],
): CustomerPoints | undefined {
  const figures = record(data.balance);
  if (!figures || !isCount(figures.approved) || !isCount(figures.redeemed)) return undefined;
  const pending = isCount(figures.pending) ? figures.pending : 0;
  const history: HistoryLine[] = [];
  for (const entry of Array.isArray(data.earned) ? data.earned : []) {
    const earning = record(entry);
    const at = serviceTime(earning?.createdAt);
    if (!earning || !at || !isCount(earning.points)) continue;
    const state = typeof earning.status === 'string' ? earning.status : 'pending';
    const order = orderOf(earning.description);
    history.push({
      at,
      points: state === 'cancelled' ? 0 : earning.points,
      words: state === 'cancelled' ? `Cancelled${order ? `: order ${order}` : ''}` : earnedWords(order, state),
    });
  }
  // A take-back by the store is a redeem to the service too: named as the bridge sent it, not as a reward.
  const left = [...takeBacks];
  for (const entry of Array.isArray(data.redeemed) ? data.redeemed : []) {
    const redemption = record(entry);
    const at = serviceTime(redemption?.createdAt);
    if (!redemption || !at || !isCount(redemption.points)) continue;
    const words = isTakeBack(left, { at, points: redemption.points }) ? TAKEN_BACK_WORDS : 'Spent on a reward';
    history.push({ at, points: -redemption.points, words });
  }
  return {
    balance: {
      available: figures.approved - figures.redeemed - held,
      approved: figures.approved,
      redeemed: figures.redeemed,
      held,
      pending,
      pendingUntil: null,
      source: 'service',
      missingElsewhere: false,
    },
    history: newestFirst(history),
  };
}

/** An order of the customer's on the account, as the ledger keeps it. */
export interface LedgerOrder {
  orderName: string;
  state: 'none' | 'pending' | 'approved' | 'cancelled';
  /** What its activity gives (activity-points.ts); null where the activity's points are not declared. */
  earned: number | null;
  redeemed: number | null;
  earnedAt: string | null;
  updatedAt: string;
}

/**
 * The balance from the bridge's own ledger: the points each order's activity gives, approved or pending, less
 * those redeemed on its orders. `pendingDays` (the account's PENDING_DAYS): when pending points become available,
 * where they wait a number of days; 0 (on fulfilment), unknown.
 */
export function pointsFromLedger(
  orders: readonly LedgerOrder[],
  held: number,
  pendingDays: number,
  { neverSeen = false }: { neverSeen?: boolean } = {},
): CustomerPoints {
  let approved = 0;
  let pending = 0;
  let redeemed = 0;
  let pendingSince: string | undefined;
  const history: HistoryLine[] = [];
  for (const order of orders) {
    const name = order.orderName || undefined;
    if (order.state === 'approved' && order.earned !== null) approved += order.earned;
    if (order.state === 'pending' && order.earned !== null) {
      pending += order.earned;
      if (order.earnedAt && (pendingSince === undefined || order.earnedAt < pendingSince))
        pendingSince = order.earnedAt;
    }
    if (order.redeemed) {
      redeemed += order.redeemed;
      history.push({ at: order.updatedAt, points: -order.redeemed, words: `Spent on order ${name ?? ''}`.trim() });
    }
    if (order.state !== 'none' && order.earned !== null)
      history.push({
        at: order.earnedAt ?? order.updatedAt,
        points: order.state === 'cancelled' ? 0 : order.earned,
        words: order.state === 'cancelled' ? `Cancelled: order ${name ?? ''}`.trim() : earnedWords(name, order.state),
      });
  }
  const pendingUntil =
    pendingSince !== undefined && pendingDays > 0
      ? new Date(Date.parse(pendingSince) + pendingDays * 86_400_000).toISOString()
      : null;
  return {
    balance: {
      available: approved - redeemed - held,
      approved,
      redeemed,
      held,
      pending,
      pendingUntil,
      source: 'ledger',
      // The service never saw them and the bridge sent nothing for them: there is nothing elsewhere to miss. With
      // orders in the ledger it is kept: the service not knowing a customer the bridge earned for is not a
      // state to vouch for.
      missingElsewhere: !(neverSeen && orders.length === 0),
    },
    history: newestFirst(history),
  };
}

const newestFirst = (lines: HistoryLine[]) => lines.sort((a, b) => b.at.localeCompare(a.at)).slice(0, HISTORY_LINES);
