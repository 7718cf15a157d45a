// The interleaving that would strand an order: a worker reads that its shop
// is linked to no account, and before it saves the order waiting, the shop is
// linked and the waiting orders woken. The wake must reach that order too
// (it waits for the worker to let go, then makes the order due), or it would
// sit until its late look hours later. Forced here: the shop is linked, and
// the wake sent, from inside the worker's own lookup. Both backends.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT, alone, type AccountRuntime, type Accounts } from '../../src/core/accounts.ts';
import type { Engine } from '../../src/core/engine.ts';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { AuthPause } from '../../src/core/worker/auth-pause.ts';
import { createLogger } from '../../src/logger.ts';
import { clientFor, eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';

const SHOP = 'linked-meanwhile.example';

describe.each([
  ['lowdb', true],
  ['postgres', postgresAvailable()],
] as const)('a shop linked while a worker decides its order must wait (%s)', (backend, available) => {
  const engines = sandboxWithEngines();
  const { start } = engines;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it.skipIf(!available)('earns at once once linked, not at the order’s late look', async () => {
    const logger = createLogger({ level: 'silent' });
    const runtime: AccountRuntime = {
      id: DEFAULT_ACCOUNT,
      name: 'default',
      pool: alone(DEFAULT_ACCOUNT),
      client: clientFor(engines.sandbox),
      policy: DEFAULT_POLICY,
      earnActivityId: '1',
      redeemReturnActivities: {},
      authPause: new AuthPause({ probe: async () => undefined, logger, onResume: () => undefined }),
    };
    let linked = false;
    let engine: Engine | undefined;
    let wake: Promise<number> | undefined;
    const accounts: Accounts = {
      async forShop(_platform, shop) {
        if (shop !== SHOP || linked) return DEFAULT_ACCOUNT;
        // The worker has read "no account"; the link lands now, and the waiting orders are woken.
        linked = true;
        wake = engine!.wakeWaiting({ waitingFor: 'account', platform: 'testshop', shop: SHOP });
        return undefined;
      },
      runtime: async (id) => (id === DEFAULT_ACCOUNT ? runtime : undefined),
      all: async () => [runtime],
      stop: () => runtime.authPause.stop(),
    };
    let store: LedgerStore | undefined;
    if (backend === 'postgres') {
      const opened = await freshStore();
      closers.push(() => opened.close());
      store = opened.store;
    }
    engine = await start({ accounts, ...(store ? { store, pollMs: 50 } : {}) });
    await engine.accept('paid-1', [orderEvent({ shop: SHOP, orderId: '9100', facts: ['placed', 'paid'] })]);
    await eventually(() => expect(linked).toBe(true));
    expect(await wake).toBe(1);
    await eventually(async () => {
      expect(engines.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === '9100')).toHaveLength(1);
    });
  });
});
