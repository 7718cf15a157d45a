// Opening the PostgreSQL store: a connection pool, the schema migrations from
// the files beside this one (node-pg-migrate), and the rate limit every
// instance shares. node-pg-migrate's own lock is a try-lock that fails the
// second of two instances starting together ("Another migration is already
// running"); we wait on a session advisory lock instead, so the second one
// starts once the first has migrated.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import type { Logger } from '../../../logger.ts';
import { createSharedRateLimiter } from '../../../loyalty/shared-rate-limiter.ts';
import type { OpenedStore } from '../open-store.ts';
import { PostgresStore } from './postgres-store.ts';

const MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
/** An advisory lock key of our own ("lb-migr"), apart from the keys the store locks shops with. */
const MIGRATION_LOCK = 0x6c622d6d69677200n.toString();

export interface PostgresStoreConfig {
  url: string;
  dedupeWindowMs: number;
  logger: Logger;
  poolSize?: number;
}

export async function openPostgresStore({ url, dedupeWindowMs, logger, poolSize = 10 }: PostgresStoreConfig): Promise<OpenedStore & { store: PostgresStore }> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'loyalty-bridge' });
  // A connection that breaks while idle is replaced; the error is not the process's end.
  pool.on('error', (error) => logger.warn({ err: error }, 'a PostgreSQL connection was lost; it will be replaced'));
  const store = new PostgresStore({
    pool,
    dedupeWindowMs,
    migrate: async () => {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        const applied = await runner({
          dbClient: client,
          dir: MIGRATIONS,
          migrationsTable: 'lb_migrations',
          direction: 'up',
          singleTransaction: true,
          noLock: true,
          log: () => undefined,
        });
        if (applied.length > 0) logger.info({ migrations: applied.map((migration) => migration.name) }, 'the ledger schema was migrated');
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
        client.release();
      }
    },
  });
  return {
    store,
    // The service counts by API key; the key itself is never written to the database, only a digest of it.
    sharedLimiter: (limit, apiKey, windowMs) => createSharedRateLimiter({ pool, limit, windowMs, key: createHash('sha256').update(apiKey).digest('hex').slice(0, 24) }),
    release: async () => {
      await pool.end();
    },
  };
}
