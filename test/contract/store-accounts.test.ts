// What the stores do for loyalty accounts (issue 32), on both backends: tell
// whether an account still has orders with work (an account is not removed
// under them), and wake the orders waiting for an account, of one shop, or
// of an account let in again, and only those.
import { afterEach, describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/core/order-record.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function open(backend: 'lowdb' | 'postgres'): Promise<LedgerStore> {
  if (backend === 'postgres') {
    const opened = await freshStore();
    closers.push(() => opened.close());
    return opened.store;
  }
  const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 60_000 });
  await store.open();
  closers.push(() => store.close());
  return store;
}

let sequence = 0;
/** An order folded in, claimed by a worker and saved with this progress and due time, as the worker saves it. */
async function orderWith(
  store: LedgerStore,
  shop: string,
  progress: (record: OrderRecord) => void,
  dueInMs: number | null,
): Promise<string> {
  const event = orderEvent({ shop, orderId: String(800_000 + ++sequence), facts: ['placed', 'paid'] });
  const key = `fold-${sequence}`;
  await store.accept({ key, aliases: [], receivedAt: new Date().toISOString(), retry: null, events: [event] });
  const claimed = await store.claimInbox('intake', 10, 60_000);
  await store.commitIntake(
    claimed.map((each) => ({ entryKey: each.key, ...(each.events ? { events: each.events } : {}) })),
  );
  const orderKey = `${event.platform}:${event.shop}:${event.orderId}`;
  const [record] = (await store.claimDue('worker', 10, 60_000)).filter((each) => each.key === orderKey);
  if (!record) throw new Error(`order ${orderKey} was not due`);
  progress(record);
  record.dueAt = dueInMs === null ? null : new Date(Date.now() + dueInMs).toISOString();
  expect(await store.saveProgress(record, { owner: 'worker', release: true, leaseMs: 60_000 })).toBe('saved');
  return orderKey;
}

const dueNow = async (store: LedgerStore, key: string) =>
  Date.parse((await store.getOrder(key))?.dueAt ?? 'x') <= Date.now();

describe.each([
  ['lowdb', true],
  ['postgres', postgresAvailable()],
] as const)('accounts in the store (%s)', (backend, available) => {
  it.skipIf(!available)('says whether an account has orders with work left', async () => {
    const store = await open(backend);
    expect(await store.hasWorkFor('account-a')).toBe(false);
    await orderWith(store, 'shop-1', (record) => (record.upstream.account = 'account-a'), null);
    expect(await store.hasWorkFor('account-a')).toBe(false);
    await orderWith(store, 'shop-1', (record) => (record.upstream.account = 'account-a'), 60_000);
    expect(await store.hasWorkFor('account-a')).toBe(true);
    expect(await store.hasWorkFor('account-b')).toBe(false);
  });

  it.skipIf(!available)('names the shops of orders whose account is not fixed yet, and only those', async () => {
    const store = await open(backend);
    await orderWith(store, 'unsent-shop', () => undefined, null);
    await orderWith(store, 'sent-shop', (record) => (record.upstream.account = 'account-a'), null);
    expect(await store.shopsWithUnfixedOrders()).toEqual([{ platform: 'testshop', shop: 'unsent-shop' }]);
  });

  it.skipIf(!available)('wakes the orders of a shop waiting for an account, and no other', async () => {
    const store = await open(backend);
    const waiting = (record: OrderRecord) => (record.work.waitingFor = 'account');
    const ofShop1 = await orderWith(store, 'shop-1', waiting, 6 * 3_600_000);
    const ofShop2 = await orderWith(store, 'shop-2', waiting, 6 * 3_600_000);
    const notWaiting = await orderWith(store, 'shop-1', () => undefined, 6 * 3_600_000);
    expect(await store.wakeWaiting({ waitingFor: 'account', platform: 'testshop', shop: 'shop-1' })).toBe(1);
    expect(await dueNow(store, ofShop1)).toBe(true);
    expect(await dueNow(store, ofShop2)).toBe(false);
    expect(await dueNow(store, notWaiting)).toBe(false);
  });

  it.skipIf(!available)('wakes the orders of an account let in again, whatever their shop', async () => {
    const store = await open(backend);
    const pausedA = (record: OrderRecord) => (record.work.waitingFor = 'pause:account-a');
    const first = await orderWith(store, 'shop-1', pausedA, 300_000);
    const second = await orderWith(store, 'shop-2', pausedA, 300_000);
    const ofB = await orderWith(store, 'shop-1', (record) => (record.work.waitingFor = 'pause:account-b'), 300_000);
    expect(await store.wakeWaiting({ waitingFor: 'pause:account-a' })).toBe(2);
    expect(await dueNow(store, first)).toBe(true);
    expect(await dueNow(store, second)).toBe(true);
    expect(await dueNow(store, ofB)).toBe(false);
  });
});
