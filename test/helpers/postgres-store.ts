// A PostgreSQL store on a fresh database, for the tests of that backend alone:
// opened as the bridge opens it, closed and dropped by the caller.
import type { InboxEntry } from '../../src/core/delivery.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import type { LedgerStore, OpenReport } from '../../src/core/store/ledger-store.ts';
import { openPostgresStore, type PostgresStoreConfig } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';

type Opened = Awaited<ReturnType<typeof openPostgresStore>>;

export interface OpenedTestStore {
  store: Opened['store'];
  /** The rate limit every instance on this database shares, as the bridge makes it. */
  sharedLimiter: NonNullable<Opened['sharedLimiter']>;
  /** What the open said (the ledger's format raised, secrets sealed). */
  report: OpenReport;
  close(): Promise<void>;
}

/** Another instance on the same database: its own pool, its own listener. */
export async function openStoreOn(url: string, options: Partial<PostgresStoreConfig> = {}): Promise<OpenedTestStore> {
  const { store, release, sharedLimiter } = await openPostgresStore({
    url,
    dedupeWindowMs: 7 * 86_400_000,
    logger: createLogger({ level: 'silent' }),
    poolSize: 4,
    ...options,
  });
  const report = await store.open();
  return {
    store,
    sharedLimiter: sharedLimiter!,
    report,
    close: async () => {
      await store.close();
      await release();
    },
  };
}

export async function freshStore(
  options: Partial<PostgresStoreConfig> = {},
): Promise<OpenedTestStore & { database: TestDatabase }> {
  const database = await freshDatabase();
  const opened = await openStoreOn(database.url, options);
  return {
    ...opened,
    database,
    close: async () => {
      await opened.close();
      await database.drop();
    },
  };
}

/** Two instances on one fresh database, as two bridges share it; close() ends both and drops it. */
export async function twoInstances(options: Partial<PostgresStoreConfig> = {}): Promise<{
  first: OpenedTestStore & { database: TestDatabase };
  second: OpenedTestStore;
  close(): Promise<void>;
}> {
  const first = await freshStore(options);
  const second = await openStoreOn(first.database.url, options);
  return {
    first,
    second,
    close: async () => {
      await second.close();
      await first.close();
    },
  };
}

let sequence = 0;
export const testEntry = (key: string, parts: Partial<InboxEntry> = {}): InboxEntry => ({
  key,
  aliases: [],
  receivedAt: new Date().toISOString(),
  retry: null,
  ...parts,
});

/** Accepts events and folds them, as intake would; returns the orders as folded. */
export async function foldEvents(store: LedgerStore, events: OrderEvent[]): Promise<OrderRecord[]> {
  const key = `fold-${process.pid}-${++sequence}`;
  await store.accept(testEntry(key, { events }));
  const claimed = await store.claimInbox('folder', 1_000, 60_000);
  await store.commitIntake(
    claimed.map((each) => ({ entryKey: each.key, ...(each.events ? { events: each.events } : {}) })),
  );
  const keys = [...new Set(events.map((event) => `${event.platform}:${event.shop}:${event.orderId}`))];
  return (await Promise.all(keys.map((orderKey) => store.getOrder(orderKey)))).filter(
    (record): record is OrderRecord => record !== undefined,
  );
}
