// A stop waits for the reconciliation under way only as long as it is told: a
// platform that answers late must neither hold the stop open nor write into
// a ledger that is closing.
import { afterEach, describe, expect, it } from 'vitest';
import { Reconciler } from '../../src/core/reconciler.ts';
import type { OrderSource, SubscriptionHealth } from '../../src/core/order-source.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { raw } from '../helpers/raw-records.ts';

let store: LowdbStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function hungReconciler() {
  store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  let answer: (health: SubscriptionHealth) => void = () => undefined;
  let wasAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (wasAsked = resolve));
  const source: OrderSource = {
    platform: 'bigcommerce',
    shops: async () => ['hungstore'],
    fetchOrders: async function* () {},
    fetchOrder: async () => undefined,
    checkSubscriptions: (shop) => {
      wasAsked();
      return new Promise((resolve) => {
        answer = resolve;
      }).then(() => ({
        platform: 'bigcommerce',
        shop,
        checkedAt: new Date().toISOString(),
        healthy: 2,
        repaired: [],
        problems: [],
      }));
    },
  };
  const reconciler = new Reconciler({
    sources: [source],
    store,
    ingest: {} as never,
    logger: createLogger({ level: 'silent' }),
    intervalMs: 0,
    overlapMs: 0,
    firstLookbackMs: 0,
  });
  return { reconciler, asked, answer: (health?: SubscriptionHealth) => answer(health!) };
}

describe('a reconciler told to stop', () => {
  it('stops at its deadline while a platform holds a check, and writes nothing when the answer comes late', async () => {
    const { reconciler, asked, answer } = await hungReconciler();
    const check = reconciler.checkAllSubscriptions();
    await asked;
    expect(await reconciler.stop(20)).toBe(false);
    answer();
    await check;
    expect(await store!.listRecords(raw('platform-health'))).toEqual([]);
  });

  it('waits for a check that ends in time, and keeps what it found', async () => {
    const { reconciler, asked, answer } = await hungReconciler();
    const check = reconciler.checkAllSubscriptions();
    await asked;
    const stopped = reconciler.stop();
    answer();
    expect(await stopped).toBe(true);
    await check;
    expect((await store!.listRecords(raw('platform-health'))).map(({ id }) => id)).toEqual(['bigcommerce:hungstore']);
  });

  it('starts no pass once stopped', async () => {
    const { reconciler } = await hungReconciler();
    await reconciler.stop();
    await reconciler.checkAllSubscriptions();
    await reconciler.run('bigcommerce');
    expect(await store!.listRecords(raw('platform-health'))).toEqual([]);
  });
});
