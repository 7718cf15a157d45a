// The one way the PostgreSQL store talks to the database. Every write goes through one retry: PostgreSQL
// undoes a deadlock victim or a transaction it could not serialize, and a second try removes the cause. The
// acknowledgement path and lease renewals have small pools of their own, so that neither a busy worker nor
// long exclusive runs make a platform wait for its answer or let leases run out. Exclusive runs and the
// listener hold dedicated sessions, outside the pools.
import type pg from 'pg';
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { RecordSecrets } from '../record-secrets.ts';

export interface PgConnections {
  /** Background work: intake, the worker, the admin API, exclusive runs' own queries. */
  work: Pool;
  /** The acknowledgement path alone. */
  ack: Pool;
  /** Lease renewals alone: a heartbeat must not queue behind the work it keeps alive. */
  lease: Pool;
  /** A session of its own, outside the pools, for what holds a connection a long time (a session lock, LISTEN). */
  session: () => Promise<pg.Client>;
}

/** A pooled client in a transaction, or the database's retrying writer: what a helper shared by both needs. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** A statement prepared under its name on each connection that runs it (its text never changes under one name). */
export interface NamedStatement {
  name: string;
  text: string;
}

const ATTEMPTS = 5;

/**
 * What PostgreSQL undid and a second try can do: deadlock_detected,
 * serialization_failure, a new order's row created by another instance
 * between our read and our insert (the second try folds into that row), and
 * a named statement prepared on a connection before a newer instance's
 * migration changed the columns it returns: the pool drops a connection whose
 * statement failed, and the next one prepares the statement afresh.
 */
export function worthAnotherTry(error: unknown): boolean {
  const { code, constraint, message } = error as { code?: string; constraint?: string; message?: string };
  return (
    code === '40P01' ||
    code === '40001' ||
    (code === '23505' && constraint === 'lb_orders_pkey') ||
    (code === '0A000' && /cached plan must not change result type/.test(message ?? ''))
  );
}

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

/** Runs a statement or transaction again (up to a few times) when PostgreSQL undid it for a reason a second try removes. */
export async function retrying<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= ATTEMPTS || !worthAnotherTry(error)) throw error;
    }
    await pause(attempt);
  }
}

export class PgDatabase {
  readonly #connections: PgConnections;
  /** Seals the secrets of records as they are written and opens them as they are read (records.ts). */
  readonly secrets: RecordSecrets;

  constructor(connections: PgConnections, secrets: RecordSecrets = RecordSecrets.plain()) {
    this.#connections = connections;
    this.secrets = secrets;
  }

  /** A read (or a write that is safe to lose, like a lease taken and never used). */
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>> {
    return this.#connections.work.query<R>(text, values);
  }

  /**
   * One statement, a transaction of its own, tried again like any transaction.
   * A statement given a name is prepared once on each connection and then only
   * executed, and PostgreSQL may keep one plan for it: the worker's hot
   * statements (a claim, a batch of saves) cost it about as much to parse and
   * plan as to run.
   */
  write<R extends QueryResultRow = QueryResultRow>(
    statement: string | NamedStatement,
    values?: unknown[],
    pool: 'work' | 'ack' | 'lease' = 'work',
  ): Promise<QueryResult<R>> {
    const config = typeof statement === 'string' ? { text: statement, values } : { ...statement, values };
    return retrying(() => this.#connections[pool].query<R>(config));
  }

  /** query() and write(), for helpers that take a transaction's client or these. */
  readonly reader: Queryable = { query: (text, values) => this.query(text, values) };
  readonly writer: Queryable = { query: (text, values) => this.write(text, values) };

  /**
   * Several statements in one transaction, tried again (up to a few times)
   * when PostgreSQL undoes it for a reason a second try removes. `run` starts
   * from what it reads, so it can run again.
   */
  transaction<T>(run: (client: PoolClient) => Promise<T>): Promise<T> {
    return retrying(async () => {
      const client = await this.#connections.work.connect();
      let broken: Error | undefined;
      // Lost while checked out, between two statements (the server restarted, the database dropped): pg tells the
      // client alone, and a client with no listener ends the process. The next statement fails instead, and is
      // handled below.
      const lost = (error: Error) => (broken = error);
      client.on('error', lost);
      try {
        await client.query('BEGIN');
        const result = await run(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
        throw error;
      } finally {
        client.off('error', lost);
        // A connection lost, or that could not even roll back, is not given to the next caller.
        client.release(broken);
      }
    });
  }

  session(): Promise<pg.Client> {
    return this.#connections.session();
  }
}
