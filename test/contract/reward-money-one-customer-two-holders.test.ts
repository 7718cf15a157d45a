// One customer at the service, reached by two identifiers: their e-mail, and their phone (the service finds a customer
// by either, as the bridge's earns send both). A storefront names them by the e-mail where the platform's record has
// one, else by the phone (serviceCustomer): a customer whose record has no e-mail in one shop of the account (or had
// none when they first redeemed) holds codes under the phone, and under the e-mail in another. Points taken from the
// customer, by an earning's cancel or by hand, leave the codes under either identifier uncovered alike; and a redeem
// under one identifier must count the points held under the other (still open: it fails, a double spend).
import { describe, expect, it } from 'vitest';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { PLATFORM, SHOP, mobileOf, rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();
const BIG: Reward = {
  id: 'big',
  points: 200,
  amountOff: '5.00',
  minimumOrder: null,
  expiresInDays: 7,
  combines: true,
  on: true,
};

let next = 0;
const orderId = () => String(64_640_000 + ++next);

/** A customer with `orders` fulfilled orders' approved points, each order carrying their e-mail and phone. */
async function customerWith(w: RewardWorld, orders: number): Promise<{ email: string; orderIds: string[] }> {
  const email = `two-holders-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const orderIds = Array.from({ length: orders }, orderId);
  for (const id of orderIds) await w.earn(email, id);
  await w.settle();
  await eventually(() =>
    expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(orders * 100),
  );
  return { email, orderIds };
}

/** The customer asks for a reward in a shop whose record of them has their phone and no e-mail. */
const redeemByPhone = (w: RewardWorld, email: string, customerId: string) =>
  w.codes.redeem({
    platform: PLATFORM,
    shop: SHOP,
    customerId,
    account: w.account,
    customer: { mobile: mobileOf(email) },
    reward: BIG,
  });

describe.each(ledgerBackends())('one customer named by e-mail and by phone (%s)', (_name, runs, open) => {
  // A known defect, left open in issue 64: each reservation counts only what is held under its own identifier, so one
  // customer's points are spent twice under two. The fix needs the holders of one service customer counted together at
  // the reserve. Kept failing on purpose (it.fails): once fixed, this reports, and becomes a plain test.
  (runs ? it.fails : it.skip)(
    'issues no more codes than their points cover, whichever identifier each redeem names',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWith(w, 3);
      expect((await w.redeem(email, BIG)).kind).toBe('issued');
      // The same customer in another shop of the account, whose record there has their phone and no e-mail.
      const byPhone = await redeemByPhone(w, email, 'phone-only-7');
      // 300 points cover one code of 200: a second would pay an order whose redeem the service refuses.
      expect(byPhone.kind).not.toBe('issued');
      expect(w.store.live()).toHaveLength(1);
    },
  );

  it.runIf(runs)(
    'withdraws a code held under their phone once the orders that earned its points are cancelled',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const answer = await redeemByPhone(w, ada.email, 'phone-only-8');
      expect(answer.kind).toBe('issued');
      const code = (answer as { code: string }).code;
      // Both orders (with her e-mail and phone, as every order of hers) refunded in full: their 200 points cancelled.
      for (const id of ada.orderIds)
        await w.engine.accept(`refund-${id}`, [
          orderEvent({
            orderId: id,
            facts: ['placed', 'paid', 'fulfilled', 'cancelled'],
            customer: { name: 'Ada', email: ada.email, mobile: mobileOf(ada.email) },
          }),
        ]);
      await w.settle();
      await eventually(() =>
        expect(world.sandbox.store.balance({ name: '', email: ada.email, mobile: '' }).approved).toBe(0),
      );
      await w.sweeper.sweep();
      // The code would pay an order whose redeem the service refuses, at the merchant's cost.
      expect(w.store.usable(code, 'phone-only-8', w.clock.now)).toBeUndefined();
    },
  );

  it.runIf(runs)(
    'withdraws a code held under their phone once the merchant takes its points back by e-mail',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const answer = await redeemByPhone(w, ada.email, 'phone-only-9');
      expect(answer.kind).toBe('issued');
      const code = (answer as { code: string }).code;
      // Given in error: the merchant takes 100 back, naming her by the e-mail the service keys her by.
      const taken = await w.engine.adjustments.redeem({ email: ada.email, points: 100, reason: 'in error' }, 'test');
      expect(taken.adjustment.outcome).toBe('success');
      await w.sweeper.sweep();
      // 100 points left cannot cover the code's 200: it would pay an order whose redeem the service refuses.
      expect(w.store.usable(code, 'phone-only-9', w.clock.now)).toBeUndefined();
    },
  );
});
