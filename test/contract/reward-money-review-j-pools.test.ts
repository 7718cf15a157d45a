// Review J of issue 64: a pool of accounts (account-pools.ts) whose membership changes while codes are open. A pool's
// member reserves every code under the pool's first account's holder; once the member leaves the pool (its key
// rotated at the same service, the old one leaked), it still counts the firsts it reserved under (pool-firsts.ts).
// Before that, it counted its own holders alone: the same points made a second code, refused at the service at use.
import { describe, expect, it } from 'vitest';
import { poolOf } from '../../src/accounts/account-pools.ts';
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
const orderId = () => String(64_996_000 + ++next);

const customerWith = (w: RewardWorld, orders: number) =>
  customerWithPoints(world, w, { earned: orders * 100, orderId, prefix: 'review-j-pool' });

describe.each(ledgerBackends())(
  'a pool whose member leaves while its codes are open, review J (%s)',
  (_n, runs, open) => {
    it.runIf(runs)('J4: a store that left its pool still counts the codes it reserved in it', async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      // The merchant's second store, on an account of its own with the same service and key: one pool.
      const candidates = twoStores(w, 'the same key', 'the same key');
      const second = secondStoreIn(w, async () => poolOf('second-store', candidates));
      expect((await redeemIn(w, second, ada, 'shop-2')).kind).toBe('issued');
      // The second store's key is rotated (same service, same customers): the registry finds it alone now.
      candidates[1] = { ...candidates[1]!, key: 'the rotated key' };
      // Ada's 200 points are held by the code the second store made: a second code would be refused at use.
      expect((await redeemIn(w, second, ada, 'shop-2')).kind).toBe('short');
      expect(w.store.live()).toHaveLength(1);
    });
  },
);
