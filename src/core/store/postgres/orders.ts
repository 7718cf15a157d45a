// Orders as the worker meets them: claimed under a lease when due, progress
// saved only while the lease is held (the fence: a save by an instance whose
// lease another took over changes nothing), changed by a person outside the
// worker, and the lp_orderid each is registered under.
import { emptyLaneCounts, type Lane, type LaneCounts, type ShopLaneCounts } from '../../lanes.ts';
import type { OrderRecord } from '../../order-record.ts';
import { progressPart } from '../../order-record.ts';
import type { SaveResult } from '../ledger-store.ts';
import type { PgDatabase } from './database.ts';
import { ORDER_COLUMNS, recordOf, summaryColumns, type OrderRow } from './rows.ts';

export async function getOrder(db: PgDatabase, key: string): Promise<OrderRecord | undefined> {
  const { rows } = await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key = $1`, [key]);
  return rows[0] && recordOf(rows[0]);
}

/**
 * Due orders of one lane (or of both, live first), leased to `owner`. Shops
 * take turns: each shop with due work offers its oldest orders, and the
 * first of every shop goes before the second of any (round-robin). The shops
 * and each shop's oldest orders come from the (lane, platform, shop, due_at)
 * index, so a claim costs the same whatever the size of a shop's backlog.
 */
export async function claimDue(
  db: PgDatabase,
  owner: string,
  limit: number,
  leaseMs: number,
  lane: Lane | undefined,
  turns: ShopTurns,
  skipShops: ReadonlySet<string> = new Set(),
): Promise<OrderRecord[]> {
  if (lane === undefined) {
    const live = await claimDue(db, owner, limit, leaseMs, 'live', turns, skipShops);
    return live.length >= limit
      ? live
      : [...live, ...(await claimDue(db, owner, limit - live.length, leaseMs, 'backfill', turns, skipShops))];
  }
  const { rows } = await db.write<OrderRow & { turn_seq: string; shop_group: string }>(
    `WITH RECURSIVE shops AS (
        -- The shops with work in the lane, one index probe each (a loose index scan on lb_orders_lane_shop_due:
        -- sorting by due_at too leaves the planner no other index), not a scan of the backlog.
        (SELECT platform, shop FROM lb_orders WHERE lane = $4 AND due_at IS NOT NULL ORDER BY platform, shop, due_at LIMIT 1)
        UNION ALL
        SELECT next.platform, next.shop FROM shops CROSS JOIN LATERAL (
          SELECT platform, shop FROM lb_orders
           WHERE lane = $4 AND due_at IS NOT NULL AND (platform, shop) > (shops.platform, shops.shop)
           ORDER BY platform, shop, due_at LIMIT 1) next),
      offered AS (
        SELECT o.key, (s.platform || ':' || s.shop) COLLATE "C" AS shop_group,
               row_number() OVER (PARTITION BY s.platform, s.shop ORDER BY o.due_at) AS turn
          FROM shops s CROSS JOIN LATERAL (
            SELECT key, due_at FROM lb_orders
             WHERE lane = $4 AND platform = s.platform AND shop = s.shop AND due_at <= now() AND (lease_until IS NULL OR lease_until < now())
             ORDER BY due_at LIMIT $2) o
         -- Shops whose account's budget is spent are passed over (the turn order is kept by shop_group).
         WHERE (s.platform || ':' || s.shop) <> ALL($6::text[])),
      -- Within a turn, the shops after the one served last go first: the turns go on across claims.
      ranked AS (
        SELECT key, shop_group, row_number() OVER (ORDER BY turn, shop_group <= $5 COLLATE "C", shop_group) AS seq FROM offered),
      -- More candidates than slots, locked skipping what another claim holds, and only then cut to the slots,
      -- so that rows another instance is claiming are replaced rather than leaving this claim short.
      locked AS (
        SELECT r.key, r.shop_group, r.seq FROM lb_orders l JOIN (SELECT * FROM ranked ORDER BY seq LIMIT $2 * 3) r ON r.key = l.key
         WHERE l.due_at <= now() AND (l.lease_until IS NULL OR l.lease_until < now())
         FOR UPDATE OF l SKIP LOCKED),
      chosen AS (SELECT key, shop_group, seq FROM locked ORDER BY seq LIMIT $2)
     UPDATE lb_orders o SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
       FROM chosen c WHERE o.key = c.key
      RETURNING ${ORDER_COLUMNS.split(', ')
        .map((column) => `o.${column}`)
        .join(', ')}, c.seq AS turn_seq, c.shop_group`,
    [owner, limit, leaseMs, lane, turns[lane], [...skipShops]],
  );
  // The next claim's turns start after the shop this one served last (in the order above, so the database's collation decides, not ours).
  const last = rows.reduce<(typeof rows)[number] | undefined>(
    (latest, row) => (!latest || Number(row.turn_seq) > Number(latest.turn_seq) ? row : latest),
    undefined,
  );
  if (last) turns[lane] = last.shop_group;
  return rows.map(recordOf);
}

/** Per lane, the shop (platform:shop) a claim served last: the next claim's turns start after it. */
export type ShopTurns = Record<Lane, string>;

/** A save of the worker's progress, as the store's saveProgress() takes it. */
export interface ProgressSave {
  record: OrderRecord;
  owner: string;
  release: boolean;
  leaseMs: number;
}

/**
 * Writes the progress columns under the lease: `owner` is the claim's own
 * token, so a save by a holder whose lease expired and was taken over (by
 * another instance, or by this one in another claim) finds no row and learns
 * it lost the order ('lost').
 *
 * Several orders' saves in one statement and one transaction (the worker's
 * saves go through a group commit: postgres-store.ts), each as it would be
 * alone: under its own lease, one result per save, in order. At most one
 * save of an order in a batch (the group commit keeps them apart). The rows are offered in key order; should two
 * statements that lock several orders still deadlock, PostgreSQL undoes one
 * and db.write() tries it again.
 */
export async function saveProgressBatch(db: PgDatabase, saves: readonly ProgressSave[]): Promise<SaveResult[]> {
  const sorted = [...saves].sort((a, b) => (a.record.key < b.record.key ? -1 : a.record.key > b.record.key ? 1 : 0));
  const summaries = new Map(sorted.map((save) => [save, summaryColumns(save.record)]));
  const column = <T>(value: (save: ProgressSave) => T) => sorted.map(value);
  const { rows } = await db.write<{ key: string; fold_version: string; version: string }>(
    `UPDATE lb_orders o SET progress = v.progress::jsonb, state = v.state, reason = v.reason, upstream = v.upstream,
            updated_at = GREATEST(o.updated_at, v.updated_at), version = o.version + 1,
            due_at = CASE WHEN o.fold_version <> v.fold_version THEN now() ELSE v.due_at END,
            lease_owner = CASE WHEN v.release THEN NULL ELSE o.lease_owner END,
            lease_until = CASE WHEN v.release THEN NULL ELSE now() + v.lease_ms * interval '1 millisecond' END
       FROM (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                  $7::timestamptz[], $8::bigint[], $9::timestamptz[], $10::boolean[], $11::float8[])
                 WITH ORDINALITY AS u(key, owner, progress, state, reason, upstream, updated_at, fold_version, due_at, release, lease_ms, n)
              ORDER BY n) v
      WHERE o.key = v.key AND o.lease_owner = v.owner
      RETURNING o.key, o.fold_version, o.version`,
    [
      column((save) => save.record.key),
      column((save) => save.owner),
      column((save) => JSON.stringify(progressPart(save.record))),
      column((save) => summaries.get(save)!.state),
      column((save) => summaries.get(save)!.reason),
      column((save) => summaries.get(save)!.upstream),
      column((save) => save.record.updatedAt),
      column((save) => save.record.foldVersion),
      column((save) => save.record.dueAt),
      column((save) => save.release),
      column((save) => save.leaseMs),
    ],
  );
  const saved = new Map(rows.map((row) => [row.key, row]));
  return saves.map(({ record }) => {
    const row = saved.get(record.key);
    if (!row) return 'lost';
    record.version = Number(row.version);
    return Number(row.fold_version) !== record.foldVersion ? 'refolded' : 'saved';
  });
}

/** A person's change (a retried dead letter): waits for a worker holding the order to let go, then makes it due now. */
export async function updateProgress(
  db: PgDatabase,
  key: string,
  change: (record: OrderRecord) => void,
): Promise<OrderRecord | undefined> {
  for (let waited = 0; ; waited += 50) {
    const updated = await db.transaction(async (client) => {
      const { rows } = await client.query<OrderRow & { leased: boolean }>(
        `SELECT ${ORDER_COLUMNS}, (lease_until IS NOT NULL AND lease_until > now()) AS leased FROM lb_orders WHERE key = $1 FOR UPDATE`,
        [key],
      );
      const row = rows[0];
      if (!row) return null;
      // A worker holding the order would write its own progress over this change: wait for it to let go.
      if (row.leased && waited < 30_000) return 'busy' as const;
      const record = recordOf(row);
      change(record);
      record.dueAt = new Date().toISOString();
      const summary = summaryColumns(record);
      await client.query(
        `UPDATE lb_orders SET progress = $2, state = $3, reason = $4, upstream = $5, version = version + 1, due_at = $6, lane = $7 WHERE key = $1`,
        [
          key,
          JSON.stringify(progressPart(record)),
          summary.state,
          summary.reason,
          summary.upstream,
          record.dueAt,
          record.lane ?? 'live',
        ],
      );
      await client.query('NOTIFY lb_work');
      return record;
    });
    if (updated !== 'busy') return updated ?? undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The worker's step failed: the lease runs out at retryAt, and the order is due as its last save left it. */
export async function releaseOrder(db: PgDatabase, owner: string, key: string, retryAt: Date): Promise<void> {
  await db.write('UPDATE lb_orders SET lease_owner = NULL, lease_until = $3 WHERE key = $1 AND lease_owner = $2', [
    key,
    owner,
    retryAt,
  ]);
}

export async function laneCounts(db: PgDatabase): Promise<Record<Lane, LaneCounts>> {
  // Under way means leased to a worker; an order let go until its retry time (lease_owner NULL) is waiting, as on lowdb.
  const { rows } = await db.query<{ lane: Lane; waiting: string; due: string; oldest: Date | null }>(
    `SELECT lane, count(*) AS waiting, count(*) FILTER (WHERE due_at <= now()) AS due, min(due_at) FILTER (WHERE due_at <= now()) AS oldest
       FROM lb_orders WHERE due_at IS NOT NULL AND NOT (lease_owner IS NOT NULL AND lease_until > now()) GROUP BY lane`,
  );
  const counts: Record<Lane, LaneCounts> = {
    live: { waiting: 0, due: 0, oldestDueAt: null },
    backfill: { waiting: 0, due: 0, oldestDueAt: null },
  };
  for (const row of rows)
    if (row.lane in counts)
      counts[row.lane] = {
        waiting: Number(row.waiting),
        due: Number(row.due),
        oldestDueAt: row.oldest?.toISOString() ?? null,
      };
  return counts;
}

export async function laneCountsByShop(db: PgDatabase): Promise<ShopLaneCounts[]> {
  const { rows } = await db.query<{
    platform: string;
    shop: string;
    lane: Lane;
    waiting: string;
    due: string;
    oldest: Date | null;
  }>(
    `SELECT platform, shop, lane, count(*) AS waiting, count(*) FILTER (WHERE due_at <= now()) AS due,
            min(due_at) FILTER (WHERE due_at <= now()) AS oldest
       FROM lb_orders WHERE due_at IS NOT NULL AND NOT (lease_owner IS NOT NULL AND lease_until > now())
      GROUP BY platform, shop, lane`,
  );
  const shops = new Map<string, ShopLaneCounts>();
  for (const row of rows) {
    const group = `${row.platform}:${row.shop}`;
    let entry = shops.get(group);
    if (!entry) shops.set(group, (entry = { platform: row.platform, shop: row.shop, lanes: emptyLaneCounts() }));
    if (row.lane in entry.lanes)
      entry.lanes[row.lane] = {
        waiting: Number(row.waiting),
        due: Number(row.due),
        oldestDueAt: row.oldest?.toISOString() ?? null,
      };
  }
  return [...shops.values()];
}

export async function nextDueAt(db: PgDatabase, skipShops?: ReadonlySet<string>): Promise<number | undefined> {
  if (skipShops && skipShops.size > 0) {
    const { rows } = await db.query<{ at: Date | null }>(
      `SELECT min(due_at) AS at FROM lb_orders
        WHERE due_at IS NOT NULL AND (lease_until IS NULL OR lease_until < now()) AND (platform || ':' || shop) <> ALL($1::text[])`,
      [[...skipShops]],
    );
    return rows[0]?.at?.getTime();
  }
  const { rows } = await db.query<{ at: Date | null }>(
    'SELECT min(due_at) AS at FROM lb_orders WHERE due_at IS NOT NULL AND (lease_until IS NULL OR lease_until < now())',
  );
  return rows[0]?.at?.getTime();
}

/**
 * The order an lp_orderid belongs to: this one, unless another registered it
 * first. One round trip whether it is new (inserted) or there already (read
 * by the same statement: an insert that finds the key does nothing, and
 * writes nothing to commit). A key inserted by a transaction that commits
 * while ours waits is invisible to our own statement's snapshot, not to the
 * next one: then it is read again. Nothing is kept in memory: another
 * instance may erase a shop, and its registrations with it. Durable at once,
 * whatever the caller asks.
 */
export async function claimLpOrderId(db: PgDatabase, lpOrderId: string, key: string): Promise<string> {
  const { rows } = await db.write<{ order_key: string }>(
    `WITH inserted AS (
       INSERT INTO lb_lp_order_ids (lp_order_id, order_key) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING order_key)
     SELECT order_key FROM inserted UNION ALL SELECT order_key FROM lb_lp_order_ids WHERE lp_order_id = $1`,
    [lpOrderId, key],
  );
  const owner = rows[0]?.order_key;
  if (owner !== undefined) return owner;
  return (
    (await db.query<{ order_key: string }>('SELECT order_key FROM lb_lp_order_ids WHERE lp_order_id = $1', [lpOrderId]))
      .rows[0]?.order_key ?? key
  );
}
