// A connection lost in the middle of a transaction, between two of its statements (the server restarted, the
// database dropped under a bridge at shutdown): pg tells only the checked-out client, and a client with no listener
// for it ended the process with an uncaught error (CI at stop 77, while a test dropped its database). The
// transaction's next statement fails instead, and the bridge goes on.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PgDatabase } from '../../src/core/store/postgres/database.ts';
import { PG_ADMIN_URL, freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';

describe.skipIf(!postgresAvailable())('a PostgreSQL transaction whose connection is lost between statements', () => {
  let database: TestDatabase | undefined;
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.end().catch(() => undefined);
    await database?.drop();
  });

  it('fails its next statement and leaves the process running, the connection not reused', async () => {
    database = await freshDatabase();
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on('error', () => undefined);
    pools.push(pool);
    const db = new PgDatabase({ work: pool, ack: pool, lease: pool, session: () => Promise.reject(new Error('none')) });
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    const pids: number[] = [];
    try {
      const outcome = db
        .transaction(async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          pids.push(rows[0]!.pid);
          if (pids.length === 1) {
            // Ended by the server while this transaction waits between two statements.
            // Listened for first: the client may end before the admin's answer to the terminate arrives.
            const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
            await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
            await ended;
          }
          return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one;
        })
        .then(
          (value) => ({ value }),
          (error: Error) => ({ error }),
        );
      const settled = await outcome;
      // Tried again on another connection, or failed: either way an answer, and the dead one is not handed out.
      if ('value' in settled) expect(settled.value).toBe(1);
      else expect(settled.error).toBeInstanceOf(Error);
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(rows[0]!.pid).not.toBe(pids[0]);
    } finally {
      await admin.end();
    }
  });
});
