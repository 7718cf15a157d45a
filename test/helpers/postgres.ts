// PostgreSQL for the store's tests: a server at PG_TEST_URL (by default the
// machine's own, 127.0.0.1:5432, as CI starts it), and a fresh database per
// suite, dropped afterwards. Without a server the PostgreSQL suites skip, and
// the global setup says so in one line.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Whether a server answers; decided once, in the global setup, and passed to every test file. */
export const postgresAvailable = (): boolean => process.env.LB_POSTGRES_AVAILABLE === '1';

export async function probePostgres(url = PG_ADMIN_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the test server. */
export const freshDatabase = (): Promise<TestDatabase> => createDatabase('');

/** A new database, made by CREATE DATABASE with the given clause (a TEMPLATE, say), dropped by drop(). */
export async function createDatabase(clause: string): Promise<TestDatabase> {
  const name = `lb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} ${clause}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
