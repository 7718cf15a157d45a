// The PostgreSQL store under the concurrency it meets when several bridges
// share it (issue 17, items 8, 9, 12 and 13), against a real server. Each
// case reproduces a way the store once failed: deadlocks between orders
// moving in opposite directions, every new order queueing on one counts row,
// a prune that read the inbox once per expired key, an exclusive run that held
// the pool's only connection, and a NOTIFY (and so a serialized commit) for
// every acknowledgement.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { PRUNE_SEEN_SQL } from '../../src/core/store/postgres/inbox.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { foldEvents, freshStore, testEntry, type OpenedTestStore } from '../helpers/postgres-store.ts';
import type { TestDatabase } from '../helpers/postgres.ts';

let opened: OpenedTestStore & { database: TestDatabase };
beforeAll(async () => {
  if (postgresAvailable()) opened = await freshStore({ poolSize: 4 });
});
afterAll(async () => {
  if (postgresAvailable()) await opened.close();
});

let sequence = 0;
const nextOrderId = () => String(910_000 + ++sequence);

async function withClient<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: opened.database.url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgresAvailable())('the PostgreSQL store under concurrency', () => {
  it('saves thousands of changes of orders moving between new and skipped in opposite directions without a deadlock, and counts them right', async () => {
    const { store } = opened;
    const platform = 'deadlock';
    const folded = await foldEvents(
      store,
      Array.from({ length: 4 }, () => orderEvent({ platform, orderId: nextOrderId(), facts: ['placed'] })),
    );
    const claimed = (await store.claimDue('saver', 100, 600_000)).filter((record) => record.platform === platform);
    expect(claimed).toHaveLength(folded.length);
    const move = (record: OrderRecord, skipped: boolean) => {
      record.target = skipped ? { state: 'skipped', reason: 'test order' } : { state: 'new' };
      return store.saveProgress(record, { owner: 'saver', release: false, leaseMs: 600_000 });
    };
    // Half the orders go new -> skipped while the other half go skipped -> new, on as many connections.
    const rounds = 1_000;
    for (let round = 0; round < rounds; round++) {
      const results = await Promise.all(claimed.map((record, i) => move(record, (round + i) % 2 === 0)));
      expect(results.every((result) => result === 'saved')).toBe(true);
    }
    const counts = await store.countOrders();
    expect(counts.byPlatform[platform]).toBe(4);
    const listed = await store.listOrders({ platform, page: 1, limit: 10 });
    expect(listed.orders.map((order) => order.state).sort()).toEqual(['new', 'new', 'skipped', 'skipped']);
    expect((await store.listOrders({ state: 'skipped', page: 1, limit: 1 })).total).toBe(2);
  }, 120_000);

  it('creates a new order while another transaction holds a new order of its own uncommitted: no shared counts row to wait on', async () => {
    const { store } = opened;
    await withClient(async (blocker) => {
      await blocker.query('BEGIN');
      // What a commit of a new order does to the ledger, left open.
      await blocker.query(
        `INSERT INTO lb_orders (key, platform, shop, order_id, updated_at, fold, progress) VALUES ('testshop:shop-1:held-open', 'testshop', 'shop-1', 'held-open', now(), '{}', '{}')`,
      );
      try {
        const folding = foldEvents(store, [orderEvent({ orderId: nextOrderId(), facts: ['placed'] })]).then(
          () => 'folded' as const,
        );
        // Whichever comes first: the fold finishing, or a backend of this database waiting on a lock.
        const waiting = (async () => {
          for (;;) {
            // A shared counts row would be waited on as the transaction holding it (transactionid) or as its tuple; a
            // relation lock would serialize as well. Not counted: the database-wide lock every committing NOTIFY takes
            // (wait_event 'object', PostgreSQL's async.c), which two commits of this store's pool may briefly queue on
            // under load: it is not a row, and group commit is what keeps it rare (CI saw one such wait once).
            const { rows } = await blocker.query<{ query: string; wait_event: string; backend_type: string }>(
              `SELECT query, wait_event, backend_type FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple', 'relation')`,
            );
            // What waited, and on what: the failure says which statement, for the next reader.
            if (rows.length > 0)
              return `waited on a lock: ${rows.map((row) => `${row.backend_type} ${row.wait_event}: ${row.query}`).join('; ')}`;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        expect(await Promise.race([folding, waiting])).toBe('folded');
      } finally {
        await blocker.query('ROLLBACK');
      }
    });
  });

  it('prunes expired dedupe keys with work linear in keys and entries, not their product, and keeps the keys of entries still in the inbox', async () => {
    const { store } = opened;
    const old = new Date(Date.now() - 30 * 86_400_000);
    await withClient(async (client) => {
      await client.query(
        "INSERT INTO lb_seen (key, received_at) SELECT 'expired-' || n, $1 FROM generate_series(1, 2000) n",
        [old],
      );
      await client.query(
        `INSERT INTO lb_inbox (key, aliases, received_at, entry, due_at)
           SELECT 'kept-' || n, ARRAY['kept-alias-' || n], $1, '{}', now() + interval '1 day' FROM generate_series(1, 500) n`,
        [old],
      );
      await client.query(
        "INSERT INTO lb_seen (key, received_at) SELECT k, $1 FROM generate_series(1, 500) n, LATERAL (VALUES ('kept-' || n), ('kept-alias-' || n)) AS v(k)",
        [old],
      );
      await client.query('ANALYZE lb_seen, lb_inbox');
      // The store's own statement, planned and run on this data, and undone.
      await client.query('BEGIN');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${PRUNE_SEEN_SQL}`,
        [new Date()],
      );
      await client.query('ROLLBACK');
      // Rows that plan nodes reading the inbox produced, over all their loops: a join that goes through the inbox once per expired key makes millions.
      const inboxRows = onlyFrom(rows[0]!['QUERY PLAN'][0]!.Plan, 'lb_inbox', 'lb_seen').reduce(
        (sum, node) => sum + node['Actual Rows'] * node['Actual Loops'],
        0,
      );
      expect(inboxRows).toBeLessThanOrEqual(4 * (3_000 + 1_000));
    });
    await store.pruneSeen(new Date());
    expect(await store.hasSeen('expired-7')).toBe(false);
    expect(await store.hasSeen('kept-7')).toBe(true);
    expect(await store.hasSeen('kept-alias-7')).toBe(true);
    await withClient((client) => client.query("DELETE FROM lb_inbox WHERE key LIKE 'kept-%'"));
  });

  it('accepts concurrent deliveries in a few group commits, one NOTIFY for each, every one durable when answered', async () => {
    const { store } = opened;
    await withClient(async (listener) => {
      let notifications = 0;
      listener.on('notification', () => notifications++);
      await listener.query('LISTEN lb_work');
      const keys = Array.from({ length: 60 }, (_, n) => `group-${n}`);
      const results = await Promise.all(
        keys.map((key) =>
          store.accept(
            testEntry(key, {
              aliases: [`${key}-alias`],
              delivery: {
                platform: 'testshop',
                topic: 'orders/paid',
                shop: 'shop-1',
                sentAt: new Date().toISOString(),
                headers: {},
                body: '{}',
                bodyEncoding: 'utf8',
              },
            }),
          ),
        ),
      );
      expect(results.every((result) => result === 'accepted')).toBe(true);
      const { rows } = await listener.query<{ stored: string }>(
        'SELECT count(*) AS stored FROM lb_inbox WHERE key = ANY($1)',
        [keys],
      );
      expect(Number(rows[0]?.stored)).toBe(keys.length);
      await listener.query('SELECT 1');
      expect(notifications).toBeGreaterThan(0);
      expect(notifications).toBeLessThanOrEqual(10);
      // Copies of one delivery in the same batch: one accepted, the rest duplicates.
      const copies = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          store.accept(testEntry(n % 2 ? 'twin' : 'twin-copy', { aliases: ['twin-alias'] })),
        ),
      );
      expect(copies.filter((result) => result === 'accepted')).toHaveLength(1);
      await store.commitIntake([...keys, 'twin', 'twin-copy'].map((entryKey) => ({ entryKey })));
    });
  });

  it("lets an exclusive run's own work use the pool even when the pool has one connection", async () => {
    const { store, close } = await import('../helpers/postgres-store.ts').then((helpers) =>
      helpers.openStoreOn(opened.database.url, { poolSize: 1 }),
    );
    try {
      const ran = await Promise.race([
        store.exclusive('pinned', async () => (await store.countOrders()).byState),
        new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 10_000)),
      ]);
      expect(ran).not.toBe('stuck');
      expect(ran).toMatchObject({ ran: true });
    } finally {
      await close();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

const reads = (node: PlanNode, table: string): boolean =>
  node['Relation Name'] === table || (node.Plans ?? []).some((child) => reads(child, table));

/** Every node of a plan whose rows come from one table and not the other (a scan of it, and whatever materializes or hashes that scan). */
function onlyFrom(node: PlanNode, table: string, other: string): PlanNode[] {
  const here = reads(node, table) && !reads(node, other) ? [node] : [];
  return [...here, ...(node.Plans ?? []).flatMap((child) => onlyFrom(child, table, other))];
}
