// Orders for people: the admin API's and dashboard's pages of orders, newest
// first, filtered and searched, with their total; and the store's vital
// statistics for metrics and readiness.
import type { CodeRedeem, Redemption } from '../../order-record.ts';
import { totalOf, type OrderSummary } from '../../order-summary.ts';
import { redemptionSummary } from '../../redeems.ts';
import type { OrderQuery, StoreStats } from '../ledger-store.ts';
import type { PgDatabase } from './database.ts';
import { countWhere } from './order-counts.ts';

interface SummaryRow {
  key: string;
  platform: string;
  shop: string;
  order_id: string;
  order_name: string;
  state: string;
  reason: string | null;
  upstream: string;
  email: string | null;
  mobile: string | null;
  updated_at: Date;
  earn_activity_id: string | null;
  account: string | null;
  redeemed_points: string | null;
  redemption: string | null;
  redeem_codes: CodeRedeem[] | null;
  first_seen_at: string | null;
  total_amount: string | null;
  total_currency: string | null;
}

export async function listOrders(
  db: PgDatabase,
  query: OrderQuery,
): Promise<{ total: number; orders: OrderSummary[] }> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    where.push(clause(`$${values.length}`));
  };
  if (query.platform) add((p) => `platform = ${p}`, query.platform);
  if (query.shop) add((p) => `shop = ${p}`, query.shop);
  if (query.state) add((p) => `state = ${p}`, query.state);
  if (query.reason) add((p) => `reason = ${p}`, query.reason);
  if (query.since) add((p) => `updated_at >= ${p}`, query.since);
  if (query.until) add((p) => `updated_at <= ${p}`, query.until);
  if (query.q)
    add(
      (p) => `(order_id LIKE ${p} OR lower(order_name) LIKE ${p} OR lower(email) LIKE ${p})`,
      `%${query.q.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`,
    );
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  // One dimension at most: the kept counts answer, instead of counting the rows.
  const dimensions = [query.state, query.platform, query.reason].filter(Boolean).length;
  const total =
    !query.q && !query.since && !query.until && !query.shop && dimensions <= 1
      ? await countWhere(
          db,
          query.state ? 'state' : query.platform ? 'platform' : query.reason ? 'reason' : undefined,
          query.state ?? query.platform ?? query.reason,
        )
      : Number(
          (await db.query<{ count: string }>(`SELECT count(*) FROM lb_orders ${filter}`, values)).rows[0]?.count ?? 0,
        );
  const { rows } = await db.query<SummaryRow>(
    `SELECT key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at,
        progress->'upstream'->>'earnActivityId' AS earn_activity_id, progress->'upstream'->>'account' AS account,
        progress->'upstream'->>'redeemedPoints' AS redeemed_points,
        progress->'upstream'->>'redemption' AS redemption, progress->'upstream'->'redeemCodes' AS redeem_codes,
        fold->>'firstSeenAt' AS first_seen_at, fold->'snapshot'->'total'->>'amount' AS total_amount,
        fold->'snapshot'->'total'->>'currency' AS total_currency
      FROM lb_orders ${filter}
      ORDER BY updated_at DESC, key LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
    values,
  );
  return {
    total,
    orders: rows.map((row) => ({
      key: row.key,
      platform: row.platform,
      shop: row.shop,
      orderId: row.order_id,
      orderName: row.order_name,
      state: row.state,
      reason: row.reason ?? undefined,
      upstream: row.upstream as OrderSummary['upstream'],
      email: row.email,
      mobile: row.mobile,
      updatedAt: row.updated_at.toISOString(),
      // A row's fold always holds when it was first seen; a row without one reads as its last change.
      firstSeenAt: row.first_seen_at ?? row.updated_at.toISOString(),
      total: totalOf(
        row.total_amount === null ? null : { amount: row.total_amount, currency: row.total_currency ?? '' },
      ),
      earnActivityId: row.earn_activity_id ?? undefined,
      account: row.account ?? undefined,
      // Every point spent on the order, as summarise counts them: its own redeem's and its reward codes'.
      redeemedPoints: redemptionSummary({
        redemption: (row.redemption ?? 'none') as Redemption,
        redeemedPoints: row.redeemed_points === null ? undefined : Number(row.redeemed_points),
        redeemCodes: row.redeem_codes ?? undefined,
      }).redeemedPoints,
    })),
  };
}

export async function storeStats(db: PgDatabase): Promise<StoreStats> {
  const { rows } = await db.query<{ inbox: string; active: string }>(
    'SELECT (SELECT count(*) FROM lb_inbox) AS inbox, (SELECT count(*) FROM lb_orders WHERE due_at IS NOT NULL) AS active',
  );
  return { inboxBacklog: Number(rows[0]?.inbox ?? 0), activeOrders: Number(rows[0]?.active ?? 0) };
}
