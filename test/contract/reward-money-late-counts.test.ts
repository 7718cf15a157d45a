// A store that counts a code's uses late (Shopify's asyncUsageCount): a code withdrawn once its points were cancelled
// keeps them held for its settling window, since an order that paid with it a moment before may still come. Issue 64,
// review D's finding B: every later check of the customer counted those points as held too, and withdrew a code their
// balance covered. And the other side: when that order does come, the code it paid with is counted again.
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { BIG, refunded, rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_990_000 + ++next);

/** A customer with `orders` fulfilled orders' approved points. */
async function customerWith(w: RewardWorld, orders: number): Promise<{ email: string; orderIds: string[] }> {
  const email = `late-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const orderIds = Array.from({ length: orders }, orderId);
  for (const id of orderIds) await w.earn(email, id);
  await w.settle();
  await eventually(() => expect(approved(email)).toBe(orders * 100));
  return { email, orderIds };
}

const approved = (email: string) => world.sandbox.store.balance({ name: '', email, mobile: '' }).approved;

/** Each order refunded in full, then the sweeper's pass. */
async function refundedSwept(w: RewardWorld, email: string, orderIds: string[]): Promise<void> {
  await refunded(w, email, orderIds);
  await w.sweeper.sweep();
}

const issued = (answer: { kind: string; code?: string }) => {
  expect(answer.kind).toBe('issued');
  return answer.code!;
};

describe.each(ledgerBackends())('codes in a store that counts uses late (%s)', (_name, runs, open) => {
  it.runIf(runs)(
    'withdraws one code when points are cancelled, and not the next one a later cancel leaves covered',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG], countsLate: true });
      const ada = await customerWith(w, 5);
      const first = issued(await w.redeem(ada.email, BIG));
      w.clock.now += 1_000;
      const second = issued(await w.redeem(ada.email, BIG));
      // 500 points, 400 held; two orders refunded leave 300: the newest code goes, the first is covered.
      await refundedSwept(w, ada.email, ada.orderIds.slice(0, 2));
      await eventually(() => expect(approved(ada.email)).toBe(300));
      expect(w.store.live().map((each) => each.code)).toEqual([first]);
      // One more refunded leaves 200, which still covers the first code: the withdrawn one is no longer theirs to lose.
      await refundedSwept(w, ada.email, ada.orderIds.slice(2, 3));
      await eventually(() => expect(approved(ada.email)).toBe(200));
      await w.sweeper.sweep();
      expect(w.store.live().map((each) => each.code)).toEqual([first]);
      expect(second).not.toBe(first);
    },
  );

  it.runIf(runs)('withdraws the other code when an order paid with the withdrawn one arrives late', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG], countsLate: true });
    const ada = await customerWith(w, 5);
    const first = issued(await w.redeem(ada.email, BIG));
    w.clock.now += 1_000;
    const second = issued(await w.redeem(ada.email, BIG));
    // Paid at the till a moment before two orders are refunded; the store has not counted the use yet.
    w.store.use(w.store.usable(second, `customer-${ada.email}`, w.clock.now)!);
    await refundedSwept(w, ada.email, ada.orderIds.slice(0, 2));
    await eventually(() => expect(approved(ada.email)).toBe(300));
    // Its order comes: its 200 points are redeemed, and the 100 left cannot cover the first code, which goes.
    w.store.countLateUses();
    await w.pay(orderId(), [second]);
    await w.settle();
    await eventually(() => expect(w.redeems(ada.email)).toEqual([200]));
    await w.sweeper.sweep();
    expect(w.store.usable(first, `customer-${ada.email}`, w.clock.now)).toBeUndefined();
  });
});
