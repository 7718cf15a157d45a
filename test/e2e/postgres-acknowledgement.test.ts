// The acknowledgement path on PostgreSQL keeps the platform's deadline
// (Shopify waits 5 s) whatever else holds the database (issue 17, item 12):
// long exclusive runs (reconciliation, resyncs) do not take the connections
// acknowledgements need, and when the database cannot take a delivery at all
// the answer is a quick 503, which the platform sends again, never a hang.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

/** Shopify's deadline for an answer. */
const DEADLINE_MS = 5_000;

let database: TestDatabase;
let bridge: RunningBridge;
beforeAll(async () => {
  if (!postgresAvailable()) return;
  database = await freshDatabase();
  bridge = await startTestBridge({
    DATABASE_URL: database.url,
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    RECONCILE_INTERVAL_MINUTES: '0',
  });
});
afterAll(async () => {
  if (!postgresAvailable()) return;
  await bridge.stop();
  await database.drop();
});

let sequence = 0;
async function deliver(): Promise<{ status: number | string; ms: number }> {
  const orderId = String(6_100_000 + ++sequence);
  const body = shopifyOrderJson({ id: orderId });
  const started = Date.now();
  const status = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body, webhookId: `ack-${orderId}` }),
    body,
    // Longer than any answer should take: a hang shows as this.
    signal: AbortSignal.timeout(3 * DEADLINE_MS),
  }).then(
    (response) => response.status,
    (error: Error) => error.name,
  );
  return { status, ms: Date.now() - started };
}

describe.skipIf(!postgresAvailable())('acknowledgements on PostgreSQL', () => {
  it('answer within the deadline while exclusive runs (reconciliations, resyncs) are under way', async () => {
    const { store } = bridge.engine;
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    // More long runs at once than the pool has connections.
    const runs = Array.from({ length: 12 }, (_, n) => store.exclusive(`long-run-${n}`, () => held));
    const looking = new pg.Client({ connectionString: database.url });
    await looking.connect();
    try {
      // Every run under way, its session holding its lock (before, a 300 ms sleep, after which a loaded machine
      // could still be opening them, and the deliveries met less than the test means).
      await eventually(async () => {
        const { rows } = await looking.query<{ held: number }>(
          "SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        expect(rows[0]?.held).toBe(runs.length);
      });
      const answers = await Promise.all(Array.from({ length: 10 }, deliver));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(DEADLINE_MS);
    } finally {
      finish();
      await Promise.all(runs);
      await looking.end();
    }
  }, 60_000);

  it('answer 503 within the deadline, not hang, when the database cannot take deliveries', async () => {
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    try {
      // Every acknowledgement now waits on this lock: as with a database that stopped answering.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE lb_seen IN ACCESS EXCLUSIVE MODE');
      const answers = await Promise.all(Array.from({ length: 30 }, deliver));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 503));
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(DEADLINE_MS);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
    // And once the database takes them again, so does the bridge.
    expect((await deliver()).status).toBe(200);
  }, 60_000);
});
