// Orders as the worker meets them: claimed under a lease when due, progress
// saved only while the lease is held (the fence: a save by an instance whose
// lease another took over changes nothing), changed by a person outside the
// worker, and the lp_orderid each is registered under.
import { emptyLaneCounts, type Lane, type LaneCounts, type ShopLaneCounts, type SkippedShops } from '../../lanes.ts';
import type { OrderRecord } from '../../order-record.ts';
import { progressPart } from '../../order-record.ts';
import type { SaveResult } from '../ledger-store.ts';
import type { NamedStatement, PgDatabase } from './database.ts';
import { ORDER_COLUMNS, recordOf, summaryColumns, type OrderRow } from './rows.ts';

export async function getOrder(db: PgDatabase, key: string): Promise<OrderRecord | undefined> {
  const { rows } = await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key = $1`, [key]);
  return rows[0] && recordOf(rows[0]);
}

/**
 * The claim of one lane, as claimDue() runs it: $1 owner, $2 limit, $3 lease
 * in ms, $4 shops passed over, $5 and $6 the platform and shop served last.
 * The lane is written into the statement, one statement a lane: PostgreSQL
 * may keep one plan for a prepared statement, planned without its values,
 * and with the lane unknown its estimates favoured reading the candidates'
 * table whole. Exported for the test that reads its plans.
 */
export const claimDueStatement = (lane: Lane): NamedStatement => CLAIM_DUE[lane];

function claimDueOf(lane: Lane): NamedStatement {
  // One of two words (lanes.ts), never a caller's text.
  const quoted = `'${lane}'`;
  return {
    name: `lb_claim_due_${lane}`,
    text: `WITH RECURSIVE walk AS (
        -- From the shop served last (pass 0: the shops after it, in index order; pass 1: from the first shop up to
        -- it), one index probe a step, until three times the claim's size of shops offer work (enough for the
        -- rows that another claim holds to be replaced) or every shop was seen.
        SELECT $5::text AS platform, $6::text AS shop, 0 AS pass, 0 AS n, 0 AS found, false AS offers
        UNION ALL
        SELECT nx.platform, nx.shop, nx.pass, w.n + 1, w.found + o.offers::int, o.offers
          FROM walk w
          -- The next shop: the one after this one in index order (a seek to it, one entry read), or, at the
          -- end of pass 0, the first shop (pass 1 begins). Pass 1 ends at the shop served last: the bound is
          -- checked on the shop found (below), not given to the index scan, which would read on through every
          -- entry of the shops after it (a bound on the second column of a row does not end a scan).
          CROSS JOIN LATERAL (
            (SELECT platform, shop, w.pass AS pass FROM lb_orders
              WHERE lane = ${quoted} AND due_at IS NOT NULL AND (platform, shop) > (w.platform, w.shop)
              ORDER BY platform, shop, due_at LIMIT 1)
            UNION ALL
            (SELECT platform, shop, 1 AS pass FROM lb_orders
              WHERE w.pass = 0 AND lane = ${quoted} AND due_at IS NOT NULL
              ORDER BY platform, shop, due_at LIMIT 1)
            LIMIT 1) nx
          -- A shop offers work when it has an order due and free, unless its account's budget is spent: its first
          -- such order, read in due order (an EXISTS was planned as a scan of the table when one shop's backlog
          -- was most of it). OFFSET 0 keeps this a subquery of its own: inlined, its probe ran once for each use
          -- of offers.
          CROSS JOIN LATERAL (
            SELECT (nx.platform || ':' || nx.shop) <> ALL($4::text[]) AND (
              SELECT d.due_at FROM lb_orders d
               WHERE d.lane = ${quoted} AND d.platform = nx.platform AND d.shop = nx.shop AND d.due_at <= now()
                 AND (d.lease_until IS NULL OR d.lease_until < now())
               ORDER BY d.due_at LIMIT 1) IS NOT NULL AS offers
            OFFSET 0) o
         WHERE w.found < $2 * 3 AND (nx.pass = 0 OR (nx.platform, nx.shop) <= ($5, $6))),
      -- Each shop's oldest orders, as many as a shop can be given: when the walk found three times the claim's
      -- size of shops, the candidates are the first order of each, and one is enough.
      per_shop AS (SELECT CASE WHEN max(found) >= $2 * 3 THEN 1 ELSE $2 END AS orders FROM walk),
      offered AS (
        SELECT o.key, w.platform, w.shop, w.n, row_number() OVER (PARTITION BY w.n ORDER BY o.due_at) AS turn
          FROM walk w CROSS JOIN per_shop p CROSS JOIN LATERAL (
            SELECT key, due_at FROM lb_orders
             WHERE lane = ${quoted} AND platform = w.platform AND shop = w.shop AND due_at <= now()
               AND (lease_until IS NULL OR lease_until < now())
             ORDER BY due_at LIMIT p.orders) o
         WHERE w.offers),
      -- Within a turn, the shops in the order walked: the turns go on across claims.
      ranked AS (SELECT key, platform, shop, row_number() OVER (ORDER BY turn, n) AS seq FROM offered),
      -- More candidates than slots, locked skipping what another claim holds, and only then cut to the slots,
      -- so that rows another instance is claiming are replaced rather than leaving this claim short.
      -- (Each candidate read by its key: joined to the candidates, a plan made without the values read the table.)
      locked AS (
        SELECT l.key FROM lb_orders l
         WHERE l.key = ANY (ARRAY(SELECT key FROM ranked ORDER BY seq LIMIT $2 * 3))
           AND l.due_at <= now() AND (l.lease_until IS NULL OR l.lease_until < now())
         FOR UPDATE OF l SKIP LOCKED),
      chosen AS (SELECT r.key, r.platform, r.shop, r.seq FROM ranked r JOIN locked USING (key) ORDER BY r.seq LIMIT $2)
     UPDATE lb_orders o SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
       FROM chosen c WHERE o.key = c.key
      RETURNING ${ORDER_COLUMNS.split(', ')
        .map((column) => `o.${column}`)
        .join(', ')}, c.seq AS turn_seq, c.platform AS turn_platform, c.shop AS turn_shop`,
  };
}

const CLAIM_DUE: Record<Lane, NamedStatement> = { live: claimDueOf('live'), backfill: claimDueOf('backfill') };

/**
 * Due orders of one lane (or of both, live first), leased to `owner`. Shops
 * take turns: each shop with due work offers its oldest orders, and the
 * first of every shop goes before the second of any (round-robin), starting
 * after the shop served last. The shops are walked in that order from the
 * (lane, platform, shop, due_at) index, one probe each, only until enough of
 * them offer work for the claim: a claim costs what its size does, whatever
 * the number of shops with work and the size of their backlogs. (Walking
 * every shop made each claim cost about 20 µs a shop: with 100 shops, more
 * than every other statement of an order together.)
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
  const [lastPlatform, lastShop] = turns[lane];
  const { rows } = await db.write<OrderRow & { turn_seq: string; turn_platform: string; turn_shop: string }>(
    claimDueStatement(lane),
    [owner, limit, leaseMs, [...skipShops], lastPlatform, lastShop],
  );
  // The next claim's turns start after the shop this one served last.
  const last = rows.reduce<(typeof rows)[number] | undefined>(
    (latest, row) => (!latest || Number(row.turn_seq) > Number(latest.turn_seq) ? row : latest),
    undefined,
  );
  if (last) turns[lane] = [last.turn_platform, last.turn_shop];
  return rows.map(recordOf);
}

/** Per lane, the shop (platform, shop) a claim served last: the next claim's turns start after it. */
export type ShopTurns = Record<Lane, readonly [platform: string, shop: string]>;

/** A copy in the keys' code-unit order: every instance locks the rows of a batch in the same order. */
const inKeyOrder = <T>(items: readonly T[], keyOf: (item: T) => string): T[] =>
  [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));

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
  const sorted = inKeyOrder(saves, (save) => save.record.key);
  const summaries = new Map(sorted.map((save) => [save, summaryColumns(save.record)]));
  const column = <T>(value: (save: ProgressSave) => T) => sorted.map(value);
  const { rows } = await db.write<{ key: string; fold_version: string; version: string }>(
    {
      name: 'lb_save_progress',
      text: `UPDATE lb_orders o SET progress = v.progress::jsonb, state = v.state, reason = v.reason, upstream = v.upstream,
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
    },
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

export async function nextDueAt(db: PgDatabase, skip: SkippedShops = {}): Promise<number | undefined> {
  if (skip.all?.size || skip.backfill?.size) {
    // The backfill-only shops' live orders still count: claims take them.
    const { rows } = await db.query<{ at: Date | null }>(
      `SELECT min(due_at) AS at FROM lb_orders
        WHERE due_at IS NOT NULL AND (lease_until IS NULL OR lease_until < now())
          AND (platform || ':' || shop) <> ALL($1::text[])
          AND (lane <> 'backfill' OR (platform || ':' || shop) <> ALL($2::text[]))`,
      [[...(skip.all ?? [])], [...(skip.backfill ?? [])]],
    );
    return rows[0]?.at?.getTime();
  }
  const { rows } = await db.query<{ at: Date | null }>(
    'SELECT min(due_at) AS at FROM lb_orders WHERE due_at IS NOT NULL AND (lease_until IS NULL OR lease_until < now())',
  );
  return rows[0]?.at?.getTime();
}

/** An lp_orderid to register for an order, as the store's claimLpOrderId() takes it. */
export interface LpOrderIdClaim {
  lpOrderId: string;
  key: string;
}

/**
 * The order each lp_orderid belongs to: its own, unless another registered it
 * first. Several registrations in one statement and one commit (they go
 * through a group commit, as the saves do: postgres-store.ts), each as it
 * would be alone, one answer each, in order; at most one of an lp_orderid in
 * a batch. One round trip whether they are new (inserted) or there already
 * (read by the same statement: an insert that finds the key does nothing, and
 * writes nothing to commit). A key inserted by a transaction that commits
 * while ours waits is invisible to our own statement's snapshot, not to the
 * next one: then it is read again. Nothing is kept in memory: another
 * instance may erase a shop, and its registrations with it. Durable at once.
 */
export async function claimLpOrderIds(db: PgDatabase, claims: readonly LpOrderIdClaim[]): Promise<string[]> {
  // In key order, so that two batches inserting the same ids wait on each other in the same order (no deadlock).
  const sorted = inKeyOrder(claims, (claim) => claim.lpOrderId);
  const { rows } = await db.write<{ lp_order_id: string; order_key: string | null }>(
    {
      name: 'lb_claim_lp_order_ids',
      text: `WITH claims AS (
         SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(lp_order_id, order_key, n)),
       inserted AS (
         INSERT INTO lb_lp_order_ids (lp_order_id, order_key)
         SELECT lp_order_id, order_key FROM claims ORDER BY n ON CONFLICT DO NOTHING RETURNING lp_order_id, order_key)
       SELECT c.lp_order_id, coalesce(i.order_key, o.order_key) AS order_key
         FROM claims c
         LEFT JOIN inserted i ON i.lp_order_id = c.lp_order_id
         LEFT JOIN lb_lp_order_ids o ON o.lp_order_id = c.lp_order_id`,
    },
    [sorted.map((claim) => claim.lpOrderId), sorted.map((claim) => claim.key)],
  );
  const owners = new Map(rows.map((row) => [row.lp_order_id, row.order_key]));
  return Promise.all(
    claims.map(async ({ lpOrderId, key }) => {
      const owner = owners.get(lpOrderId);
      if (owner) return owner;
      return (
        (
          await db.query<{ order_key: string }>('SELECT order_key FROM lb_lp_order_ids WHERE lp_order_id = $1', [
            lpOrderId,
          ])
        ).rows[0]?.order_key ?? key
      );
    }),
  );
}
