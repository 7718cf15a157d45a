// A ledger with history: N orders already mapped, most of them settled, as
// a shop that has run the bridge for a while would have; in the lowdb files
// or in PostgreSQL.
import { newOrderRecord, applyEvent, type OrderRecord } from '../../src/core/order-record.ts';
import type { LedgerItem } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { benchOrder, type Series } from './orders.ts';

const HISTORY: Series = {
  name: 'History',
  firstId: 5_000_000_000_000,
  facts: ['placed', 'paid', 'fulfilled'],
  total: '42.00',
  from: Date.UTC(2026, 9, 1),
  stepMs: 1_000,
};
/** Orders written per batch: big batches rewrite the index files fewer times. */
const BATCH = 50_000;

function historicOrder(n: number): OrderRecord {
  const event = benchOrder(HISTORY, n);
  const at = event.occurredAt;
  const record = newOrderRecord(event, at);
  applyEvent(record, event, event.deliveryId, at);
  record.target = { state: 'approved' };
  record.upstream = { points: 'approved', earnedAt: at, conversion: 'none', redemption: 'none' };
  record.calls = [
    { operation: 'earn', at, attempts: 1, outcome: 'success', message: 'Points earned' },
    { operation: 'approve', at, attempts: 1, outcome: 'success', message: 'Points updated' },
  ];
  record.dueAt = null;
  return record;
}

/** Up to 2,000 orders still active, the rest settled. */
const activeOf = (count: number) => Math.min(2_000, Math.ceil(count * 0.05));

function* batches(from: number, to: number): Generator<LedgerItem[]> {
  for (let start = from; start < to; start += BATCH) {
    yield Array.from({ length: Math.min(BATCH, to - start) }, (_, i) => ({
      type: 'order' as const,
      record: historicOrder(start + i),
    }));
  }
}

export async function seedLedger(dataDir: string, count: number): Promise<void> {
  // Seeding is not acknowledging: the files need not be fsynced one by one.
  const store = new LowdbStore({ dataDir, settleAfterMs: 0, fsync: false });
  await store.open();
  const active = activeOf(count);
  for (const items of batches(0, count - active)) {
    await store.importItems(items);
    await store.settleQuiet();
  }
  for (const items of batches(count - active, count)) await store.importItems(items);
  await store.close();
}

export async function seedPostgres(url: string, count: number): Promise<void> {
  const { store, release } = await openPostgresStore({
    url,
    dedupeWindowMs: 7 * 86_400_000,
    logger: createLogger({ level: 'silent' }),
    poolSize: 2,
  });
  try {
    await store.open();
    for (const items of batches(0, count)) {
      // One transaction per 5,000: the database's own batching does the rest.
      for (let start = 0; start < items.length; start += 5_000)
        await store.importItems(items.slice(start, start + 5_000));
    }
    // As migrate --to does after its copy.
    await store.finishImport();
    await store.close();
  } finally {
    await release();
  }
}
