// Resync jobs on one instance: however many are asked for, only a few run at
// once (each holds a database session and keeps the platform's API busy);
// the rest wait their turn and run after.
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/core/ingest.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { OrderSource } from '../../src/core/order-source.ts';
import { MAX_RUNNING, ResyncJobs } from '../../src/core/resync-jobs.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';

describe('resync jobs', () => {
  it(`run at most ${MAX_RUNNING} at once on an instance, and every one asked for runs`, async () => {
    const store = new LowdbStore({ dataDir: tempDataDir() });
    await store.open();
    let active = 0;
    let most = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const shops = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}.example`);
    const source: OrderSource = {
      platform: 'testshop',
      shops: async () => shops,
      checkSubscriptions: null,
      // eslint-disable-next-line require-yield -- a source that only holds its turn, then ends
      async *fetchOrders(): AsyncGenerator<OrderEvent> {
        active++;
        most = Math.max(most, active);
        await released;
        active--;
      },
      fetchOrder: async () => undefined,
    };
    const jobs = new ResyncJobs([source], store, ingest(store), createLogger({ level: 'silent' }));
    try {
      const started = await Promise.all(
        shops.map((shop) => jobs.start({ platform: 'testshop', shop, since: new Date(0) })),
      );
      expect(started.every((result) => result.ok)).toBe(true);
      await eventually(() => expect(active).toBe(MAX_RUNNING));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(most).toBe(MAX_RUNNING);
      release();
      await jobs.idle();
      expect((await jobs.list()).map((job) => job.status)).toEqual(shops.map(() => 'done'));
    } finally {
      await store.close();
    }
  });
});
