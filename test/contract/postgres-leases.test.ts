// Leases on a shared PostgreSQL ledger (issue 17, item 10): an order stays
// with the instance that works on it for as long as the work runs, however
// long its call waits in the shared rate limiter (a 429's Retry-After holds
// every instance's calls, up to 10 minutes), and a call whose lease was lost
// meanwhile is not sent. Two engines in this process stand for two bridges:
// each has its own pools, owner, client and view of the shared limiter.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { clientFor, eventually, openTestEngine } from '../helpers/engine.ts';
import { foldEvents } from '../helpers/postgres-store.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { openStoreOn } from '../helpers/postgres-store.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

const LEASE_MS = 1_500;

let database: TestDatabase;
let sandbox: TestSandbox;
const running: Array<() => Promise<void>> = [];
beforeAll(async () => {
  if (!postgresAvailable()) return;
  database = await freshDatabase();
  sandbox = await startTestSandbox();
});
// Each case's instances go with it: one left running would take the next case's orders.
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
  sandbox.faults.configure({});
}, 60_000);
afterAll(async () => {
  if (!postgresAvailable()) return;
  await sandbox.close();
  await database.drop();
});

/** One bridge's engine on the shared database, counting the calls it sends. */
async function instance() {
  const { store, close, sharedLimiter } = await openStoreOn(database.url, { poolSize: 3 });
  let attempts = 0;
  // One retry, soon: the attempt after a 429 waits out its Retry-After in the shared limiter.
  const client = clientFor(sandbox, {
    onAttempt: () => attempts++,
    limiter: sharedLimiter(100_000, 'lease-test-key', 60_000),
    maxRetries: 1,
    minRetryDelayMs: 100,
    maxRetryDelayMs: 100,
  });
  const engine: Engine = await openTestEngine(sandbox, {
    store,
    client,
    pollMs: 100,
    worker: { leaseMs: LEASE_MS },
    intake: { leaseMs: LEASE_MS },
  });
  const stop = async () => {
    await engine.stop(2_000);
    await close();
  };
  running.push(stop);
  return { engine, client, store, attempts: () => attempts };
}

let sequence = 0;
const paidOrder = () => orderEvent({ platform: 'leases', orderId: String(420_000 + ++sequence), facts: ['paid'] });

describe.skipIf(!postgresAvailable())('leases on a shared PostgreSQL ledger', () => {
  it('tells claims of one order apart by their tokens: after the lease ran out and the order was claimed again, the older claim renews and saves nothing', async () => {
    const { store, close } = await openStoreOn(database.url, { poolSize: 2 });
    try {
      const [order] = await foldEvents(store, [paidOrder()]);
      const key = order!.key;
      expect((await store.claimDue('one/worker/1', 100, 50)).map((record) => record.key)).toContain(key);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Expired, claimed by nobody yet: still the holder's, and renewed.
      expect(await store.renewClaims('orders', [{ key, owner: 'one/worker/1' }], 50)).toEqual([
        { key, owner: 'one/worker/1' },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = (await store.claimDue('one/worker/2', 100, 60_000)).find((record) => record.key === key)!;
      expect(again).toBeDefined();
      expect(
        await store.renewClaims(
          'orders',
          [
            { key, owner: 'one/worker/1' },
            { key, owner: 'one/worker/2' },
          ],
          60_000,
        ),
      ).toEqual([{ key, owner: 'one/worker/2' }]);
      expect(
        await store.saveProgress({ ...again, dueAt: null }, { owner: 'one/worker/1', release: true, leaseMs: 60_000 }),
      ).toBe('lost');
      expect(
        await store.saveProgress({ ...again, dueAt: null }, { owner: 'one/worker/2', release: true, leaseMs: 60_000 }),
      ).toBe('saved');
    } finally {
      await close();
    }
  });

  it('keeps an order with the instance whose call waits out a Retry-After in the shared limiter, four times the lease: the other never works on it', async () => {
    const first = await instance();
    const second = await instance();
    // The service answers the first call 429 and asks for 6 s: every instance's calls wait.
    sandbox.faults.configure({ forced: { status: 429, count: 1, retryAfterSeconds: (4 * LEASE_MS) / 1000 } });
    await first.engine.startWorker();
    const event = paidOrder();
    await first.engine.accept(`lease-wait-${event.orderId}`, [event]);
    await eventually(() => expect(first.attempts()).toBe(1), 10_000);
    // The second instance looks for work every 100 ms from now on.
    await second.engine.startWorker();
    await eventually(
      async () =>
        expect((await first.store.getOrder(`leases:shop-1:${event.orderId}`))?.upstream.points).toBe('earned'),
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));

    // The first instance's 429 and its retry; nothing from the second.
    expect({ first: first.attempts(), second: second.attempts() }).toEqual({ first: 2, second: 0 });
    expect(await first.store.listDeadLetters()).toEqual([]);
    expect(
      sandbox.store.snapshot().earnings.filter((earning) => earning.orderId?.endsWith(event.orderId)),
    ).toHaveLength(1);
  }, 40_000);

  it('does not send a call whose lease was taken while it waited out a Retry-After', async () => {
    const only = await instance();
    sandbox.faults.configure({ forced: { status: 429, count: 1, retryAfterSeconds: (2 * LEASE_MS) / 1000 } });
    await only.engine.startWorker();
    const event = paidOrder();
    const key = `leases:shop-1:${event.orderId}`;
    await only.engine.accept(`lease-lost-${event.orderId}`, [event]);
    // Refused once: the retry now waits in the limiter.
    await eventually(() => expect(only.attempts()).toBe(1), 10_000);

    // Another instance took the order over (its lease was seen expired, say, while this one could not reach the database).
    const thief = new pg.Client({ connectionString: database.url });
    await thief.connect();
    await thief.query(
      "UPDATE lb_orders SET lease_owner = 'another-instance', lease_until = now() + interval '1 hour' WHERE key = $1",
      [key],
    );
    await thief.end();

    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    await only.client.limiter.onIdle();
    expect(only.attempts()).toBe(1);
    expect(sandbox.store.snapshot().earnings.filter((earning) => earning.orderId?.endsWith(event.orderId))).toEqual([]);
  }, 30_000);
});
