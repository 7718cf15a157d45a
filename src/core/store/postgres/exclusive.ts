// Runs that must not run twice at once across instances (reconciliation, a resync of one shop): a session
// advisory lock held on a connection of the run's own, outside the pools, so a long run never keeps one from
// the acknowledgements or the worker. If the process dies, its session ends and PostgreSQL lets go of the
// lock.
import type { PgDatabase } from './database.ts';
import { LOCK_CLASS, lockId } from './locks.ts';

export async function exclusive<T>(
  db: PgDatabase,
  name: string,
  fn: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  const session = await db.session();
  // A session lost mid-run (the database restarted) is not the process's end; the run finds out through its own queries.
  session.on('error', () => undefined);
  try {
    const { rows } = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      LOCK_CLASS,
      lockId(name),
    ]);
    if (!rows[0]?.locked) return { ran: false };
    // Ending the session (below) lets go of the lock: no unlock to forget.
    return { ran: true, value: await fn() };
  } finally {
    await session.end().catch(() => undefined);
  }
}
