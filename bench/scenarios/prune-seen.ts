// pruneSeen on PostgreSQL at its worst case worth measuring: 200,000 expired
// dedupe keys against 5,000 inbox entries (each with an alias), whose keys
// must be kept. It runs at every start and hourly on every instance; the
// statement it replaced took 55.8 s here.
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { freshDatabase } from '../lib/databases.ts';

export interface PruneResult {
  expired: number;
  inbox: number;
  ms: number;
  kept: number;
}

export async function pruneSeenScenario(expired: number, inbox: number): Promise<PruneResult> {
  const database = await freshDatabase();
  const { store, release } = await openPostgresStore({
    url: database.url,
    dedupeWindowMs: 7 * 86_400_000,
    logger: createLogger({ level: 'silent' }),
    poolSize: 2,
  });
  try {
    await store.open();
    const old = new Date(Date.now() - 30 * 86_400_000);
    const db = store.database;
    await db.query(
      "INSERT INTO lb_seen (key, received_at) SELECT 'expired-' || n, $1 FROM generate_series(1, $2::int) n",
      [old, expired],
    );
    await db.query(
      "INSERT INTO lb_inbox (key, aliases, received_at, entry, due_at) SELECT 'kept-' || n, ARRAY['kept-alias-' || n], $1, '{}', now() + interval '1 day' FROM generate_series(1, $2::int) n",
      [old, inbox],
    );
    await db.query(
      "INSERT INTO lb_seen (key, received_at) SELECT k, $1 FROM generate_series(1, $2::int) n, LATERAL (VALUES ('kept-' || n), ('kept-alias-' || n)) AS v(k)",
      [old, inbox],
    );
    await db.query('ANALYZE lb_seen, lb_inbox');
    const started = performance.now();
    await store.pruneSeen(new Date());
    const ms = performance.now() - started;
    const kept = Number((await db.query<{ count: string }>('SELECT count(*) FROM lb_seen')).rows[0]?.count);
    return { expired, inbox, ms: Math.round(ms), kept };
  } finally {
    await store.close();
    await release();
    await database.drop();
  }
}
