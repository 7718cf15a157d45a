// A step of intake whose lease ran out before it wrote (its event loop stalled past the lease: a long GC, a
// blocked thread) writes nothing, as the fence says. On the embedded ledger nobody else can take the entry over
// (its holds never run out, one process holds the directory), so the step lets go of it, fenced by its claim's
// token: the delivery is folded by the next claim, not left waiting until a restart.
import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { eventually, sandboxWithEngines, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { storeWith } from '../helpers/store-with.ts';

const harness = sandboxWithEngines();
const LEASE_MS = 300;

/** The event loop held for `ms`, as a stall holds it: no timer, no renewal runs meanwhile. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy, as a stalled process is.
  }
}

describe("intake's lease, lapsed before its step wrote", () => {
  it('lets go of the entry, and the delivery is folded by the next claim on the embedded ledger', async () => {
    const dataDir = tempDataDir();
    const store = new LowdbStore({ dataDir });
    let stalls = 0;
    const stalling = storeWith(store, {
      claimInbox: async (...args: Parameters<LedgerStore['claimInbox']>) => {
        const claimed = await store.claimInbox(...args);
        // The first claim that takes the entry: its lease has run out by the time its step starts.
        if (claimed.length > 0 && stalls++ === 0) stall(LEASE_MS * 2);
        return claimed;
      },
    }) as LedgerStore;
    const engine = await harness.start({ dataDir, store: stalling, intake: { leaseMs: LEASE_MS } });
    await engine.accept('lapsed', [orderEvent({ orderId: '8101', facts: ['placed', 'paid'] })]);
    await eventually(async () => expect(stalls).toBeGreaterThan(1), 10_000);
    await eventually(
      async () =>
        expect((await store.listOrders({ page: 1, limit: 10 })).orders.map(({ orderId }) => orderId)).toEqual(['8101']),
      10_000,
    );
  });
});
