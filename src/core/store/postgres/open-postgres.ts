// Opening the PostgreSQL store: its pools, the schema migrations beside this file, and the shared rate
// limit. node-pg-migrate's own lock fails the second of two instances starting together, so they wait on a
// session advisory lock instead. The work pool cancels a statement after 30 s (stuck on a lock, say). The
// ack pool gives a commit up after 2.5 s and answers 503, since a platform waits 5 s for its answer and sends
// a refused delivery again. The lease pool never waits behind the work it keeps alive.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import type { Logger } from '../../../logger.ts';
import { createSharedRateLimiter } from '../../../loyalty/shared-rate-limiter.ts';
import { windowTaker } from './rate-windows.ts';
import type { OpenedStore } from '../opened-store.ts';
import type { PgConnections } from './database.ts';
import { LEDGER_FORMAT } from '../format/ledger-format.ts';
import { APPLICATION_NAME, checkLedgerFormat, writeLedgerFormat } from './ledger-format.ts';
import { PostgresStore } from './postgres-store.ts';
import { RecordSecrets, type ResealReport } from '../record-secrets.ts';
import { resealRecords } from './records.ts';

const MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
/** An advisory lock key of our own ("lb-migr"), apart from the keys the store locks shops with. */
const MIGRATION_LOCK = 0x6c622d6d69677200n.toString();

/** The acknowledgement path's budget, inside the 5 s a platform waits. */
const ACK = { connections: 3, connectWaitMs: 1_000, statementMs: 2_500, deadlineMs: 3_000 };
const WORK = { connectWaitMs: 10_000, statementMs: 30_000 };
const LEASE = { connections: 2, connectWaitMs: 1_000, statementMs: 2_500 };

export const DEFAULT_POOL_SIZE = 10;

export interface PostgresStoreConfig {
  url: string;
  dedupeWindowMs: number;
  logger: Logger;
  /** Connections of the work pool (DATABASE_POOL_SIZE); the acknowledgement path and sessions come on top. */
  poolSize?: number;
  /** Seals and opens the secrets of records (SECRETS_KEY); by default, none and plain values allowed. */
  secrets?: RecordSecrets;
}

/**
 * An UPDATE leaves the row's old version in the table, plain secret and all,
 * until VACUUM. Plain VACUUM frees its space but can leave its bytes in the
 * page (seen on PostgreSQL 15 with pageinspect); VACUUM FULL writes the table
 * anew. Either keeps a version a transaction begun before the UPDATE may
 * still see (another instance's, autovacuum's, even one in another database
 * of the cluster): those are waited for, 10 s at most. lb_records is small, so FULL is quick, but it locks the table: its
 * lock is waited for 5 s at most, else plain VACUUM. Neither runs inside a
 * transaction. What no statement reaches: WAL segments not yet recycled,
 * replicas, and backups of the database taken before (docs/upgrading.md).
 */
async function vacuumRecords(client: pg.Client, logger: Logger): Promise<void> {
  const { rows } = await client.query<{ at: Date }>('SELECT clock_timestamp() AS at');
  let seenBy = 0;
  for (let waited = 0; waited <= 10_000; waited += 200) {
    // A transaction holds old versions back by its snapshot (backend_xmin) or,
    // between two statements of a write, by its own id alone (backend_xid with
    // backend_xmin empty): VACUUM's snapshot then counts it as running. Sessions
    // of other roles show neither to a role without pg_read_all_stats: those
    // are not waited for.
    const older = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start < $1`,
      [rows[0]!.at],
    );
    seenBy = older.rows[0]!.n;
    if (seenBy === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (seenBy > 0)
    logger.warn(
      { transactions: seenBy },
      'transactions begun before the secrets were sealed are still open: VACUUM FULL keeps the old row versions they may see; run VACUUM FULL lb_records later',
    );
  try {
    await client.query("SET lock_timeout = '5s'");
    await client.query('VACUUM (FULL) lb_records');
    logger.info(
      'the old row versions of lb_records, which held secrets before they were sealed, were removed (VACUUM FULL)',
    );
  } catch (error) {
    await client.query('VACUUM lb_records').catch(() => undefined);
    logger.warn(
      { err: error },
      'VACUUM FULL lb_records could not run (the table was busy, or the database user does not own it); plain VACUUM ran, which may leave the bytes of old row versions in the table: run VACUUM FULL lb_records at a quiet time',
    );
  } finally {
    await client.query('RESET lock_timeout').catch(() => undefined);
  }
}

export async function openPostgresStore({
  url,
  logger,
  poolSize = DEFAULT_POOL_SIZE,
  secrets = RecordSecrets.plain(),
}: PostgresStoreConfig): Promise<OpenedStore & { store: PostgresStore }> {
  const connections = openConnections(url, poolSize, logger);
  const { work, ack, lease } = connections;
  // Every key's takes in flight go in one statement: one taker for the process's limiters.
  const takeFromWindow = windowTaker(work, WORK.statementMs + 500);
  const store = new PostgresStore({
    connections,
    ackDeadlineMs: ACK.deadlineMs,
    secrets,
    migrate: () => migrate(connections, secrets, logger),
  });
  return {
    store,
    // The service counts by API key; the key itself is never written to the database, only a digest of it.
    sharedLimiter: (limit, apiKey, windowMs) =>
      createSharedRateLimiter({
        pool: work,
        take: takeFromWindow,
        limit,
        windowMs,
        key: createHash('sha256').update(apiKey).digest('hex').slice(0, 24),
      }),
    release: async () => {
      await Promise.all([work.end(), ack.end(), lease.end()]);
    },
  };
}

/** The three pools (work, acknowledgement, lease) and sessions of their own, each with its own waits. */
function openConnections(url: string, poolSize: number, logger: Logger): PgConnections {
  const common = {
    connectionString: url,
    // With the format: an instance that must raise the ledger's format sees who would misread it (ledger-format.ts).
    application_name: APPLICATION_NAME,
    // A server gone without a word (a host lost, a network cut) is noticed, instead of waiting on a dead socket.
    keepAlive: true,
    // A transaction left open by a stuck caller gives back its locks.
    idle_in_transaction_session_timeout: 60_000,
  };
  const work = new pg.Pool({
    ...common,
    max: poolSize,
    connectionTimeoutMillis: WORK.connectWaitMs,
    statement_timeout: WORK.statementMs,
  });
  // query_timeout beside statement_timeout: a server that no longer answers cannot cancel anything; the client gives up and drops the connection.
  const ack = new pg.Pool({
    ...common,
    max: ACK.connections,
    connectionTimeoutMillis: ACK.connectWaitMs,
    statement_timeout: ACK.statementMs,
    query_timeout: ACK.statementMs + 500,
  });
  const lease = new pg.Pool({
    ...common,
    max: LEASE.connections,
    connectionTimeoutMillis: LEASE.connectWaitMs,
    statement_timeout: LEASE.statementMs,
    query_timeout: LEASE.statementMs + 500,
  });
  for (const pool of [work, ack, lease]) {
    // A connection that breaks while idle is replaced; the error is not the process's end.
    pool.on('error', (error) => logger.warn({ err: error }, 'a PostgreSQL connection was lost; it will be replaced'));
  }
  return {
    work,
    ack,
    lease,
    session: async () => {
      const client = new pg.Client({ ...common, connectionTimeoutMillis: WORK.connectWaitMs });
      await client.connect();
      return client;
    },
  };
}

/** The schema's migrations, the ledger's format and the secrets' sealing, one instance at a time. */
async function migrate(connections: PgConnections, secrets: RecordSecrets, logger: Logger): Promise<ResealReport> {
  // A session of its own, without the statement timeout: a migration of a large table may take minutes.
  const client = await connections.session();
  client.on('error', () => undefined);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // A ledger of a newer format is refused before any migration touches it.
    const format = await checkLedgerFormat(client, 'the PostgreSQL ledger (DATABASE_URL)');
    const applied = await runner({
      dbClient: client,
      dir: MIGRATIONS,
      migrationsTable: 'lb_migrations',
      direction: 'up',
      singleTransaction: true,
      noLock: true,
      log: () => undefined,
    });
    if (applied.length > 0)
      logger.info({ migrations: applied.map((migration) => migration.name) }, 'the ledger schema was migrated');
    if (format.write) {
      await writeLedgerFormat(client);
      if (format.hadLedger) logger.info({ from: format.from, to: LEDGER_FORMAT }, 'the ledger format was raised');
    }
    // Format 2: secrets sealed, those of earlier releases (and those under SECRETS_KEY_PREVIOUS) by the
    // first start with the key, under this lock: one instance at a time, never two passes at once.
    const resealed = await resealRecords(client, secrets);
    if (resealed.sealed + resealed.resealed > 0) await vacuumRecords(client, logger);
    return resealed;
  } finally {
    // Ending the session lets go of the lock.
    await client.end().catch(() => undefined);
  }
}
