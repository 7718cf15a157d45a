// An lp_orderid's registration rides with the order's intent save (one
// group commit for both, lowdb): a round in which the order's journal was
// written and the registry's failed leaves, after a crash, an order that
// carries its lp_orderid and a registry that does not (found in review).
// Another store's order may take the id first: then the first order's next
// call must be held as a collision, never sent under an id another holds;
// and if none did, the first order's claim before its call makes the
// registration durable before anything is sent.
import { describe, expect, it } from 'vitest';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore, type LowdbStoreOptions } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

const key = 'testshop:shop-1:9001';

async function opened(options: LowdbStoreOptions) {
  const store = new LowdbStore(options);
  await store.open();
  return store;
}

/** The worker's steps up to its intent save, whose round fails on the registry's journal alone; then the process dies. */
async function intentSavedWithoutItsRegistration(): Promise<string> {
  const dataDir = tempDataDir();
  let failing: RegExp | undefined;
  const io: LedgerIo = {
    ...nodeIo,
    openAppend: async (path) => {
      const file = await nodeIo.openAppend(path);
      return {
        append: async (text, sync) => {
          if (failing?.test(path)) {
            failing = undefined;
            throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
          }
          return file.append(text, sync);
        },
        close: () => file.close(),
      };
    },
  };
  const store = await opened({ dataDir, io });
  await store.accept({
    key: 'e1',
    aliases: [],
    receivedAt: new Date().toISOString(),
    events: [orderEvent({ orderId: '9001', facts: ['paid'] })],
    retry: null,
  });
  const claimed = await store.claimInbox('me', 10);
  await store.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] })));
  const [record] = await store.claimDue('me', 10);
  expect(await store.claimLpOrderId('9001', key, { durable: false })).toBe(key);
  record!.upstream.lpOrderId = '9001';
  record!.upstream.points = 'earning';
  failing = /lp-order-ids/;
  await expect(store.saveProgress(record!, { owner: 'me', release: false, leaseMs: 0 })).rejects.toThrow(/EIO/);
  return dataDir;
}

describe('an lp_orderid registration whose write failed with the intent’s', () => {
  it('is claimed again before the order’s call, durably, when no other order took it', async () => {
    const dataDir = await intentSavedWithoutItsRegistration();
    const reopened = await opened({ dataDir });
    expect((await reopened.getOrder(key))?.upstream.lpOrderId).toBe('9001');
    // The worker claims before each call (worker.ts #lpOrderId), and durably when no intent is saved first.
    expect(await reopened.claimLpOrderId('9001', key, { durable: false })).toBe(key);
    expect(await reopened.claimLpOrderId('9001', key)).toBe(key);
    // The process dies again: the registration is there.
    const again = await opened({ dataDir });
    expect(await again.claimLpOrderId('9001', 'woocommerce:other:9001')).toBe(key);
    await again.close();
  });

  it('is found taken when another order claimed it first: the order’s call is held, not sent', async () => {
    const dataDir = await intentSavedWithoutItsRegistration();
    const reopened = await opened({ dataDir });
    expect(await reopened.claimLpOrderId('9001', 'woocommerce:other:9001')).toBe('woocommerce:other:9001');
    // The first order's claim before its call names the other owner: the worker dead-letters it as a collision.
    expect(await reopened.claimLpOrderId('9001', key, { durable: false })).toBe('woocommerce:other:9001');
    await reopened.close();
  });
});
