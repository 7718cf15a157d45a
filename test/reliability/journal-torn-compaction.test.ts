// The lowdb journal under a compaction a crash cut short (found in review):
// an order settled, then brought back by a late refund into the newest
// partition; the compaction writes both partitions, and the process dies
// after the newer one's rename, before the older one's. The next start must
// keep the newer copy alone: not list the order twice, not bring the old copy
// back once the order settles again, and let an erasure reach every copy.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore, type LowdbStoreOptions } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

let sequence = 0;
let clock = Date.now();
const keyOf = (orderId: string) => `testshop:shop-1:${orderId}`;
async function fold(store: LowdbStore, events: OrderEvent[]) {
  await store.accept({
    key: `r-${++sequence}`,
    aliases: [],
    receivedAt: new Date().toISOString(),
    events,
    retry: null,
  });
  const claimed = await store.claimInbox('me', 100);
  await store.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] })));
}
async function earnAll(store: LowdbStore) {
  for (const record of await store.claimDue('me', 1_000))
    await store.saveProgress(
      { ...record, dueAt: null, target: { state: 'earned' } },
      { owner: 'me', release: true, leaseMs: 0 },
    );
}
async function opened(options: LowdbStoreOptions) {
  const store = new LowdbStore(options);
  await store.open();
  return store;
}
function failingIo() {
  let failing: RegExp | undefined;
  const maybeFail = (what: string) => {
    if (failing?.test(what)) {
      failing = undefined;
      throw Object.assign(new Error(`ENOSPC ${what}`), { code: 'ENOSPC' });
    }
  };
  const io: LedgerIo = { ...nodeIo, rename: async (from, to) => (maybeFail(`rename ${to}`), nodeIo.rename(from, to)) };
  return { io, failNext: (pattern: RegExp) => (failing = pattern) };
}

async function tornMove() {
  const dataDir = tempDataDir();
  const control = failingIo();
  const options = { dataDir, activePartitionSize: 2, io: control.io, now: () => new Date(clock) };
  const first = await opened(options);
  await fold(
    first,
    ['8001', '8002', '8003'].map((orderId) => orderEvent({ orderId, facts: ['paid'] })),
  );
  await first.close(); // base: active-1 {8001, 8002}, active-2 {8003}
  const store = await opened(options);
  await earnAll(store);
  clock += 3_600_000;
  expect(await store.settleQuiet()).toBe(3); // journal: d 8001..8003
  // A late refund brings 8001 back from the settled chunks: it lands in the newest partition, active-2.
  await fold(store, [orderEvent({ orderId: '8001', deliveryId: 'refund-8001', facts: ['fullyRefunded'] })]);
  // The compaction (a clean stop here; the journal limit in production) writes active-2 with 8001 and
  // active-1 without it; the process dies after active-2's rename and before active-1's.
  control.failNext(/rename .*active-000001\.json$/);
  await expect(store.close()).rejects.toThrow(/ENOSPC/);
  return { dataDir, options: options as LowdbStoreOptions };
}

describe('a compaction torn between two partitions', () => {
  it('keeps only the newer copy of a moved order, through settling again and a restart', async () => {
    const { options } = await tornMove();
    const reopened = await opened(options);
    const live = await reopened.getOrder(keyOf('8001'));
    expect(live?.facts).toContain('fullyRefunded');
    const copies = (await reopened.listOrders({ page: 1, limit: 100 })).orders.filter((o) => o.key === keyOf('8001'));
    expect(copies).toHaveLength(1);
    // 8001 is worked and settles again; a later start finds the stale copy.
    await earnAll(reopened);
    clock += 3_600_000;
    await reopened.settleQuiet();
    await reopened.close();
    const later = await opened(options);
    const found = await later.getOrder(keyOf('8001'));
    expect(found?.facts).toContain('fullyRefunded');
    await later.close();
  });

  it('lets an erasure reach every copy on disk', async () => {
    const { dataDir, options } = await tornMove();
    const reopened = await opened(options);
    const match = { emails: ['ada@example.com'], phones: [], orderIds: [] };
    await reopened.eraseCustomer(match, (stored) => ({ about: false, redacted: stored }), new Date().toISOString());
    await reopened.close();
    const files = readdirSync(join(dataDir, 'orders')).filter((n) => n.endsWith('.json') || n.endsWith('.jsonl'));
    const holding = files.filter((n) => readFileSync(join(dataDir, 'orders', n), 'utf8').includes('ada@example.com'));
    expect(holding).toEqual([]);
  });
});
