// A customer's personal data, found and exported or erased from everything
// the store keeps (orders, dead letters, the inbox, adjustments, privacy
// requests), and everything of one shop erased. Candidates are narrowed in
// SQL and decided by the same tests as the lowdb store's (customer-data.ts).
import type { InboxEntry, StoredDelivery } from '../../delivery.ts';
import { foldPart, type OrderRecord } from '../../order-record.ts';
import { eraseOrder, inScope, orderMatches, internationalPhone, phoneSuffix } from '../customer-data.ts';
import {
  adjustmentIsAbout,
  dataRequestIsAbout,
  erasedAdjustment,
  erasedLetter,
  letterIsAbout,
  type DataRequest,
} from '../customer-records.ts';
import { entryIsAbout, erasedEntry } from '../entry-erasure.ts';
import type {
  Adjustment,
  CustomerData,
  CustomerMatch,
  DeadLetter,
  DeliveryRedactor,
  DeliveryTrimmer,
  ErasureReport,
} from '../ledger-store.ts';
import type pg from 'pg';
import type { PgDatabase, Queryable } from './database.ts';
import { listDeadLetters } from './dead-letters.ts';
import { listRecords, putRecord } from './records.ts';
import { entryOf, entryPayload, INBOX_COLUMNS, ORDER_COLUMNS, recordOf, type InboxRow, type OrderRow } from './rows.ts';

async function customerOrders(client: Queryable, match: CustomerMatch, lock = false): Promise<OrderRecord[]> {
  const digits = match.phones.map(phoneSuffix).filter((phone) => phone.length === 7);
  const { rows } = await client.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM lb_orders
      WHERE ($1::text IS NULL OR platform = $1) AND ($2::text IS NULL OR shop = $2)
        AND (lower(email) = ANY($3) OR order_id = ANY($4)
             OR (mobile IS NOT NULL AND EXISTS (SELECT 1 FROM unnest($5::text[]) d WHERE regexp_replace(mobile, '\\D', '', 'g') LIKE '%' || d)))
      ORDER BY key${lock ? ' FOR UPDATE' : ''}`,
    [
      match.platform ?? null,
      match.shop ?? null,
      match.emails.map((email) => email.trim().toLowerCase()),
      match.orderIds,
      digits,
    ],
  );
  return rows.map(recordOf).filter((record) => orderMatches(record, match));
}

/**
 * A customer's orders by one identifier, through its index: lower(email) (lb_orders_email), or the phone as kept
 * in E.164 (lb_orders_mobile); the storefront's count, which needs neither the inbox nor a scan of every phone.
 */
export async function ordersOfCustomer(
  client: Queryable,
  customer: { email: string } | { mobile: string },
): Promise<OrderRecord[]> {
  const [where, value] =
    'email' in customer
      ? ['lower(email) = $1', customer.email.trim().toLowerCase()]
      : ['mobile = $1', internationalPhone(customer.mobile) ?? customer.mobile.trim()];
  const { rows } = await client.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE ${where} ORDER BY key`, [
    value,
  ]);
  return rows.map(recordOf);
}

async function inboxInScope(client: Queryable, match: CustomerMatch): Promise<InboxEntry[]> {
  const { rows } = await client.query<InboxRow>(`SELECT ${INBOX_COLUMNS} FROM lb_inbox ORDER BY key`);
  return rows
    .map(entryOf)
    .filter((entry) =>
      entry.delivery
        ? inScope(entry.delivery.platform, entry.delivery.shop, match)
        : (entry.events ?? []).some((event) => inScope(event.platform, event.shop, match)),
    );
}

export async function exportCustomer(
  db: PgDatabase,
  match: CustomerMatch,
  redactor: DeliveryRedactor,
): Promise<CustomerData> {
  const orders = await customerOrders(db.reader, match);
  const keys = new Set(orders.map((order) => order.key));
  const deadLetters = (await listDeadLetters(db)).filter((letter) => letterIsAbout(letter, keys, match, redactor));
  const inbox = (await inboxInScope(db.reader, match)).filter((entry) => entryIsAbout(entry, match, redactor));
  const adjustments = (await listRecords<Adjustment>(db, 'adjustment'))
    .map(({ value }) => value)
    .filter((adjustment) => adjustmentIsAbout(adjustment, match));
  const dataRequests = (await listRecords<DataRequest>(db, 'data-request'))
    .map(({ value }) => value)
    .filter((request) => dataRequestIsAbout(request, match));
  return { orders, deadLetters, inbox, adjustments, dataRequests };
}

/**
 * The customer's orders erased, but those in `done`; returns them as they were (their contact, for scrubbing
 * text). Locked in key order, as intake's step locks them.
 */
async function eraseOrders(client: Queryable, match: CustomerMatch, at: string, done: ReadonlySet<string> = new Set()) {
  const orders = (await customerOrders(client, match, true)).filter((record) => !done.has(record.key));
  const before = orders.map((record) => structuredClone(record));
  for (const record of orders) {
    eraseOrder(record, at);
    await client.query(
      'UPDATE lb_orders SET fold = $2, email = NULL, mobile = NULL, version = version + 1 WHERE key = $1',
      [record.key, JSON.stringify(foldPart(record))],
    );
  }
  return before;
}

/**
 * The waiting entries about the customer rewritten, each read again under its row lock: as another erasure or
 * intake's step left it, if either got there first. Each records what this erasure reached, for the step of an
 * intake that read it before (entry-erasure.ts).
 */
async function eraseInbox(client: Queryable, match: CustomerMatch, redactor: DeliveryRedactor, at: string) {
  const candidates = (await inboxInScope(client, match)).filter((entry) => entryIsAbout(entry, match, redactor));
  if (candidates.length === 0) return 0;
  const { rows } = await client.query<InboxRow>(
    `SELECT ${INBOX_COLUMNS} FROM lb_inbox WHERE key = ANY($1) ORDER BY key FOR UPDATE`,
    [candidates.map((entry) => entry.key)],
  );
  let erased = 0;
  for (const entry of rows.map(entryOf)) {
    const after = erasedEntry(entry, match, redactor, at);
    if (!after) continue;
    await client.query('UPDATE lb_inbox SET entry = $2 WHERE key = $1', [
      entry.key,
      JSON.stringify(entryPayload(after)),
    ]);
    erased++;
  }
  return erased;
}

async function eraseLetters(
  client: Queryable,
  orders: OrderRecord[],
  match: CustomerMatch,
  redactor: DeliveryRedactor,
): Promise<number> {
  const keys = new Set(orders.map((order) => order.key));
  const theirs = orders.flatMap((record) => [record.snapshot.customer.email, record.snapshot.customer.mobile]);
  const letters = (
    await client.query<{ letter: DeadLetter }>('SELECT letter FROM lb_dead_letters ORDER BY id FOR UPDATE')
  ).rows.map((row) => row.letter);
  let erased = 0;
  for (const letter of letters.filter((candidate) => letterIsAbout(candidate, keys, match, redactor))) {
    const after = erasedLetter(letter, match, theirs, redactor);
    await client.query('UPDATE lb_dead_letters SET letter = $2 WHERE id = $1', [letter.id, JSON.stringify(after)]);
    erased++;
  }
  return erased;
}

/** The customer's adjustments (kept, without them) and data requests (gone); returns how many of each. */
async function eraseRecords(client: Queryable, db: PgDatabase, match: CustomerMatch) {
  let adjustments = 0;
  let requests = 0;
  for (const { id, value } of (
    await client.query<{ id: string; value: Adjustment }>(
      "SELECT id, value FROM lb_records WHERE kind = 'adjustment' FOR UPDATE",
    )
  ).rows) {
    if (!adjustmentIsAbout(value, match)) continue;
    await putRecord(client, db.secrets, 'adjustment', id, erasedAdjustment(value, match));
    adjustments++;
  }
  for (const { id, value } of (
    await client.query<{ id: string; value: DataRequest }>(
      "SELECT id, value FROM lb_records WHERE kind = 'data-request' FOR UPDATE",
    )
  ).rows) {
    if (!dataRequestIsAbout(value, match)) continue;
    await client.query("DELETE FROM lb_records WHERE kind = 'data-request' AND id = $1", [id]);
    requests++;
  }
  return { adjustments, requests };
}

export function eraseCustomer(
  db: PgDatabase,
  match: CustomerMatch,
  redactor: DeliveryRedactor,
  at: string,
): Promise<ErasureReport> {
  return db.transaction(async (client) => {
    // The orders, then the inbox, then the orders again (issue 64): a step of intake that committed between the
    // first two took its entry out of the inbox before it was read here, and its orders are found the second time;
    // one that takes its entry after the inbox was rewritten waits for this erasure, and erases what it folds. The
    // orders come first, as intake's step locks them before its entries: the two never wait on each other in a circle.
    const orders = await eraseOrders(client, match, at);
    const inbox = await eraseInbox(client, match, redactor, at);
    orders.push(...(await eraseOrders(client, match, at, new Set(orders.map((order) => order.key)))));
    const deadLetters = await eraseLetters(client, orders, match, redactor);
    const { adjustments, requests } = await eraseRecords(client, db, match);
    return { orders: orders.length, deadLetters, inbox, records: adjustments + requests, adjustments };
  });
}

/** Rows trimmed per transaction: the inbox's claims and intake wait on a batch's locks, never on the whole trim. */
const TRIM_BATCH = 200;

/**
 * Rewrites the kept deliveries of dead letters and of the inbox through trim,
 * a batch at a time in key order. A row locked by another transaction at that
 * moment (a claim being written) is passed over and stays whole: an inbox
 * entry goes once translated, and becomes a trimmed dead letter if it cannot
 * be (intake.ts).
 */
export async function trimDeliveries(
  db: PgDatabase,
  trim: DeliveryTrimmer,
): Promise<{ inbox: number; deadLetters: number }> {
  const deadLetters = await trimInBatches<{ id: string; letter: DeadLetter }>(
    db,
    "SELECT id, letter FROM lb_dead_letters WHERE letter ? 'delivery' AND id > $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED",
    (row) => row.id,
    async (client, { id, letter }) => {
      const delivery = letter.delivery && trim(letter.delivery);
      if (!delivery) return false;
      await client.query('UPDATE lb_dead_letters SET letter = $2 WHERE id = $1', [
        id,
        JSON.stringify({ ...letter, delivery }),
      ]);
      return true;
    },
  );
  const inbox = await trimInBatches<{ key: string; entry: { delivery?: StoredDelivery } }>(
    db,
    "SELECT key, entry FROM lb_inbox WHERE entry ? 'delivery' AND key > $1 ORDER BY key LIMIT $2 FOR UPDATE SKIP LOCKED",
    (row) => row.key,
    async (client, { key, entry }) => {
      const delivery = entry.delivery && trim(entry.delivery);
      if (!delivery) return false;
      await client.query('UPDATE lb_inbox SET entry = $2 WHERE key = $1', [
        key,
        JSON.stringify({ ...entry, delivery }),
      ]);
      return true;
    },
  );
  return { inbox, deadLetters };
}

async function trimInBatches<Row extends pg.QueryResultRow>(
  db: PgDatabase,
  select: string,
  keyOf: (row: Row) => string,
  rewrite: (client: Queryable, row: Row) => Promise<boolean>,
): Promise<number> {
  let after = '';
  let changed = 0;
  for (;;) {
    const batch = await db.transaction(async (client) => {
      const rows = (await client.query<Row>(select, [after, TRIM_BATCH])).rows;
      let done = 0;
      for (const row of rows) if (await rewrite(client, row)) done++;
      return { rows, done };
    });
    changed += batch.done;
    if (batch.rows.length < TRIM_BATCH) return changed;
    after = keyOf(batch.rows[batch.rows.length - 1]!);
  }
}

export function eraseShop(db: PgDatabase, platform: string, shop: string, keyPrefix?: string): Promise<ErasureReport> {
  return db.transaction(async (client) => {
    // Whole shops: an order key of this shop is the prefix and an order id, never another shop whose name starts the same (example.com:8443).
    const prefix = `${platform}:${shop}:`;
    // The shop's orders locked first and its waiting entries taken next, in key order, as intake's step takes them:
    // a step folding one of those entries has committed before the entry is taken here (and what it folded is
    // deleted below), or finds it gone and folds nothing.
    await client.query('SELECT 1 FROM lb_orders WHERE platform = $1 AND shop = $2 ORDER BY key FOR UPDATE', [
      platform,
      shop,
    ]);
    const inbox = await client.query(
      `DELETE FROM lb_inbox WHERE key IN (
         SELECT key FROM lb_inbox
          WHERE (entry->'delivery'->>'platform' = $1 AND entry->'delivery'->>'shop' = $2)
             OR EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(entry->'events', '[]'::jsonb)) e WHERE e->>'platform' = $1 AND e->>'shop' = $2)
          ORDER BY key FOR UPDATE)`,
      [platform, shop],
    );
    const orders = await client.query('DELETE FROM lb_orders WHERE platform = $1 AND shop = $2', [platform, shop]);
    await client.query(
      "DELETE FROM lb_lp_order_ids WHERE starts_with(order_key, $1) AND strpos(substr(order_key, length($1) + 1), ':') = 0",
      [prefix],
    );
    const letters = await client.query(
      `DELETE FROM lb_dead_letters
        WHERE (platform = $1 AND shop = $2)
           OR (starts_with(coalesce(order_key, ''), $3) AND strpos(substr(order_key, length($3) + 1), ':') = 0)
           OR (letter->'delivery'->>'platform' = $1 AND letter->'delivery'->>'shop' = $2)`,
      [platform, shop, prefix],
    );
    const records = await client.query<{ kind: string }>(
      "DELETE FROM lb_records WHERE value->>'platform' = $1 AND value->>'shop' = $2 RETURNING kind",
      [platform, shop],
    );
    // The keys that name the shop; those of entries still waiting went with them above.
    // A key of an entry still waiting stays (another store's whose name this one starts, example.com:8443): the inbox
    // is keyed by it too, and a repeat that passed lb_seen would fail the batch it came in with.
    if (keyPrefix)
      await client.query(
        `DELETE FROM lb_seen s WHERE starts_with(s.key, $1)
            AND NOT EXISTS (SELECT 1 FROM lb_inbox i WHERE i.key = s.key OR s.key = ANY (i.aliases))`,
        [keyPrefix],
      );
    return {
      orders: orders.rowCount ?? 0,
      deadLetters: letters.rowCount ?? 0,
      inbox: inbox.rowCount ?? 0,
      records: records.rowCount ?? 0,
      adjustments: records.rows.filter((row) => row.kind === 'adjustment').length,
    };
  });
}
