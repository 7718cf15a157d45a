// A ledger with history: N orders already mapped, most of them settled, as
// a shop that has run the bridge for a while would have.
import { newOrderRecord, applyEvent, type OrderRecord } from '../../src/core/order-record.ts';
import { LowdbStore } from '../../src/core/store/lowdb-store.ts';
import { benchOrder, type Series } from './orders.ts';

const HISTORY: Series = { name: 'History', firstId: 5_000_000_000_000, facts: ['placed', 'paid', 'fulfilled'], total: '42.00', from: Date.UTC(2026, 9, 1), stepMs: 1_000 };

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
  return record;
}

/** Writes `count` orders into DATA_DIR: up to 2,000 still active, the rest settled. */
export async function seedLedger(dataDir: string, count: number): Promise<void> {
  const store = new LowdbStore({ dataDir });
  await store.load();
  const active = Math.min(2_000, Math.ceil(count * 0.05));
  const batch = 1_000;
  for (let start = 0; start < count - active; start += batch) {
    const orders = Array.from({ length: Math.min(batch, count - active - start) }, (_, i) => historicOrder(start + i));
    await store.settle(orders);
  }
  await store.saveActive(Array.from({ length: active }, (_, i) => historicOrder(count - active + i)));
  await store.close();
}
