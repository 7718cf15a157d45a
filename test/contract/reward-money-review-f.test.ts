// Review F of issue 64's two latest rules: an order placed with a code and not paid yet keeps the code's points held
// (placed-orders.ts), and an erased shop's open code is kept by a digest for an order after a reinstall
// (erased-codes.ts). Each case is a sequence that lost the merchant's money, stranded a customer's points, or tied an
// erased customer to a shop again. Two more findings are documented limits (docs/storefront.md): an erased shop's
// code whose order was placed before its expiry and paid after it; an order placed as the reward goes off, in a
// store that counts no use of an unpaid order, its webhook on its way.
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  DAY_MS,
  PLATFORM,
  SETTLE_MS,
  SHOP,
  offerRewards,
  privacyOf,
  rewardWorld,
  type RewardWorld,
} from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_990_000 + ++next);

/** A customer with `orders` × 100 approved points. */
async function customerWith(w: RewardWorld, orders: number): Promise<string> {
  const email = `review-f-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  for (let each = 0; each < orders; each += 1) await w.earn(email, orderId());
  await w.settle();
  await eventually(() =>
    expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(orders * 100),
  );
  return email;
}

/** A reward code of the customer's, and an order placed with it at the store's checkout, not paid. */
async function placedWithCode(w: RewardWorld, email: string): Promise<{ code: string; order: string }> {
  const answer = await w.redeem(email, BIG);
  expect(answer.kind).toBe('issued');
  const code = answer.kind === 'issued' ? answer.code : '';
  const order = orderId();
  await w.pay(order, [code], { facts: ['placed'] });
  await w.settle();
  expect((await w.reservations(email))[0]?.placedBy).toHaveLength(1);
  return { code, order };
}

describe.each(ledgerBackends())('review F of the placed and erased codes (%s)', (_name, runs, open) => {
  it.runIf(runs)('redeems a late payment that a sweep sees before the worker takes the code', async () => {
    // A store that counts uses late: the one where a withdrawn code's points wait for an order placed with it.
    const w = await rewardWorld(world, await open(), { rewards: [BIG], countsLate: true });
    const ada = await customerWith(w, 3);
    const { code, order } = await placedWithCode(w, ada);
    // The merchant turns the reward off; the code is withdrawn, its points held for the placed order.
    await offerRewards(w.ledger, [{ ...BIG, on: false }]);
    await w.sweeper.sweep();
    w.clock.now += SETTLE_MS + 3 * DAY_MS;
    await w.sweeper.sweep();
    expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['issued']);
    // The bank transfer lands: the order's payment is saved, and the worker is on its way to take the code (busy
    // with other orders, or on another instance) when the sweep runs.
    const reach = gate();
    const letGo = gate();
    const claim = w.codes.claimForOrder.bind(w.codes);
    w.codes.claimForOrder = async (...args) => {
      reach.open();
      await letGo.opened;
      return claim(...args);
    };
    await w.pay(order, [code]);
    await reach.opened;
    await w.sweeper.sweep();
    letGo.open();
    await w.settle();
    // The order kept its 5.00 off: its 200 points are redeemed, and not the customer's to spend again.
    await eventually(() => expect(w.redeems(ada)).toEqual([200]), 3_000);
  });

  it.runIf(runs)('gives a customer their points back when the order placed with their code never pays', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const ada = await customerWith(w, 3);
    const { code, order } = await placedWithCode(w, ada);
    // Its payment fails (a declined card): WooCommerce's failed order shows no new fact and is never cancelled, and
    // the store gives the code's use back.
    await w.pay(order, [code], { facts: [] });
    await w.settle();
    // The code expired long ago: a year on, no payment terms keep an order open.
    w.clock.now += 7 * DAY_MS + SETTLE_MS + 365 * DAY_MS;
    for (let pass = 0; pass < 3; pass += 1) await w.sweeper.sweep();
    expect(w.redeems(ada)).toEqual([]);
    expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['released']);
  });

  it.runIf(runs)(
    'does not tie a customer to a shop again after their erasure there, through its erased code',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 3);
      const answer = await w.redeem(ada, BIG);
      const code = answer.kind === 'issued' ? answer.code : '';
      await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
      await privacyOf(w).eraseShop(PLATFORM, SHOP);
      await w.ledger.eraseShop(PLATFORM, SHOP);
      // Reinstalled; the customer asks this shop to erase them (customers/redact).
      const match = { platform: PLATFORM, shop: SHOP, emails: [ada], phones: [], orderIds: [] };
      await privacyOf(w).eraseCustomer(match);
      // Their code, which the erasure could not find by its digest, still pays in the store (unless withdrawn).
      const usable = w.store.usable(code, `customer-${ada}`, w.clock.now);
      if (usable) {
        w.store.use(usable);
        await w.pay(orderId(), [code]);
        await w.settle();
      }
      // Nothing of theirs in this shop comes back: no reservation of it, no redeem naming them.
      expect((await w.reservations(ada)).filter((each) => each.shop === SHOP)).toEqual([]);
      expect(w.redeems(ada)).toEqual([]);
    },
  );
});
