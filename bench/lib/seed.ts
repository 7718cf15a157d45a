// A ledger with history: N orders already mapped, most of them settled, as
// a shop that has run the bridge for a while would have.
import { newOrderRecord, applyEvent, type OrderRecord } from '../../src/core/order-record.ts';
import { LowdbStore } from '../../src/core/store/lowdb-store.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';

function historicOrder(n: number): OrderRecord {
  const orderId = String(5_000_000_000_000 + n);
  const event: OrderEvent = {
    platform: 'shopify',
    shop: 'bench-store.myshopify.com',
    orderId,
    orderName: `#H${n}`,
    deliveryId: `history-${n}`,
    occurredAt: new Date(Date.UTC(2026, 9, 1) + n * 1000).toISOString(),
    facts: ['placed', 'paid', 'fulfilled'],
    customer: { name: `Customer ${n}`, email: `customer${n}@example.com`, mobile: '+12125550142' },
    total: { amount: '42.00', currency: 'USD' },
    test: false,
    source: 'web',
    discountCodes: [],
    attributes: {},
    landingSite: null,
    refunds: [],
  };
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
