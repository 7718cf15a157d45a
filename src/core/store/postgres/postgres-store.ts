// The shared store: PostgreSQL, for any number of bridges behind one address.
// Every change is a transaction, committed (and so durable) when its promise
// resolves. Dedupe is a unique key; an inbox entry and an order are leased to
// one instance at a time (SELECT ... FOR UPDATE SKIP LOCKED, with a lease
// that expires, so that a killed instance's work is taken over); folding
// events and the worker's progress write different columns of an order, so
// neither overwrites the other. Instances are told of new work by
// LISTEN/NOTIFY, and poll besides.
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import { orderKey } from '../../order-event.ts';
import { applyEvent, foldPart, newOrderRecord, progressPart, type FoldPart, type OrderCounts, type OrderRecord, type OrderSummary, type ProgressPart } from '../../order-record.ts';
import { contactMatches, eraseOrder, inScope, orderMatches, phoneDigits, scrubText } from '../customer-data.ts';
import type {
  Adjustment,
  CustomerData,
  CustomerMatch,
  DeadLetter,
  DeliveryRedactor,
  ErasureReport,
  IntakeCommit,
  LedgerItem,
  LedgerStore,
  NewDeadLetter,
  OpenReport,
  OrderQuery,
  RecordKind,
  SaveResult,
  StoreStats,
} from '../ledger-store.ts';

interface OrderRow {
  key: string;
  platform: string;
  shop: string;
  order_id: string;
  updated_at: Date;
  due_at: Date | null;
  version: string;
  fold_version: string;
  fold: FoldPart;
  progress: ProgressPart;
}

const ORDER_COLUMNS = 'key, platform, shop, order_id, updated_at, due_at, version, fold_version, fold, progress';

function recordOf(row: OrderRow): OrderRecord {
  return {
    key: row.key,
    platform: row.platform,
    shop: row.shop,
    orderId: row.order_id,
    ...row.fold,
    ...row.progress,
    updatedAt: row.updated_at.toISOString(),
    dueAt: row.due_at?.toISOString() ?? null,
    version: Number(row.version),
    foldVersion: Number(row.fold_version),
  };
}

const summaryColumns = (record: OrderRecord) => ({
  orderName: record.snapshot.orderName,
  state: record.target?.state ?? 'new',
  reason: record.target?.reason ?? null,
  upstream: record.upstream.points,
  email: record.snapshot.customer.email,
  mobile: record.snapshot.customer.mobile,
});

interface InboxRow {
  key: string;
  aliases: string[];
  received_at: Date;
  entry: Pick<InboxEntry, 'delivery' | 'events'>;
  retry: EntryRetry | null;
}

const entryOf = (row: InboxRow): InboxEntry => ({ key: row.key, aliases: row.aliases, receivedAt: row.received_at.toISOString(), ...row.entry, retry: row.retry });

/** Advisory locks of loyalty-bridge live in their own class, away from other applications' numbers. */
const LOCK_CLASS = 1_819_435;

const TRANSACTION_ATTEMPTS = 5;
/** deadlock_detected, serialization_failure, and a new order's row created by another instance meanwhile. */
function worthAnotherTry(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '40P01' || code === '40001' || (code === '23505' && constraint === 'lb_orders_pkey');
}
const lockId = (name: string) => createHash('sha256').update(name).digest().readInt32BE(0);

export interface PostgresStoreOptions {
  pool: Pool;
  /** Runs the schema migrations (once, under their own lock). */
  migrate: () => Promise<void>;
  dedupeWindowMs?: number;
}

export class PostgresStore implements LedgerStore {
  readonly kind = 'postgres' as const;
  readonly #pool: Pool;
  readonly #migrate: () => Promise<void>;
  readonly #listeners: Array<() => void> = [];
  #listener: PoolClient | undefined;
  #closed = false;

  constructor({ pool, migrate }: PostgresStoreOptions) {
    this.#pool = pool;
    this.#migrate = migrate;
  }

  get pool(): Pool {
    return this.#pool;
  }

  async open(): Promise<OpenReport> {
    await this.#migrate();
    await this.#listen();
    return { tornInboxFiles: 0 };
  }

  /** One connection listens for other instances' news; a lost one is replaced. */
  async #listen(): Promise<void> {
    if (this.#closed) return;
    let client: PoolClient | undefined;
    const retry = () => {
      // Only for the listener of the moment: an error on a connection that close() gave back is over, and a second release would throw.
      if (client && this.#listener !== client) return;
      if (client) client.release(true);
      this.#listener = undefined;
      if (!this.#closed) setTimeout(() => void this.#listen(), 1_000).unref();
    };
    try {
      client = await this.#pool.connect();
      client.on('notification', () => this.#notifyLocal());
      // Every error is handled: one on a connection already given back (the database going away at shutdown) is not the process's end.
      client.on('error', retry);
      this.#listener = client;
      await client.query('LISTEN lb_work');
    } catch {
      retry();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#listener) {
      await this.#listener.query('UNLISTEN lb_work').catch(() => undefined);
      this.#listener.release();
      this.#listener = undefined;
    }
  }

  onWork(listener: () => void): void {
    this.#listeners.push(listener);
  }

  #notifyLocal(): void {
    for (const listener of this.#listeners) listener();
  }

  /**
   * One transaction, tried again (up to a few times) when PostgreSQL undoes
   * it for a reason that a second try removes: a deadlock (two instances'
   * commits passing the same counts rows in different orders), a
   * serialization failure, or two instances creating the same new order at
   * once (the second then folds into the first one's row). `run` starts from
   * what it reads, so it can run again.
   */
  async #transaction<T>(run: (client: PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        const result = await run(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (attempt >= TRANSACTION_ATTEMPTS || !worthAnotherTry(error)) throw error;
      } finally {
        client.release();
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }

  // --- The acknowledgement path.

  /**
   * One statement, one round trip, one commit: the dedupe keys, and the entry
   * only when every key was new. A copy being stored by another transaction
   * makes the key insert wait for its commit, so a duplicate is answered only
   * once the first copy is durable. When only some keys were new (a retry
   * under a new id), those are kept as seen: they belong to a delivery that
   * is stored.
   */
  async accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'> {
    const keys = [entry.key, ...entry.aliases];
    const { rows } = await this.#pool.query<{ stored: boolean }>(
      `WITH seen AS (INSERT INTO lb_seen (key, received_at) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING RETURNING key),
            stored AS (INSERT INTO lb_inbox (key, aliases, received_at, entry, retry, due_at)
                         SELECT $3, $4, $2, $5, NULL, $2 WHERE (SELECT count(*) FROM seen) = $6 RETURNING key)
       SELECT EXISTS (SELECT 1 FROM stored) AS stored, (SELECT count(pg_notify('lb_work', '')) FROM stored) AS notified`,
      [keys, entry.receivedAt, entry.key, entry.aliases, JSON.stringify({ ...(entry.delivery ? { delivery: entry.delivery } : {}), ...(entry.events ? { events: entry.events } : {}) }), keys.length],
    );
    if (!rows[0]?.stored) return 'duplicate';
    this.#notifyLocal();
    return 'accepted';
  }

  async hasSeen(key: string): Promise<boolean> {
    return ((await this.#pool.query('SELECT 1 FROM lb_seen WHERE key = $1', [key])).rowCount ?? 0) > 0;
  }

  async pruneSeen(before: Date): Promise<void> {
    await this.#pool.query('DELETE FROM lb_seen s WHERE s.received_at < $1 AND NOT EXISTS (SELECT 1 FROM lb_inbox i WHERE i.key = s.key OR s.key = ANY (i.aliases))', [before]);
  }

  // --- Intake.

  async claimInbox(owner: string, limit: number, leaseMs: number): Promise<InboxEntry[]> {
    const { rows } = await this.#pool.query<InboxRow>(
      `UPDATE lb_inbox SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
        WHERE key IN (SELECT key FROM lb_inbox WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())
                       ORDER BY due_at, received_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING key, aliases, received_at, entry, retry`,
      [owner, limit, leaseMs],
    );
    return rows.map(entryOf);
  }

  async inboxEntry(key: string): Promise<InboxEntry | undefined> {
    const { rows } = await this.#pool.query<InboxRow>('SELECT key, aliases, received_at, entry, retry FROM lb_inbox WHERE key = $1', [key]);
    return rows[0] && entryOf(rows[0]);
  }

  async nextInboxAt(): Promise<number | undefined> {
    const { rows } = await this.#pool.query<{ at: Date | null }>('SELECT min(due_at) AS at FROM lb_inbox WHERE lease_until IS NULL OR lease_until < now()');
    return rows[0]?.at?.getTime();
  }

  async deferInbox(key: string, retry: EntryRetry): Promise<void> {
    await this.#pool.query('UPDATE lb_inbox SET retry = $2, due_at = $3, lease_owner = NULL, lease_until = NULL WHERE key = $1', [key, JSON.stringify(retry), retry.retryAt]);
  }

  async commitIntake(commits: IntakeCommit[]): Promise<string[]> {
    const changed = await this.#transaction(async (client) => {
      const now = new Date().toISOString();
      const events = commits.flatMap((commit) => (commit.events ?? []).map((event) => ({ event, entryKey: commit.entryKey })));
      const keys = [...new Set(events.map(({ event }) => orderKey(event)))].sort();
      const records = new Map<string, OrderRecord>();
      if (keys.length > 0) {
        // Locked in key order, so two instances folding into the same orders never deadlock.
        const { rows } = await client.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key = ANY($1) ORDER BY key FOR UPDATE`, [keys]);
        for (const row of rows) records.set(row.key, recordOf(row));
      }
      const isNew = new Set<string>();
      for (const { event, entryKey } of events) {
        const key = orderKey(event);
        let record = records.get(key);
        if (!record) {
          record = newOrderRecord(event, now);
          records.set(key, record);
          isNew.add(key);
        }
        applyEvent(record, event, entryKey, now);
      }
      for (const record of records.values()) {
        if (!events.some(({ event }) => orderKey(event) === record.key)) continue;
        const summary = summaryColumns(record);
        if (isNew.has(record.key)) {
          await client.query(
            `INSERT INTO lb_orders (key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at, due_at, version, fold_version, fold, progress)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now(), 1, $12, $13, $14)`,
            [record.key, record.platform, record.shop, record.orderId, summary.orderName, summary.state, summary.reason, summary.upstream, summary.email, summary.mobile, record.updatedAt, record.foldVersion, JSON.stringify(foldPart(record)), JSON.stringify(progressPart(record))],
          );
        } else {
          await client.query(
            `UPDATE lb_orders SET order_name = $2, email = $3, mobile = $4, updated_at = GREATEST(updated_at, $5), due_at = now(), version = version + 1, fold_version = $6, fold = $7 WHERE key = $1`,
            [record.key, summary.orderName, summary.email, summary.mobile, record.updatedAt, record.foldVersion, JSON.stringify(foldPart(record))],
          );
        }
      }
      for (const commit of commits) {
        if (commit.deadLetter) await insertDeadLetter(client, commit.deadLetter);
        if (commit.shop) await putRecord(client, 'shop', `${commit.shop.platform}:${commit.shop.shop}`, commit.shop);
      }
      await client.query('DELETE FROM lb_inbox WHERE key = ANY($1)', [commits.map((commit) => commit.entryKey)]);
      if (keys.length > 0) await client.query('NOTIFY lb_work');
      return keys;
    });
    if (changed.length > 0) this.#notifyLocal();
    return changed;
  }

  // --- Orders.

  async getOrder(key: string): Promise<OrderRecord | undefined> {
    const { rows } = await this.#pool.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key = $1`, [key]);
    return rows[0] && recordOf(rows[0]);
  }

  async claimDue(owner: string, limit: number, leaseMs: number): Promise<OrderRecord[]> {
    const { rows } = await this.#pool.query<OrderRow>(
      `UPDATE lb_orders SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
        WHERE key IN (SELECT key FROM lb_orders WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())
                       ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING ${ORDER_COLUMNS}`,
      [owner, limit, leaseMs],
    );
    return rows.map(recordOf);
  }

  async saveProgress(record: OrderRecord, { owner, release, leaseMs }: { owner: string; release: boolean; leaseMs: number }): Promise<SaveResult> {
    const summary = summaryColumns(record);
    const { rows } = await this.#pool.query<{ fold_version: string; version: string }>(
      `UPDATE lb_orders SET progress = $3, state = $4, reason = $5, upstream = $6, updated_at = GREATEST(updated_at, $7), version = version + 1,
              due_at = CASE WHEN fold_version <> $8 THEN now() ELSE $9 END,
              lease_owner = CASE WHEN $10 THEN NULL ELSE lease_owner END,
              lease_until = CASE WHEN $10 THEN NULL ELSE now() + $11 * interval '1 millisecond' END
        WHERE key = $1 AND lease_owner = $2
        RETURNING fold_version, version`,
      [record.key, owner, JSON.stringify(progressPart(record)), summary.state, summary.reason, summary.upstream, record.updatedAt, record.foldVersion, record.dueAt, release, leaseMs],
    );
    const row = rows[0];
    if (!row) return 'lost';
    record.version = Number(row.version);
    return Number(row.fold_version) !== record.foldVersion ? 'refolded' : 'saved';
  }

  async updateProgress(key: string, change: (record: OrderRecord) => void): Promise<OrderRecord | undefined> {
    for (let waited = 0; ; waited += 50) {
      const updated = await this.#transaction(async (client) => {
        const { rows } = await client.query<OrderRow & { leased: boolean }>(`SELECT ${ORDER_COLUMNS}, (lease_until IS NOT NULL AND lease_until > now()) AS leased FROM lb_orders WHERE key = $1 FOR UPDATE`, [key]);
        const row = rows[0];
        if (!row) return null;
        // A worker holding the order would write its own progress over this change: wait for it to let go.
        if (row.leased && waited < 30_000) return 'busy' as const;
        const record = recordOf(row);
        change(record);
        record.dueAt = new Date().toISOString();
        const summary = summaryColumns(record);
        await client.query(`UPDATE lb_orders SET progress = $2, state = $3, reason = $4, upstream = $5, version = version + 1, due_at = $6 WHERE key = $1`, [
          key,
          JSON.stringify(progressPart(record)),
          summary.state,
          summary.reason,
          summary.upstream,
          record.dueAt,
        ]);
        await client.query('NOTIFY lb_work');
        return record;
      });
      if (updated === 'busy') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (updated) this.#notifyLocal();
      return updated ?? undefined;
    }
  }

  async nextDueAt(): Promise<number | undefined> {
    const { rows } = await this.#pool.query<{ at: Date | null }>('SELECT min(due_at) AS at FROM lb_orders WHERE due_at IS NOT NULL AND (lease_until IS NULL OR lease_until < now())');
    return rows[0]?.at?.getTime();
  }

  async claimLpOrderId(lpOrderId: string, key: string): Promise<string> {
    await this.#pool.query('INSERT INTO lb_lp_order_ids (lp_order_id, order_key) VALUES ($1, $2) ON CONFLICT DO NOTHING', [lpOrderId, key]);
    const { rows } = await this.#pool.query<{ order_key: string }>('SELECT order_key FROM lb_lp_order_ids WHERE lp_order_id = $1', [lpOrderId]);
    return rows[0]?.order_key ?? key;
  }

  async listOrders(query: OrderQuery): Promise<{ total: number; orders: OrderSummary[] }> {
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
    if (query.q) add((p) => `(order_id LIKE ${p} OR lower(order_name) LIKE ${p} OR lower(email) LIKE ${p})`, `%${query.q.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`);
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const dimensions = [query.state, query.platform, query.reason].filter(Boolean).length;
    const total =
      !query.q && !query.since && !query.until && !query.shop && dimensions <= 1
        ? await this.#countFromCounts(query)
        : Number((await this.#pool.query<{ count: string }>(`SELECT count(*) FROM lb_orders ${filter}`, values)).rows[0]?.count ?? 0);
    const { rows } = await this.#pool.query<{ key: string; platform: string; shop: string; order_id: string; order_name: string; state: string; reason: string | null; upstream: string; email: string | null; mobile: string | null; updated_at: Date }>(
      `SELECT key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at FROM lb_orders ${filter}
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
      })),
    };
  }

  async #countFromCounts(query: OrderQuery): Promise<number> {
    const column = query.state ? 'state' : query.platform ? 'platform' : query.reason ? 'reason' : undefined;
    const value = query.state ?? query.platform ?? query.reason;
    const { rows } = await this.#pool.query<{ total: string | null }>(`SELECT sum(count) AS total FROM lb_order_counts${column ? ` WHERE ${column} = $1` : ''}`, column ? [value] : []);
    return Number(rows[0]?.total ?? 0);
  }

  async countOrders(): Promise<OrderCounts> {
    const { rows } = await this.#pool.query<{ state: string; platform: string; reason: string; count: string }>('SELECT state, platform, reason, count FROM lb_order_counts WHERE count > 0');
    const counts: OrderCounts = { byState: {}, byPlatform: {}, skipped: {} };
    for (const row of rows) {
      const count = Number(row.count);
      counts.byState[row.state] = (counts.byState[row.state] ?? 0) + count;
      counts.byPlatform[row.platform] = (counts.byPlatform[row.platform] ?? 0) + count;
      if (row.state === 'skipped' && row.reason) counts.skipped[row.reason] = (counts.skipped[row.reason] ?? 0) + count;
    }
    return counts;
  }

  // --- Dead letters.

  async addDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    await insertDeadLetter(this.#pool, letter);
    return (await this.getDeadLetter(letter.id))!;
  }

  async updateDeadLetter(letter: DeadLetter): Promise<void> {
    await this.#pool.query('UPDATE lb_dead_letters SET letter = $2 WHERE id = $1', [letter.id, JSON.stringify(letter)]);
  }

  async removeDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const { rows } = await this.#pool.query<{ letter: DeadLetter }>('DELETE FROM lb_dead_letters WHERE id = $1 RETURNING letter', [id]);
    return rows[0]?.letter;
  }

  async getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    const { rows } = await this.#pool.query<{ letter: DeadLetter }>('SELECT letter FROM lb_dead_letters WHERE id = $1', [id]);
    return rows[0]?.letter;
  }

  async listDeadLetters(): Promise<DeadLetter[]> {
    return (await this.#pool.query<{ letter: DeadLetter }>('SELECT letter FROM lb_dead_letters ORDER BY created_at, id')).rows.map((row) => row.letter);
  }

  async countDeadLetters(): Promise<number> {
    return Number((await this.#pool.query<{ count: string }>('SELECT count(*) FROM lb_dead_letters')).rows[0]?.count ?? 0);
  }

  // --- Records.

  async getRecord<T>(kind: RecordKind, id: string): Promise<T | undefined> {
    return (await this.#pool.query<{ value: T }>('SELECT value FROM lb_records WHERE kind = $1 AND id = $2', [kind, id])).rows[0]?.value;
  }

  async putRecord<T>(kind: RecordKind, id: string, value: T): Promise<void> {
    await putRecord(this.#pool, kind, id, value);
  }

  async deleteRecord(kind: RecordKind, id: string): Promise<void> {
    await this.#pool.query('DELETE FROM lb_records WHERE kind = $1 AND id = $2', [kind, id]);
  }

  async listRecords<T>(kind: RecordKind): Promise<Array<{ id: string; value: T }>> {
    return (await this.#pool.query<{ id: string; value: T }>('SELECT id, value FROM lb_records WHERE kind = $1 ORDER BY id', [kind])).rows;
  }

  // --- Privacy.

  /** Orders that may be the customer's, narrowed in SQL and decided by the same test as the lowdb store's. */
  async #customerOrders(client: Pool | PoolClient, match: CustomerMatch, lock = false): Promise<OrderRecord[]> {
    const digits = match.phones.map(phoneDigits).filter((phone) => phone.length >= 7);
    const { rows } = await client.query<OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM lb_orders
        WHERE ($1::text IS NULL OR platform = $1) AND ($2::text IS NULL OR shop = $2)
          AND (lower(email) = ANY($3) OR order_id = ANY($4)
               OR (mobile IS NOT NULL AND EXISTS (SELECT 1 FROM unnest($5::text[]) d WHERE regexp_replace(mobile, '\\D', '', 'g') LIKE '%' || d OR d LIKE '%' || regexp_replace(mobile, '\\D', '', 'g'))))
        ORDER BY key${lock ? ' FOR UPDATE' : ''}`,
      [match.platform ?? null, match.shop ?? null, match.emails.map((email) => email.trim().toLowerCase()), match.orderIds, digits],
    );
    return rows.map(recordOf).filter((record) => orderMatches(record, match));
  }

  async #inboxInScope(client: Pool | PoolClient, match: CustomerMatch): Promise<InboxEntry[]> {
    const { rows } = await client.query<InboxRow>('SELECT key, aliases, received_at, entry, retry FROM lb_inbox ORDER BY key');
    return rows.map(entryOf).filter((entry) => (entry.delivery ? inScope(entry.delivery.platform, entry.delivery.shop, match) : (entry.events ?? []).some((event) => inScope(event.platform, event.shop, match))));
  }

  #entryIsAbout(entry: InboxEntry, match: CustomerMatch, redactor: DeliveryRedactor): boolean {
    if (entry.events?.some((event) => orderMatches({ ...event, snapshot: { customer: event.customer } } as unknown as OrderRecord, match))) return true;
    return Boolean(entry.delivery && redactor(entry.delivery).about);
  }

  #letterIsAbout(letter: DeadLetter, keys: Set<string>, match: CustomerMatch, redactor: DeliveryRedactor): boolean {
    if (letter.orderKey && keys.has(letter.orderKey)) return true;
    return Boolean(letter.delivery && inScope(letter.delivery.platform, letter.delivery.shop, match) && redactor(letter.delivery).about);
  }

  async exportCustomer(match: CustomerMatch, redactor: DeliveryRedactor): Promise<CustomerData> {
    const orders = await this.#customerOrders(this.#pool, match);
    const keys = new Set(orders.map((order) => order.key));
    const deadLetters = (await this.listDeadLetters()).filter((letter) => this.#letterIsAbout(letter, keys, match, redactor));
    const inbox = (await this.#inboxInScope(this.#pool, match)).filter((entry) => this.#entryIsAbout(entry, match, redactor));
    const adjustments = (await this.listRecords<Adjustment>('adjustment')).map(({ value }) => value).filter((adjustment) => contactMatches(adjustment.customer, match));
    const dataRequests = (await this.listRecords<{ platform: string; shop: string; customer: { email?: string; phone?: string } }>('data-request'))
      .map(({ value }) => value)
      .filter((request) => inScope(request.platform, request.shop, match) && contactMatches(request.customer, match));
    return { orders, deadLetters, inbox, adjustments, dataRequests };
  }

  async eraseCustomer(match: CustomerMatch, redactor: DeliveryRedactor, at: string): Promise<ErasureReport> {
    return this.#transaction(async (client) => {
      const report: ErasureReport = { orders: 0, deadLetters: 0, inbox: 0, records: 0 };
      const orders = await this.#customerOrders(client, match, true);
      for (const record of orders) {
        eraseOrder(record, at);
        await client.query('UPDATE lb_orders SET fold = $2, email = NULL, mobile = NULL, version = version + 1 WHERE key = $1', [record.key, JSON.stringify(foldPart(record))]);
      }
      report.orders = orders.length;
      const keys = new Set(orders.map((order) => order.key));
      const letters = (await client.query<{ letter: DeadLetter }>('SELECT letter FROM lb_dead_letters ORDER BY id FOR UPDATE')).rows.map((row) => row.letter);
      for (const letter of letters.filter((candidate) => this.#letterIsAbout(candidate, keys, match, redactor))) {
        const erased = { ...letter, reason: scrubText(letter.reason, match), ...(letter.delivery ? { delivery: redactor(letter.delivery).redacted } : {}) };
        await client.query('UPDATE lb_dead_letters SET letter = $2 WHERE id = $1', [letter.id, JSON.stringify(erased)]);
        report.deadLetters++;
      }
      for (const entry of (await this.#inboxInScope(client, match)).filter((candidate) => this.#entryIsAbout(candidate, match, redactor))) {
        const erased = {
          ...(entry.delivery ? { delivery: redactor(entry.delivery).redacted } : {}),
          ...(entry.events
            ? { events: entry.events.map((event) => (orderMatches({ ...event, snapshot: { customer: event.customer } } as unknown as OrderRecord, match) ? { ...event, customer: { name: null, email: null, mobile: null }, attributes: {}, landingSite: null } : event)) }
            : {}),
        };
        await client.query('UPDATE lb_inbox SET entry = $2 WHERE key = $1', [entry.key, JSON.stringify(erased)]);
        report.inbox++;
      }
      for (const { id, value } of (await client.query<{ id: string; value: Adjustment }>("SELECT id, value FROM lb_records WHERE kind = 'adjustment' FOR UPDATE")).rows) {
        if (!contactMatches(value.customer, match)) continue;
        // The request kept for a resend names the customer too: it goes, and with it the resend.
        await putRecord(client, 'adjustment', id, { ...value, customer: {}, reason: scrubText(value.reason, match), request: undefined });
        report.records++;
      }
      for (const { id, value } of (await client.query<{ id: string; value: { platform: string; shop: string; customer: { email?: string; phone?: string } } }>("SELECT id, value FROM lb_records WHERE kind = 'data-request' FOR UPDATE")).rows) {
        if (!inScope(value.platform, value.shop, match) || !contactMatches(value.customer, match)) continue;
        await client.query("DELETE FROM lb_records WHERE kind = 'data-request' AND id = $1", [id]);
        report.records++;
      }
      return report;
    });
  }

  async eraseShop(platform: string, shop: string): Promise<ErasureReport> {
    return this.#transaction(async (client) => {
      const prefix = `${platform}:${shop}:`;
      const orders = await client.query('DELETE FROM lb_orders WHERE platform = $1 AND shop = $2', [platform, shop]);
      await client.query("DELETE FROM lb_lp_order_ids WHERE starts_with(order_key, $1)", [prefix]);
      const letters = await client.query(
        "DELETE FROM lb_dead_letters WHERE (platform = $1 AND shop = $2) OR starts_with(coalesce(order_key, ''), $3) OR (letter->'delivery'->>'platform' = $1 AND letter->'delivery'->>'shop' = $2)",
        [platform, shop, prefix],
      );
      const inbox = await client.query(
        `DELETE FROM lb_inbox WHERE (entry->'delivery'->>'platform' = $1 AND entry->'delivery'->>'shop' = $2)
            OR EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(entry->'events', '[]'::jsonb)) e WHERE e->>'platform' = $1 AND e->>'shop' = $2)`,
        [platform, shop],
      );
      const records = await client.query("DELETE FROM lb_records WHERE value->>'platform' = $1 AND value->>'shop' = $2", [platform, shop]);
      return { orders: orders.rowCount ?? 0, deadLetters: letters.rowCount ?? 0, inbox: inbox.rowCount ?? 0, records: records.rowCount ?? 0 };
    });
  }

  // --- Coordination.

  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const client = await this.#pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [LOCK_CLASS, lockId(name)]);
      if (!rows[0]?.locked) return { ran: false };
      try {
        return { ran: true, value: await fn() };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, lockId(name)]);
      }
    } finally {
      client.release();
    }
  }

  async stats(): Promise<StoreStats> {
    const { rows } = await this.#pool.query<{ inbox: string; active: string }>('SELECT (SELECT count(*) FROM lb_inbox) AS inbox, (SELECT count(*) FROM lb_orders WHERE due_at IS NOT NULL) AS active');
    return { inboxBacklog: Number(rows[0]?.inbox ?? 0), activeOrders: Number(rows[0]?.active ?? 0) };
  }

  // --- Moving a ledger.

  async *exportAll(): AsyncGenerator<LedgerItem> {
    let after = '';
    for (;;) {
      const { rows } = await this.#pool.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM lb_orders WHERE key > $1 ORDER BY key LIMIT 1000`, [after]);
      for (const row of rows) yield { type: 'order', record: recordOf(row) };
      if (rows.length < 1000) break;
      after = rows.at(-1)!.key;
    }
    for (const row of (await this.#pool.query<InboxRow>('SELECT key, aliases, received_at, entry, retry FROM lb_inbox ORDER BY key')).rows) yield { type: 'inbox', entry: entryOf(row) };
    for (const row of (await this.#pool.query<{ key: string; received_at: Date }>('SELECT key, received_at FROM lb_seen ORDER BY key')).rows) yield { type: 'seen', key: row.key, receivedAt: row.received_at.toISOString() };
    for (const letter of await this.listDeadLetters()) yield { type: 'dead-letter', letter };
    for (const row of (await this.#pool.query<{ kind: RecordKind; id: string; value: unknown }>('SELECT kind, id, value FROM lb_records ORDER BY kind, id')).rows) yield { type: 'record', kind: row.kind, id: row.id, value: row.value };
    for (const row of (await this.#pool.query<{ lp_order_id: string; order_key: string }>('SELECT lp_order_id, order_key FROM lb_lp_order_ids ORDER BY lp_order_id')).rows) yield { type: 'lp-order-id', lpOrderId: row.lp_order_id, orderKey: row.order_key };
  }

  /** Upserts, so that a second import changes nothing; an order changed here since (a higher version) is kept as it is. */
  /**
   * Autovacuum analyses a table only some time after a bulk load; until then
   * the planner believes it empty and counts (the status page's) scan a
   * million rows instead of using their partial index.
   */
  async finishImport(): Promise<void> {
    await this.#pool.query(`ANALYZE ${ANALYZED.join(', ')}`);
  }

  async importItems(items: LedgerItem[]): Promise<void> {
    await this.#transaction(async (client) => {
      // The last copy of an order in the batch wins; one statement cannot touch a row twice.
      const orders = new Map<string, OrderRecord>();
      for (const item of items) if (item.type === 'order') orders.set(item.record.key, item.record);
      const all = [...orders.values()];
      for (let start = 0; start < all.length; start += IMPORT_BATCH) await importOrders(client, all.slice(start, start + IMPORT_BATCH));
      for (const item of items) {
        switch (item.type) {
          case 'order':
            // Orders go in batches below: one statement for hundreds of rows.
            break;
          case 'inbox':
            await client.query('INSERT INTO lb_inbox (key, aliases, received_at, entry, retry, due_at) VALUES ($1, $2, $3, $4, $5, $3) ON CONFLICT (key) DO NOTHING', [
              item.entry.key,
              item.entry.aliases,
              item.entry.receivedAt,
              JSON.stringify({ ...(item.entry.delivery ? { delivery: item.entry.delivery } : {}), ...(item.entry.events ? { events: item.entry.events } : {}) }),
              item.entry.retry ? JSON.stringify(item.entry.retry) : null,
            ]);
            await client.query('INSERT INTO lb_seen (key, received_at) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING', [[item.entry.key, ...item.entry.aliases], item.entry.receivedAt]);
            break;
          case 'seen':
            await client.query('INSERT INTO lb_seen (key, received_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [item.key, item.receivedAt]);
            break;
          case 'dead-letter':
            await insertDeadLetter(client, item.letter);
            break;
          case 'record':
            await putRecord(client, item.kind, item.id, item.value);
            break;
          case 'lp-order-id':
            await client.query('INSERT INTO lb_lp_order_ids (lp_order_id, order_key) VALUES ($1, $2) ON CONFLICT DO NOTHING', [item.lpOrderId, item.orderKey]);
            break;
        }
      }
      await client.query('NOTIFY lb_work');
    });
    this.#notifyLocal();
  }
}

const IMPORT_BATCH = 1_000;

const ANALYZED = ['lb_orders', 'lb_inbox', 'lb_seen', 'lb_lp_order_ids', 'lb_dead_letters', 'lb_records'];

/** Copies orders in, newer versions over older ones and never the other way (moving a ledger twice changes nothing). */
async function importOrders(client: PoolClient, records: OrderRecord[]): Promise<void> {
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
    };
  });
  await client.query(
    `INSERT INTO lb_orders (key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at, due_at, version, fold_version, fold, progress)
     SELECT key, platform, shop, order_id, order_name, state, reason, upstream, email, mobile, updated_at, due_at, version, fold_version, fold, progress
       FROM jsonb_to_recordset($1::jsonb) AS r(key text, platform text, shop text, order_id text, order_name text, state text, reason text, upstream text, email text, mobile text,
            updated_at timestamptz, due_at timestamptz, version bigint, fold_version bigint, fold jsonb, progress jsonb)
     ON CONFLICT (key) DO UPDATE SET order_name = EXCLUDED.order_name, state = EXCLUDED.state, reason = EXCLUDED.reason, upstream = EXCLUDED.upstream,
       email = EXCLUDED.email, mobile = EXCLUDED.mobile, updated_at = EXCLUDED.updated_at, due_at = EXCLUDED.due_at, version = EXCLUDED.version,
       fold_version = EXCLUDED.fold_version, fold = EXCLUDED.fold, progress = EXCLUDED.progress
     WHERE lb_orders.version < EXCLUDED.version`,
    [JSON.stringify(rows)],
  );
}

async function insertDeadLetter(client: Pool | PoolClient, letter: NewDeadLetter): Promise<void> {
  const created: DeadLetter = { retries: 0, ...letter, createdAt: letter.createdAt ?? new Date().toISOString() };
  await client.query('INSERT INTO lb_dead_letters (id, created_at, platform, shop, order_key, letter) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING', [
    created.id,
    created.createdAt,
    created.platform ?? null,
    created.shop ?? null,
    created.orderKey ?? null,
    JSON.stringify(created),
  ]);
}

async function putRecord(client: Pool | PoolClient, kind: RecordKind, id: string, value: unknown): Promise<void> {
  await client.query('INSERT INTO lb_records (kind, id, value, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (kind, id) DO UPDATE SET value = EXCLUDED.value, updated_at = now()', [kind, id, JSON.stringify(value)]);
}
