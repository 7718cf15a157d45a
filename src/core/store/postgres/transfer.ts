// Moving a ledger: everything the store holds, one item at a time (to lowdb
// or another database), and items copied in, so that copying twice changes
// nothing.
import type { OrderRecord } from '../../order-record.ts';
import { foldPart, progressPart } from '../../order-record.ts';
import type { LedgerItem, RecordKind } from '../ledger-store.ts';
import type { PgDatabase, Queryable } from './database.ts';
import { insertDeadLetter, listDeadLetters } from './dead-letters.ts';
import { exportedRecord, putRecord } from './records.ts';
import {
  entryOf,
  entryPayload,
  INBOX_COLUMNS,
  ORDER_COLUMNS,
  recordOf,
  summaryColumns,
  type InboxRow,
  type OrderRow,
} from './rows.ts';

const PAGE = 1_000;
const IMPORT_BATCH = 1_000;
const ANALYZED = ['lb_orders', 'lb_inbox', 'lb_seen', 'lb_lp_order_ids', 'lb_dead_letters', 'lb_records'];

export async function* exportAll(db: PgDatabase): AsyncGenerator<LedgerItem> {
  // Orders by pages: a million rows are never held at once.
  for (let after = ''; ;) {
    const { rows } = await db.query<OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key > $1 ORDER BY key LIMIT ${PAGE}`,
      [after],
    );
    for (const row of rows) yield { type: 'order', record: recordOf(row) };
    if (rows.length < PAGE) break;
    after = rows.at(-1)!.key;
  }
  for (const row of (await db.query<InboxRow>(`SELECT ${INBOX_COLUMNS} FROM lb_inbox ORDER BY key`)).rows)
    yield { type: 'inbox', entry: entryOf(row) };
  for (const row of (
    await db.query<{ key: string; received_at: Date }>('SELECT key, received_at FROM lb_seen ORDER BY key')
  ).rows)
    yield { type: 'seen', key: row.key, receivedAt: row.received_at.toISOString() };
  for (const letter of await listDeadLetters(db)) yield { type: 'dead-letter', letter };
  for (const row of (
    await db.query<{ kind: RecordKind; id: string; value: unknown }>(
      'SELECT kind, id, value FROM lb_records ORDER BY kind, id',
    )
  ).rows)
    yield { type: 'record', kind: row.kind, id: row.id, value: exportedRecord(db, row.kind, row.id, row.value) };
  for (const row of (
    await db.query<{ lp_order_id: string; order_key: string }>(
      'SELECT lp_order_id, order_key FROM lb_lp_order_ids ORDER BY lp_order_id',
    )
  ).rows)
    yield { type: 'lp-order-id', lpOrderId: row.lp_order_id, orderKey: row.order_key };
}

/** Upserts, so that a second import changes nothing; an order changed here since (a higher version) is kept as it is. */
export function importItems(db: PgDatabase, items: LedgerItem[]): Promise<void> {
  return db.transaction(async (client) => {
    // The last copy of an order in the batch wins; one statement cannot touch a row twice.
    const orders = new Map<string, OrderRecord>();
    for (const item of items) if (item.type === 'order') orders.set(item.record.key, item.record);
    const all = [...orders.values()];
    for (let start = 0; start < all.length; start += IMPORT_BATCH)
      await importOrders(client, all.slice(start, start + IMPORT_BATCH));
    for (const item of items) {
      switch (item.type) {
        case 'order':
          // Orders went in batches above: one statement for hundreds of rows.
          break;
        case 'inbox':
          await client.query(
            'INSERT INTO lb_inbox (key, aliases, received_at, entry, retry, due_at) VALUES ($1, $2, $3, $4, $5, $3) ON CONFLICT (key) DO NOTHING',
            [
              item.entry.key,
              item.entry.aliases,
              item.entry.receivedAt,
              JSON.stringify(entryPayload(item.entry)),
              item.entry.retry ? JSON.stringify(item.entry.retry) : null,
            ],
          );
          await client.query(
            'INSERT INTO lb_seen (key, received_at) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING',
            [[item.entry.key, ...item.entry.aliases], item.entry.receivedAt],
          );
          break;
        case 'seen':
          await client.query('INSERT INTO lb_seen (key, received_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
            item.key,
            item.receivedAt,
          ]);
          break;
        case 'dead-letter':
          await insertDeadLetter(client, item.letter);
          break;
        case 'record':
          await putRecord(client, db.secrets, item.kind, item.id, item.value, { copied: true });
          break;
        case 'lp-order-id':
          await client.query(
            'INSERT INTO lb_lp_order_ids (lp_order_id, order_key) VALUES ($1, $2) ON CONFLICT DO NOTHING',
            [item.lpOrderId, item.orderKey],
          );
          break;
      }
    }
    await client.query('NOTIFY lb_work');
  });
}

/**
 * Autovacuum analyses a table only some time after a bulk load; until then
 * the planner believes it empty and counts (the status page's) scan a
 * million rows instead of using their partial index.
 */
export async function finishImport(db: PgDatabase): Promise<void> {
  await db.query(`ANALYZE ${ANALYZED.join(', ')}`);
}

/** Copies orders in, newer versions over older ones and never the other way (moving a ledger twice changes nothing). */
async function importOrders(client: Queryable, records: OrderRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map((record) => {
    const summary = summaryColumns(record);
    return {
      key: record.key,
      platform: record.platform,
      shop: record.shop,
      order_id: record.orderId,
      order_name: summary.orderName,
      state: summary.state,
      reason: summary.reason,
      upstream: summary.upstream,
      email: summary.email,
      mobile: summary.mobile,
      updated_at: record.updatedAt,
      due_at: record.dueAt ?? null,
      version: record.version ?? 0,
      fold_version: record.foldVersion ?? 0,
      fold: foldPart(record),
      progress: progressPart(record),
      lane: record.lane ?? 'live',
    };
  });
  await client.query(
    `INSERT INTO lb_orders (key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at, due_at, version, fold_version, fold, progress, lane)
     SELECT key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at, due_at, version, fold_version, fold, progress, lane
       FROM jsonb_to_recordset($1::jsonb) AS r(key text, platform text, shop text, order_id text, order_name text, state text, reason text, upstream text, email text, mobile text,
            updated_at timestamptz, due_at timestamptz, version bigint, fold_version bigint, fold jsonb, progress jsonb, lane text)
     ON CONFLICT (key) DO UPDATE SET order_name = EXCLUDED.order_name, state = EXCLUDED.state, reason = EXCLUDED.reason, upstream = EXCLUDED.upstream,
       email = EXCLUDED.email, mobile = EXCLUDED.mobile, updated_at = EXCLUDED.updated_at, due_at = EXCLUDED.due_at, version = EXCLUDED.version,
       fold_version = EXCLUDED.fold_version, fold = EXCLUDED.fold, progress = EXCLUDED.progress, lane = EXCLUDED.lane
     WHERE lb_orders.version < EXCLUDED.version`,
    [JSON.stringify(rows)],
  );
}
