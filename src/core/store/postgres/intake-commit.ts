// One step of intake in one transaction: inbox entries consumed, their events
// folded into orders, dead letters and install states kept. Orders are
// locked in key order, so two instances folding into the same orders never
// deadlock; a new order created by another instance meanwhile makes the
// transaction run again, folding into that row. An entry no longer in the
// inbox (its shop erased while intake read it) folds nothing; one a customer's
// erasure reached erases what it folds of theirs.
import type { EntryErasure } from '../../delivery.ts';
import { orderKey } from '../../order-event.ts';
import { applyEvent, foldPart, newOrderRecord, progressPart, type OrderRecord } from '../../order-record.ts';
import { eraseOrder } from '../customer-data.ts';
import { reachedAt } from '../entry-erasure.ts';
import { withoutEntryGone, type IntakeCommit } from '../ledger-store.ts';
import type { PoolClient } from 'pg';
import type { PgDatabase } from './database.ts';
import { insertDeadLetter } from './dead-letters.ts';
import { putRecord } from './records.ts';
import { ORDER_COLUMNS, recordOf, summaryColumns, type OrderRow } from './rows.ts';

/** Returns the orders that changed. */
export function commitIntake(db: PgDatabase, commits: IntakeCommit[]): Promise<string[]> {
  return db.transaction(async (client) => {
    const now = new Date().toISOString();
    // The orders first, in key order (as every transaction that locks orders takes them), then the entries, in key
    // order too: an entry another transaction is removing (its shop's erasure, or another instance's step) waits for
    // it, and only the entries still there are folded.
    const locked = [...new Set(commits.flatMap((commit) => (commit.events ?? []).map(orderKey)))].sort();
    const records = new Map<string, OrderRecord>();
    if (locked.length > 0) {
      const { rows } = await client.query<OrderRow>(
        `SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key = ANY($1) ORDER BY key FOR UPDATE`,
        [locked],
      );
      for (const row of rows) records.set(row.key, recordOf(row));
    }
    // Each entry as it is now, not as intake read it: a customer's erasure that rewrote it meanwhile (this waits for
    // one still at it) recorded what it reached, and what the step folds of that is erased (entry-erasure.ts).
    // An entry another claim holds now (taken over after this one's lease ran out) is that claim's to consume.
    const { rows: consumed } = await client.query<{
      key: string;
      owner: string | null;
      erasures: EntryErasure[] | null;
    }>(
      `DELETE FROM lb_inbox WHERE key IN (
         SELECT i.key FROM lb_inbox i JOIN unnest($1::text[], $2::text[]) AS c(key, owner) ON c.key = i.key
          WHERE c.owner IS NULL OR i.lease_owner IS NULL OR i.lease_owner = c.owner ORDER BY i.key FOR UPDATE OF i)
       RETURNING key, lease_owner AS owner, entry->'erasures' AS erasures`,
      [commits.map((commit) => commit.entryKey), commits.map((commit) => commit.owner ?? null)],
    );
    const rows = new Map(consumed.map((row) => [row.key, row]));
    const inInbox = new Map(consumed.map((row) => [row.key, row.erasures]));
    // A key in the batch twice (a step of the erased copy beside the holder's of the copy stored since): the
    // holder's step alone consumed it.
    const consumedBy = (commit: IntakeCommit) => {
      const row = rows.get(commit.entryKey);
      return row !== undefined && (commit.owner === undefined || row.owner === null || row.owner === commit.owner);
    };
    const applied = commits.map((commit) => withoutEntryGone(commit, consumedBy(commit)));
    const events = applied.flatMap((commit) =>
      (commit.events ?? []).map((event) => ({
        event,
        entryKey: commit.entryKey,
        lane: commit.lane ?? ('live' as const),
        erasures: inInbox.get(commit.entryKey),
      })),
    );
    const keys = [...new Set(events.map(({ event }) => orderKey(event)))].sort();
    const isNew = new Set<string>();
    for (const { event, entryKey, lane, erasures } of events) {
      const key = orderKey(event);
      let record = records.get(key);
      if (!record) {
        record = newOrderRecord(event, now);
        records.set(key, record);
        isNew.add(key);
      }
      applyEvent(record, event, entryKey, now, lane);
      const erasedAt = reachedAt(erasures, key);
      if (erasedAt) eraseOrder(record, erasedAt);
    }
    for (const key of keys) await writeOrder(client, records.get(key)!, isNew.has(key));
    for (const commit of applied) {
      if (commit.deadLetter) await insertDeadLetter(client, commit.deadLetter);
      if (commit.shop)
        await putRecord(client, db.secrets, 'shop', `${commit.shop.platform}:${commit.shop.shop}`, commit.shop);
      for (const record of commit.records ?? [])
        await putRecord(client, db.secrets, record.kind, record.id, record.value);
    }
    // One notice for the whole step, and none when no order changed.
    if (keys.length > 0) await client.query('NOTIFY lb_work');
    return keys;
  });
}

/** One folded order written: inserted when the step made it, else its fold part and the columns copied from it. */
async function writeOrder(client: PoolClient, record: OrderRecord, isNew: boolean): Promise<void> {
  const summary = summaryColumns(record);
  if (isNew) {
    await client.query(
      `INSERT INTO lb_orders (key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at, due_at, version, fold_version, fold, progress, lane)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now(), 1, $12, $13, $14, $15)`,
      [
        record.key,
        record.platform,
        record.shop,
        record.orderId,
        summary.orderName,
        summary.state,
        summary.reason,
        summary.upstream,
        summary.email,
        summary.mobile,
        record.updatedAt,
        record.foldVersion,
        JSON.stringify(foldPart(record)),
        JSON.stringify(progressPart(record)),
        record.lane ?? 'live',
      ],
    );
  } else {
    await client.query(
      `UPDATE lb_orders SET order_name = $2, email = $3, mobile = $4, updated_at = GREATEST(updated_at, $5), due_at = now(), version = version + 1, fold_version = $6, fold = $7, lane = $8 WHERE key = $1`,
      [
        record.key,
        summary.orderName,
        summary.email,
        summary.mobile,
        record.updatedAt,
        record.foldVersion,
        JSON.stringify(foldPart(record)),
        record.lane ?? 'live',
      ],
    );
  }
}
