// The inbox: acknowledged deliveries waiting to be translated, and the
// dedupe keys every delivery was accepted under (lb_seen), kept for the
// dedupe window.
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import type { PgDatabase } from './database.ts';
import { entryOf, entryPayload, INBOX_COLUMNS, type InboxRow } from './rows.ts';

/**
 * A batch of deliveries in one statement, one round trip, one commit: the
 * dedupe keys, and each entry whose keys were all new. A copy being stored by
 * another transaction makes the key insert wait for that commit, so a
 * duplicate is answered only once the first copy is durable. Keys go in
 * sorted, so two batches sharing keys wait on each other in one order, never
 * in a cycle. When only some of an entry's keys were new (a retry under a new
 * id), those are kept as seen: they belong to a delivery that is stored.
 * One NOTIFY for the batch, and none when nothing new was stored.
 */
const ACCEPT_SQL = `
WITH input AS (
       SELECT key, aliases, received_at, entry FROM jsonb_to_recordset($1::jsonb) AS x(key text, aliases text[], received_at timestamptz, entry jsonb)),
     keys AS (
       SELECT DISTINCT input.key AS entry_key, k.key, input.received_at FROM input, unnest(array_prepend(input.key, input.aliases)) AS k(key)),
     seen AS (
       INSERT INTO lb_seen (key, received_at) SELECT key, received_at FROM keys ORDER BY key ON CONFLICT DO NOTHING RETURNING key),
     fresh AS (
       SELECT keys.entry_key FROM keys LEFT JOIN seen ON seen.key = keys.key GROUP BY keys.entry_key HAVING bool_and(seen.key IS NOT NULL)),
     stored AS (
       INSERT INTO lb_inbox (key, aliases, received_at, entry, retry, due_at)
       SELECT input.key, input.aliases, input.received_at, input.entry, NULL, input.received_at FROM input JOIN fresh ON fresh.entry_key = input.key
       RETURNING key)
SELECT coalesce(array_agg(key), '{}') AS stored, (SELECT count(pg_notify('lb_work', '')) FROM (SELECT 1 FROM stored LIMIT 1) AS any_stored) AS notified FROM stored`;

/** An entry as the accept statement takes it: JSON text, measured once. */
export interface AcceptItem {
  entry: InboxEntry;
  json: string;
}

export const acceptItem = (entry: InboxEntry): AcceptItem => ({
  entry,
  json: JSON.stringify({
    key: entry.key,
    aliases: entry.aliases,
    received_at: entry.receivedAt,
    entry: entryPayload(entry),
  }),
});

export async function acceptBatch(db: PgDatabase, items: AcceptItem[]): Promise<Array<'accepted' | 'duplicate'>> {
  const { rows } = await db.write<{ stored: string[] }>(
    ACCEPT_SQL,
    [`[${items.map((item) => item.json).join(',')}]`],
    'ack',
  );
  const stored = new Set(rows[0]?.stored ?? []);
  return items.map((item) => (stored.has(item.entry.key) ? 'accepted' : 'duplicate'));
}

export async function hasSeen(db: PgDatabase, key: string): Promise<boolean> {
  return ((await db.query('SELECT 1 FROM lb_seen WHERE key = $1', [key])).rowCount ?? 0) > 0;
}

/**
 * Keys past the window go, except those of entries still in the inbox (a
 * delivery whose platform has not answered for days must still dedupe). The
 * inbox's keys and aliases are gathered once and anti-joined by hash: the
 * work grows with the keys plus the entries, not with their product.
 */
export const PRUNE_SEEN_SQL = `
WITH kept AS (SELECT key FROM lb_inbox UNION ALL SELECT unnest(aliases) FROM lb_inbox)
DELETE FROM lb_seen s WHERE s.received_at < $1 AND NOT EXISTS (SELECT 1 FROM kept WHERE kept.key = s.key)`;

export async function pruneSeen(db: PgDatabase, before: Date): Promise<void> {
  await db.write(PRUNE_SEEN_SQL, [before]);
}

export async function claimInbox(db: PgDatabase, owner: string, limit: number, leaseMs: number): Promise<InboxEntry[]> {
  const { rows } = await db.write<InboxRow>(
    `UPDATE lb_inbox SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
      WHERE key IN (SELECT key FROM lb_inbox WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())
                     ORDER BY due_at, received_at LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING ${INBOX_COLUMNS}`,
    [owner, limit, leaseMs],
  );
  return rows.map(entryOf);
}

export async function inboxEntry(db: PgDatabase, key: string): Promise<InboxEntry | undefined> {
  const { rows } = await db.query<InboxRow>(`SELECT ${INBOX_COLUMNS} FROM lb_inbox WHERE key = $1`, [key]);
  return rows[0] && entryOf(rows[0]);
}

export async function nextInboxAt(db: PgDatabase): Promise<number | undefined> {
  const { rows } = await db.query<{ at: Date | null }>(
    'SELECT min(due_at) AS at FROM lb_inbox WHERE lease_until IS NULL OR lease_until < now()',
  );
  return rows[0]?.at?.getTime();
}

/** Intake's handling failed: the lease runs out at retryAt, and the entry is taken again from then. */
export async function releaseEntry(db: PgDatabase, owner: string, key: string, retryAt: Date): Promise<void> {
  await db.write('UPDATE lb_inbox SET lease_owner = NULL, lease_until = $3 WHERE key = $1 AND lease_owner = $2', [
    key,
    owner,
    retryAt,
  ]);
}

/** The platform did not answer: the entry waits for retry.retryAt, if this claim still holds it. */
export async function deferInbox(db: PgDatabase, owner: string, key: string, retry: EntryRetry): Promise<void> {
  await db.write(
    `UPDATE lb_inbox SET retry = $2, due_at = $3, lease_owner = NULL, lease_until = NULL
      WHERE key = $1 AND lease_owner = $4`,
    [key, JSON.stringify(retry), retry.retryAt, owner],
  );
}
