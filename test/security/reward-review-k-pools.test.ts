// Review K of issue 64's pools (pool-firsts.ts, customer-holders.ts): a pool's members meet at one compare-and-set,
// the first account's holder, only while they see the same pool. Each instance keeps the pool POOLS_FRESH_MS, and a
// redeem keeps the pool it read at its start: when the first account takes a key of its own, a redeem of the second
// store under the pool as it was (its reservation under the former first's holder, its note written just before) and
// one under the pool as it is (its own holder, the notes read before that note was written) each count what the other
// holds nowhere. Each now reads every holder again after its write (reserve-code.ts), and one lets go. A real engine
// and worker on the sandbox over HTTP (test/helpers/reward-world.ts), both ledgers.
import { describe, expect, it } from 'vitest';
import { poolOf, type PoolCandidate } from '../../src/accounts/account-pools.ts';
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
    orderId: () => String(64_995_000 + ++next),
    prefix: 'review-k',
  });

describe.each(ledgerBackends())('review K of the reward money, pools (%s)', (_name, runs, open) => {
  it.runIf(runs)(
    'K4: two redeems of one customer as the pool changes under them spend none of her points twice',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 4);
      const before = twoStores(w, 'the same key', 'the same key');
      // The first store's account given a key of its own: one instance (or a redeem begun before) still sees the
      // pool as it was, another sees it as it is.
      const after: PoolCandidate[] = [{ ...before[0]!, key: 'a new key' }, before[1]!];
      const secondAs = (candidates: PoolCandidate[]) =>
        secondStoreIn(w, async () => poolOf('second-store', candidates));
      const redeem = (account: AccountRuntime) => redeemIn(w, account, ada, 'shop-2');
      // A first code of her 400 points, under the pool as it was: the second store's note of its first is written.
      expect((await redeem(secondAs(before))).kind).toBe('issued');
      // Ada presses Redeem in two tabs, each reaching another instance.
      const made = await Promise.all([redeem(secondAs(before)), redeem(secondAs(after))]);
      // The 200 points left make one code at most, never a third code of 400 points: a press that met the other
      // lets go and asks her to press again (busy), and both may.
      const issued = made.filter(({ kind }) => kind === 'issued');
      expect(issued.length).toBeLessThanOrEqual(1);
      expect(made.map(({ kind }) => kind).every((kind) => ['issued', 'short', 'busy'].includes(kind))).toBe(true);
      // Pressed again, once the pool is as it is: her 200 points left make their code, once.
      const again = await redeem(secondAs(after));
      expect(again.kind).toBe(issued.length === 0 ? 'issued' : 'short');
      expect(w.store.live()).toHaveLength(2);
    },
  );
});
