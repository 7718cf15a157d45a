// The service pairs a phone with the e-mail of every earn that names both, whichever sent it: an order's earn whose
// answer was lost, a merchant's earn by hand. The bridge pairs a phone only with the e-mail of an order its ledger
// saw earned (customer-holders.ts). Where the two differ, a redeem by phone read the e-mail's balance at the service
// but reserved under the phone's own holder, which no redeem by e-mail counts: one balance, two compare-and-sets.
// A phone the ledger cannot pair is now refused a redeem (needs-email). Review C of issue 64 (rev64c); on both ledger
// backends, a real engine and worker on the sandbox over HTTP (test/helpers/reward-world.ts).
import { describe, expect, it } from 'vitest';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { PLATFORM, SHOP, rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();
const BIG: Reward = {
  id: 'big',
  points: 200,
  benefit: { kind: 'amount_off' as const, amount: '5.00' },
  minimumOrder: null,
  expiresInDays: 7,
  combines: true,
  on: true,
};

let next = 0;
const orderId = () => String(64_630_000 + ++next);
const approved = (email: string) => world.sandbox.store.balance({ name: '', email, mobile: '' }).approved;

/** A customer with `orders` fulfilled orders' approved points, each order carrying their e-mail and phone. */
async function customerWith(w: RewardWorld, orders: number): Promise<{ email: string; orderIds: string[] }> {
  const email = `pairing-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const orderIds = Array.from({ length: orders }, orderId);
  for (const id of orderIds) await w.earn(email, id);
  await w.settle();
  await eventually(() => expect(approved(email)).toBe(orders * 100));
  return { email, orderIds };
}

/** Another phone of theirs, one no order in the ledger carries. */
const newPhone = () => `+4477008${String(10_000 + ++next).slice(-5)}`;

/** The customer asks for a reward in a shop whose record of them has this phone and no e-mail. */
const redeemByPhone = (w: RewardWorld, mobile: string, customerId: string) =>
  w.codes.redeem({ platform: PLATFORM, shop: SHOP, customerId, account: w.account, customer: { mobile }, reward: BIG });

describe.each(ledgerBackends())('a phone the service pairs otherwise than the ledger (%s)', (_name, runs, open) => {
  it.runIf(runs)(
    'issues no more codes than their points cover after a merchant earns them points by hand with a new phone',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWith(w, 3);
      // The merchant's page asks for the customer's phone with a manual earn: the service pairs it with the e-mail.
      const mobile = newPhone();
      const given = await w.engine.adjustments.earn(
        { activityId: '1', name: 'Ada', email, mobile, reason: 'a goodwill gesture' },
        'test',
      );
      expect(given.adjustment.outcome).toBe('success');
      expect((await w.redeem(email, BIG)).kind).toBe('issued');
      // The same customer signed in by that phone in a shop whose record of them has no e-mail.
      const byPhone = await redeemByPhone(w, mobile, 'phone-only-21');
      // 300 points cover one code of 200: a second pays an order whose redeem the service refuses.
      expect(byPhone.kind).toBe('needs-email');
      expect(w.store.live()).toHaveLength(1);
    },
  );

  it.runIf(runs)(
    "issues no more codes than their points cover while an order's earn with a new phone is in doubt",
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWith(w, 3);
      const mobile = newPhone();
      // The earn lands at the service, which pairs the phone with the e-mail, and its answer is lost, each try.
      world.sandbox.faults.configure({ failureRate: 1, failurePhase: 'after', onlyPath: '/loyalty/v1/earn/' });
      const id = orderId();
      await w.engine.accept(`earn-${id}`, [
        orderEvent({ orderId: id, facts: ['placed', 'paid'], customer: { name: 'Ada', email, mobile } }),
      ]);
      await eventually(() => expect(world.sandbox.store.findCustomer({ mobile })?.email).toBe(email));
      expect((await w.redeem(email, BIG)).kind).toBe('issued');
      const byPhone = await redeemByPhone(w, mobile, 'phone-only-22');
      expect(byPhone.kind).toBe('needs-email');
      expect(w.store.live()).toHaveLength(1);
    },
  );
});
