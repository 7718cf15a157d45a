// An order as lists and counts show it: the fields a page, the CLI's status and the stores' lists read of an
// order without its whole record, and its counts by state, platform and reason.
import type { OrderRecord, UpstreamPoints } from './order-record.ts';
import { redemptionSummary } from './redeems.ts';

/** What the admin lists and counts by: small enough to keep for every order, settled ones included. */
export interface OrderSummary {
  key: string;
  platform: string;
  shop: string;
  orderId: string;
  orderName: string;
  state: string;
  reason: string | undefined;
  upstream: UpstreamPoints;
  email: string | null;
  mobile: string | null;
  updatedAt: string;
  /** When the bridge first learnt of the order: the date a merchant's Orders shows. */
  firstSeenAt: string;
  /** The order's total in the shop's currency; null where no event of it carried one. */
  total: { amount: string; currency: string } | null;
  /** What the order's points are read from (activity-points.ts): its activity, its account, what it redeemed. */
  earnActivityId?: string | undefined;
  account?: string | undefined;
  redeemedPoints?: number | undefined;
}

/** A record starts with an empty currency until an event says its total (a refund's does not): no total yet. */
export const totalOf = (total: { amount: string; currency: string } | null | undefined) =>
  total?.currency ? { amount: total.amount, currency: total.currency } : null;

export const summarise = (record: OrderRecord): OrderSummary => ({
  key: record.key,
  platform: record.platform,
  shop: record.shop,
  orderId: record.orderId,
  orderName: record.snapshot.orderName,
  state: record.target?.state ?? 'new',
  reason: record.target?.reason,
  upstream: record.upstream.points,
  email: record.snapshot.customer.email,
  mobile: record.snapshot.customer.mobile,
  updatedAt: record.updatedAt,
  firstSeenAt: record.firstSeenAt,
  total: totalOf(record.snapshot.total),
  earnActivityId: record.upstream.earnActivityId,
  account: record.upstream.account,
  // Every point spent on the order: its own redeem's and its reward codes'.
  redeemedPoints: redemptionSummary(record.upstream).redeemedPoints,
});

/** Orders by state and by platform, skipped ones by reason, and the others that need the merchant's eye by reason: what the merchant sees first. */
export interface OrderCounts {
  byState: Record<string, number>;
  byPlatform: Record<string, number>;
  skipped: Record<string, number>;
  /** Orders that earn as usual but are listed for a reason (a referral without a referrer, points redeemed on a cancelled order). */
  attention: Record<string, number>;
}

export function countOrders(summaries: Iterable<Pick<OrderSummary, 'state' | 'platform' | 'reason'>>): OrderCounts {
  const counts: OrderCounts = { byState: {}, byPlatform: {}, skipped: {}, attention: {} };
  const add = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);
  for (const summary of summaries) {
    add(counts.byState, summary.state);
    add(counts.byPlatform, summary.platform);
    if (summary.reason) add(summary.state === 'skipped' ? counts.skipped : counts.attention, summary.reason);
  }
  return counts;
}

/** How many orders are listed for a reason, skipped or not. Counts kept before attention existed have none. */
export const countWithReason = (
  counts: Pick<OrderCounts, 'skipped'> & Partial<Pick<OrderCounts, 'attention'>>,
  reason: string,
): number => (counts.skipped[reason] ?? 0) + (counts.attention?.[reason] ?? 0);
