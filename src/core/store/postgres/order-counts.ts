// Orders by state, platform and skip reason, for the status page, without counting a million rows and
// without a hot row: a trigger on lb_orders appends +1/-1 delta rows (migration 002), which never wait on one
// another. A read sums the compacted counts and the deltas since; a compaction folds the deltas in now and
// then, one instance at a time, in one statement.
import type { OrderCounts } from '../../order-summary.ts';
import type { PgDatabase } from './database.ts';
import { LOCK_CLASS, lockId } from './locks.ts';

/** The compacted counts and the deltas since, as one set of rows to sum. */
const COUNT_ROWS =
  '(SELECT state, platform, reason, count FROM lb_order_counts UNION ALL SELECT state, platform, reason, delta FROM lb_order_count_deltas) AS c';

export async function countOrders(db: PgDatabase): Promise<OrderCounts> {
  const { rows } = await db.query<{ state: string; platform: string; reason: string; count: string }>(
    `SELECT state, platform, reason, sum(count) AS count FROM ${COUNT_ROWS} GROUP BY state, platform, reason HAVING sum(count) > 0`,
  );
  const counts: OrderCounts = { byState: {}, byPlatform: {}, skipped: {}, attention: {} };
  for (const row of rows) {
    const count = Number(row.count);
    counts.byState[row.state] = (counts.byState[row.state] ?? 0) + count;
    counts.byPlatform[row.platform] = (counts.byPlatform[row.platform] ?? 0) + count;
    // A reason on a skipped order says why it was skipped; on any other, what needs a person's eye.
    const byReason = row.state === 'skipped' ? counts.skipped : counts.attention;
    if (row.reason) byReason[row.reason] = (byReason[row.reason] ?? 0) + count;
  }
  return counts;
}

/** How many orders have this state, platform or skip reason (or all of them, with none given). */
export async function countWhere(
  db: PgDatabase,
  column: 'state' | 'platform' | 'reason' | undefined,
  value: string | undefined,
): Promise<number> {
  const { rows } = await db.query<{ total: string | null }>(
    `SELECT sum(count) AS total FROM ${COUNT_ROWS}${column ? ` WHERE ${column} = $1` : ''}`,
    column ? [value] : [],
  );
  return Number(rows[0]?.total ?? 0);
}

const COMPACTION_LOCK = lockId('order-count-compaction');

/**
 * Folds the deltas into the counts. Skipped when another instance is at it;
 * the counts rows are written in key order, so even two at once could not
 * deadlock. Readers see the deltas or their sum, never both: one statement.
 */
export async function compactCounts(db: PgDatabase): Promise<void> {
  await db.transaction(async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [
      LOCK_CLASS,
      COMPACTION_LOCK,
    ]);
    if (!rows[0]?.locked) return;
    await client.query(
      `WITH moved AS (DELETE FROM lb_order_count_deltas RETURNING state, platform, reason, delta)
       INSERT INTO lb_order_counts (state, platform, reason, count)
       SELECT state, platform, reason, sum(delta) FROM moved GROUP BY state, platform, reason ORDER BY state, platform, reason
       ON CONFLICT (state, platform, reason) DO UPDATE SET count = lb_order_counts.count + EXCLUDED.count`,
    );
  });
}
