// The backends the store models run against (test/property/store-model.test.ts, store-fence-model.test.ts): lowdb
// with every read, write, rename and sync released in the order fast-check's scheduler picks, PostgreSQL with the
// start and the answer of every operation so released, and on both, writes that fail when armed (a full disk, a
// failing one; on PostgreSQL, before the server saw them or after it committed).
import type fc from 'fast-check';
import pg from 'pg';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { PostgresStore } from '../../src/core/store/postgres/postgres-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from './engine.ts';

/** The lowdb store's clock at the start of each run. */
export const START = Date.UTC(2026, 10, 1, 12, 0, 0);

// --- Faults and scheduling of the ledger's I/O --------------------------------------------------------------------------

export class Faults {
  #armed = 0;
  #code: 'ENOSPC' | 'EIO' = 'ENOSPC';
  struck = 0;
  arm(count: number, code: 'ENOSPC' | 'EIO'): void {
    this.#armed = count;
    this.#code = code;
  }
  clear(): void {
    this.#armed = 0;
  }
  /** While the test itself looks at the store, nothing fails. */
  paused = false;
  maybeFail(what: string): void {
    if (this.#armed <= 0 || this.paused) return;
    this.#armed--;
    this.struck++;
    throw Object.assign(new Error(`${this.#code}: injected failure, ${what}`), { code: this.#code });
  }
}

/**
 * node:fs, with the start and the end of every read and write released in the
 * order the scheduler picks, and writes that fail when armed. The scheduler
 * only opens gates: what the real call answers, error or not, reaches the
 * store by the ordinary path.
 */
export function scheduledIo(s: fc.Scheduler, faults: Faults): LedgerIo {
  const gate = s.scheduleFunction(async (_what: string) => undefined);
  const gated =
    <A extends [string, ...unknown[]], R>(fn: (...args: A) => Promise<R>, label: string, failing: boolean) =>
    async (...args: A): Promise<R> => {
      const what = `${label} ${args[0].split('/').slice(-2).join('/')}`;
      await gate(`start ${what}`);
      if (failing) faults.maybeFail(what);
      try {
        return await fn(...args);
      } finally {
        await gate(`end ${what}`);
      }
    };
  return {
    readFile: gated(nodeIo.readFile, 'read', false),
    writeNewFile: gated(nodeIo.writeNewFile, 'write', true),
    openAppend: gated(
      async (path: string) => {
        const file = await nodeIo.openAppend(path);
        const append = gated((_path: string, text: string, sync: boolean) => file.append(text, sync), 'append', true);
        return { append: (text: string, sync: boolean) => append(path, text, sync), close: () => file.close() };
      },
      'open',
      true,
    ),
    rename: gated(nodeIo.rename, 'rename', true),
    remove: gated(nodeIo.remove, 'remove', true),
    syncDirectory: gated(nodeIo.syncDirectory, 'sync', true),
    readdir: nodeIo.readdir,
    stat: nodeIo.stat,
  };
}

// --- Backends ---------------------------------------------------------------------------------------------------------

export interface Harness {
  store: LedgerStore;
  leaseMs: number;
  /** How far an entry deferred "for later" is deferred. */
  laterMs: number;
  /** Moves the store's clock (lowdb), or does nothing (PostgreSQL keeps the server's time). */
  tick(ms: number): void;
  /** Lets every lease and every deferral run out. */
  passLeasesAndDeferrals(): Promise<void>;
  now(): Date;
  settle(): Promise<unknown>;
  /** The store as a new process would open it from what is on disk; undefined where that means nothing new. */
  reopen(): Promise<LedgerStore | undefined>;
  close(): Promise<void>;
}

export async function lowdbHarness(s: fc.Scheduler, faults: Faults): Promise<Harness> {
  const dataDir = tempDataDir();
  let time = START;
  const now = () => new Date(time);
  const options = {
    dataDir,
    now,
    settleAfterMs: 0,
    activePartitionSize: 2,
    // A few batches, then the partitions written and the journal emptied: both paths, and the crash between.
    activeJournalLimit: 4_000,
    settledChunkSize: 2,
    openFiles: { chunks: 1, indexFiles: 1 },
  };
  const store = new LowdbStore({ ...options, io: scheduledIo(s, faults) });
  await s.waitFor(store.open());
  let reopened: LowdbStore | undefined;
  return {
    store,
    leaseMs: 60_000,
    laterMs: 30_000,
    tick: (ms) => (time += ms),
    passLeasesAndDeferrals: async () => void (time += 120_000),
    now,
    settle: () => store.settleQuiet(),
    async reopen() {
      await s.waitFor(store.close());
      reopened = new LowdbStore(options);
      await reopened.open();
      return reopened;
    },
    async close() {
      if (reopened) await reopened.close();
      else await s.waitFor(store.close()).catch(() => undefined);
    },
  };
}

/**
 * PostgreSQL: one database for the whole property (its url given), emptied before each run.
 * The scheduler picks the order in which operations start and in which their
 * answers come back (inside, the server runs them truly at once); injected
 * failures strike statements either before they reach the server or after
 * it committed (an answer lost on the way back), on every pool.
 */
const PG_TABLES_KEPT = new Set(['lb_migrations', 'lb_rate_limit']);

export async function emptyDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    // Orders first: their trigger counts them out into the count tables, emptied after. DELETE under the lock
    // TRUNCATE takes (waiting as it would for what is still under way), not TRUNCATE: with these few rows it is ten
    // times faster, as TRUNCATE makes each table's files anew (0.4-0.7 s a run on a small machine).
    const tables = rows
      .map((row) => row.tablename)
      .filter((name) => !PG_TABLES_KEPT.has(name))
      .sort((a, b) => Number(b === 'lb_orders') - Number(a === 'lb_orders'));
    if (tables.length === 0) return;
    await client.query('BEGIN');
    await client.query(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    for (const table of tables) await client.query(`DELETE FROM ${table}`);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

const PG_FAULT_CODES = { ENOSPC: '53100', EIO: '58030' } as const;

/** A pool whose statements fail when armed: half the time before the server saw them, half after it committed. */
export function failingPool(pool: pg.Pool, faults: Faults): pg.Pool {
  let after = false;
  const strike = async <T>(run: () => Promise<T>, text: string): Promise<T> => {
    if (/^\s*(ROLLBACK|BEGIN)/i.test(text)) return run();
    try {
      faults.maybeFail(`before ${text.slice(0, 40)}`);
    } catch (error) {
      after = !after;
      if (!after)
        throw Object.assign(new Error((error as Error).message), {
          code: PG_FAULT_CODES[(error as { code: 'ENOSPC' | 'EIO' }).code],
        });
      const result = await run();
      throw Object.assign(new Error(`${(error as Error).message} (after the commit)`), { code: '08006', result });
    }
    return run();
  };
  const textOf = (query: unknown) => (typeof query === 'string' ? query : ((query as { text?: string })?.text ?? ''));
  return new Proxy(pool, {
    get(target, name, receiver) {
      if (name === 'query')
        return (text: unknown, values?: unknown) =>
          strike(() => target.query(text as string, values as unknown[]), textOf(text));
      if (name === 'connect')
        return async () => {
          const client = await target.connect();
          return new Proxy(client, {
            get(inner, key, innerReceiver) {
              if (key === 'query')
                return (text: unknown, values?: unknown) =>
                  strike(() => inner.query(text as string, values as unknown[]), textOf(text));
              const value = Reflect.get(inner, key, innerReceiver) as unknown;
              return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(inner) : value;
            },
          });
        };
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The store, with the start and the answer of every operation released in the order the scheduler picks. */
export function scheduledStore(s: fc.Scheduler, store: LedgerStore): LedgerStore {
  const gate = s.scheduleFunction(async (_what: string) => undefined);
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || name === 'onWork' || name === 'exportAll')
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      return async (...args: unknown[]) => {
        await gate(`start ${String(name)}`);
        try {
          return await (value as (...args: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          await gate(`end ${String(name)}`);
        }
      };
    },
  });
}

export const PG_LEASE_MS = 800;

export async function postgresHarness(url: string, s: fc.Scheduler, faults: Faults): Promise<Harness> {
  await emptyDatabase(url);
  const logger = createLogger({ level: 'silent' });
  const common = { connectionString: url };
  const pools = {
    work: new pg.Pool({ ...common, max: 6 }),
    ack: new pg.Pool({ ...common, max: 3 }),
    lease: new pg.Pool({ ...common, max: 2 }),
  };
  for (const pool of Object.values(pools)) pool.on('error', () => undefined);
  const real = new PostgresStore({
    connections: {
      work: failingPool(pools.work, faults),
      ack: failingPool(pools.ack, faults),
      lease: failingPool(pools.lease, faults),
      session: async () => {
        const client = new pg.Client(common);
        client.on('error', () => undefined);
        await client.connect();
        return client;
      },
    },
    // The schema is there already: the property's database was migrated once.
    migrate: async () => undefined,
  });
  await real.open();
  void logger;
  let reopened: { close(): Promise<void> } | undefined;
  return {
    store: scheduledStore(s, real),
    leaseMs: PG_LEASE_MS,
    laterMs: 400,
    tick: () => undefined,
    passLeasesAndDeferrals: () => new Promise((resolve) => setTimeout(resolve, PG_LEASE_MS + 200)),
    now: () => new Date(),
    settle: async () => 0,
    async reopen() {
      // Another instance on the same database: what it sees is what was committed.
      await real.close();
      await Promise.all(Object.values(pools).map((pool) => pool.end()));
      const other = await openPostgresStore({
        url,
        dedupeWindowMs: 7 * 86_400_000,
        logger,
        poolSize: 4,
      });
      await other.store.open();
      reopened = { close: async () => (await other.store.close(), await other.release()) };
      return other.store;
    },
    async close() {
      if (reopened) return reopened.close();
      await real.close().catch(() => undefined);
      await Promise.all(Object.values(pools).map((pool) => pool.end().catch(() => undefined)));
    },
  };
}
