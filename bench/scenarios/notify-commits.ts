// Why acknowledgements on PostgreSQL are group-committed: a transaction that
// NOTIFYs takes a database-wide lock from its commit to the end of that
// commit, so such commits are serialized (their fsyncs included) across every
// connection of every instance. Measured here on the bare database: small
// commits from many connections, without and with a NOTIFY each.
import pg from 'pg';
import { freshDatabase } from '../lib/databases.ts';

export interface NotifyResult {
  connections: number;
  withoutNotify: number;
  withNotify: number;
}

export async function notifyCommitsScenario(seconds: number, connections = 16): Promise<NotifyResult> {
  const database = await freshDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: connections });
  pool.on('error', () => undefined);
  try {
    await pool.query('CREATE TABLE commits (key text PRIMARY KEY)');
    let sequence = 0;
    const rate = async (notify: boolean) => {
      const until = performance.now() + seconds * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            const key = String(++sequence);
            await pool.query(
              notify
                ? "WITH added AS (INSERT INTO commits VALUES ($1) RETURNING key) SELECT count(pg_notify('bench', '')) FROM added"
                : 'INSERT INTO commits VALUES ($1)',
              [key],
            );
            done++;
          }
        }),
      );
      return Math.round(done / seconds);
    };
    return { connections, withoutNotify: await rate(false), withNotify: await rate(true) };
  } finally {
    await pool.end();
    await database.drop();
  }
}
