// The worker's lease on an order is the fence of its calls: a call that waits
// in the rate limiter past the moment the lease is lost (another instance
// took the order over) is not sent. (Such a wait is rare since issue 33: an
// order whose account's budget is spent is let go before its call; a
// Retry-After that lands after the order was given its place still makes
// the call wait.) Against the sandbox over HTTP, with a
// store whose lease renewals report the claim gone, as a takeover does.
import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { clientFor, eventually, sandboxWithEngines, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { storeWith } from '../helpers/store-with.ts';

const harness = sandboxWithEngines();

/** The lowdb store, but renewing a worker's claims finds them taken over once `takenOver` is set. */
function storeLosingLeases(dataDir: string) {
  const state = { takenOver: false, renewals: 0 };
  const store = new LowdbStore({ dataDir });
  const proxied = storeWith(store, {
    renewClaims: async (...args: Parameters<LedgerStore['renewClaims']>) => {
      if (args[0] !== 'orders' || !state.takenOver) return store.renewClaims(...args);
      state.renewals++;
      return [];
    },
  });
  return { store: proxied as LedgerStore, state };
}

/**
 * A 429's Retry-After that lands just after the worker was given a place in
 * the budget: the call, past its gate, waits in the limiter longer than the lease.
 */
function holdAfterThePlace(client: ReturnType<typeof clientFor>, ms: number): void {
  const reserve = client.limiter.reserve.bind(client.limiter);
  client.limiter.reserve = () => {
    const place = reserve();
    client.limiter.holdFor(ms);
    return place;
  };
}

describe("the worker's lease fences its calls", () => {
  it('sends nothing for an order whose lease was lost while its call waited in the rate limiter', async () => {
    const dataDir = tempDataDir();
    const { store, state } = storeLosingLeases(dataDir);
    const client = clientFor(harness.sandbox);
    const engine = await harness.start({ dataDir, store, client, worker: { leaseMs: 600 } });
    // Every call waits here, as behind a 429's Retry-After, longer than the lease.
    holdAfterThePlace(client, 1_500);
    state.takenOver = true;
    await engine.accept('fenced', [orderEvent({ orderId: '7001', facts: ['placed', 'paid'] })]);
    await eventually(() => expect(state.renewals).toBeGreaterThan(0), 10_000);
    // The order's turn ends once its call was let through the limiter, sent or not: by then an unfenced call has
    // reached the service. (Before, a 1.7 s sleep, which a loaded machine could outlast with the call still waiting.)
    await eventually(() => expect(engine.worker.stats.inFlight).toBe(0), 10_000);
    expect(harness.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === '7001')).toEqual([]);
  });

  it('sends the call when the lease holds through the same wait', async () => {
    const dataDir = tempDataDir();
    const { store } = storeLosingLeases(dataDir);
    const client = clientFor(harness.sandbox);
    const engine = await harness.start({ dataDir, store, client, worker: { leaseMs: 600 } });
    holdAfterThePlace(client, 1_500);
    await engine.accept('held', [orderEvent({ orderId: '7002', facts: ['placed', 'paid'] })]);
    await eventually(
      () =>
        expect(harness.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === '7002')).toHaveLength(
          1,
        ),
      10_000,
    );
  });
});
