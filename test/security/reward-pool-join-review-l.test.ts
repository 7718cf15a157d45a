// Review L of issue 64: a store's account given the key of another's joins its pool (account-pools.ts), but each
// process keeps the accounts' keys POOLS_FRESH_MS, and a changed key read them anew no sooner: for those seconds the
// joining account reserved alone, under its own holder, on the pool's shared balance, while the first's redeems counted
// only their own pool: a customer's two presses, one in each store, one after the other, made two codes of one
// balance. An account whose runtime's key the kept list does not show now reads the list anew. A real engine and
// worker on the sandbox over HTTP (test/helpers/reward-world.ts), both ledgers.
import { describe, expect, it } from 'vitest';
import { poolsFrom } from '../../src/accounts/account-pools.ts';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import { sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  customerWithPoints,
  redeemIn,
  rewardWorld,
  secondStoreIn,
  twoStores,
  type RewardWorld,
} from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const customerWith = (w: RewardWorld, orders: number) =>
  customerWithPoints(world, w, {
    earned: orders * 100,
    orderId: () => String(64_997_000 + ++next),
    prefix: 'review-l',
  });

describe.each(ledgerBackends())('review L of the reward money, a pool joined (%s)', (_name, runs, open) => {
  it.runIf(runs)('L2: a store given the pool’s key just now makes no second code of the same points', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const ada = await customerWith(w, 2);
    let candidates = twoStores(w, 'the shared key', 'a key of its own');
    const clock = { now: 0 };
    const pools = poolsFrom(
      async () => candidates,
      () => clock.now,
    );
    const first: AccountRuntime = { ...w.account, pool: pools(w.account.id, 'the shared key') };
    const second = secondStoreIn(w, pools('second-store', 'the shared key'));
    await first.pool();
    // The merchant gives the second store the first's key (its calls now reach Ada's 200 points there) ...
    candidates = [candidates[0]!, { ...candidates[1]!, key: 'the shared key' }];
    clock.now += 1_000;
    const redeem = (account: AccountRuntime, shop: string) => redeemIn(w, account, ada, shop);
    // ... and Ada redeems her 200 points in the second store, then in the first.
    expect((await redeem(second, 'shop-2')).kind).toBe('issued');
    expect((await redeem(first, 'shop-1')).kind).toBe('short');
    expect(w.store.live()).toHaveLength(1);
  });

  it.runIf(runs)(
    'L2: a pool’s member on another instance reads the pool anew for a redeem when its new first joined',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      // The first store's account is the older: given the second's key, it leads their pool.
      let candidates = twoStores(w, 'a key of its own', 'the shared key');
      const clock = { now: 0 };
      // Two instances, each keeping the accounts' keys for a few seconds.
      const [onX, onY] = [
        poolsFrom(
          async () => candidates,
          () => clock.now,
        ),
        poolsFrom(
          async () => candidates,
          () => clock.now,
        ),
      ];
      const first: AccountRuntime = { ...w.account, pool: onX(w.account.id, 'the shared key') };
      const second = secondStoreIn(w, onY('second-store'));
      await second.pool();
      candidates = [{ ...candidates[0]!, key: 'the shared key' }, candidates[1]!];
      clock.now += 1_000;
      const redeem = (account: AccountRuntime, shop: string) => redeemIn(w, account, ada, shop);
      // Ada redeems her 200 points in the first store (on instance X), then in the second (on Y, which kept the keys).
      expect((await redeem(first, 'shop-1')).kind).toBe('issued');
      expect((await redeem(second, 'shop-2')).kind).toBe('short');
      expect(w.store.live()).toHaveLength(1);
    },
  );
});
