// An order placed with a reward code and paid days later (a bank transfer, payment terms): the code's discount is the
// order's from checkout on. Issue 64, review E's finding 4: in a store that counts uses late, a code withdrawn unused
// (its reward turned off) before the store counted that order's use was let go after the settling window, and the
// order, when it paid, redeemed nothing. The points now stay held while such an order waits for its payment (90 days
// at most), and go when it ends unpaid. A store that counts uses at once is asked, as before.
import { describe, expect, it } from 'vitest';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { BIG, DAY_MS, SETTLE_MS, offerRewards, rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_980_000 + ++next);

async function customerWith(w: RewardWorld, orders: number): Promise<string> {
  const email = `placed-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  for (let each = 0; each < orders; each += 1) await w.earn(email, orderId());
  await w.settle();
  await eventually(async () =>
    expect((await w.engine.accounts.runtime('default')) && balance(email)).toBe(orders * 100),
  );
  return email;
}

const balance = (email: string) => world.sandbox.store.balance({ name: '', email, mobile: '' }).approved;

/** A reward code of the customer's, and an order placed with it at the store's checkout (its use counted), not paid. */
async function placedWithCode(w: RewardWorld, email: string): Promise<{ code: string; order: string }> {
  const answer = await w.redeem(email, BIG);
  expect(answer.kind).toBe('issued');
  const code = answer.kind === 'issued' ? answer.code : '';
  w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
  const order = orderId();
  await w.pay(order, [code], { facts: ['placed'] });
  await w.settle();
  return { code, order };
}

describe.each(ledgerBackends())('an order placed with a code and paid later (%s)', (_name, runs, open) => {
  it.runIf(runs).each([
    ['counts uses at once', false],
    ['counts uses late', true],
  ])('in a store that %s, redeems the code when it pays days after the reward was turned off', async (_how, late) => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG], countsLate: late });
    const ada = await customerWith(w, 3);
    const { code, order } = await placedWithCode(w, ada);
    await offerRewards(w.ledger, [{ ...BIG, on: false }]);
    await w.sweeper.sweep();
    // Withdrawn from the store: no new order can use it.
    expect(w.store.live().map((each) => each.code)).not.toContain(code);
    w.clock.now += SETTLE_MS + 3 * DAY_MS;
    await w.sweeper.sweep();
    expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['issued']);
    await w.pay(order, [code]);
    await w.settle();
    await eventually(() => expect(w.redeems(ada)).toEqual([200]));
    expect(world.sandbox.store.balance({ name: '', email: ada, mobile: '' }).available).toBe(100);
  });

  it.runIf(runs).each([
    ['is cancelled', true],
    ['has not paid in 90 days', false],
  ])('lets the points go once the unpaid order %s', async (_how, cancelled) => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG], countsLate: true });
    const ada = await customerWith(w, 3);
    const { code, order } = await placedWithCode(w, ada);
    await offerRewards(w.ledger, [{ ...BIG, on: false }]);
    await w.sweeper.sweep();
    if (cancelled) await w.pay(order, [code], { facts: ['placed', 'cancelled'] });
    await w.settle();
    w.clock.now += cancelled ? 8 * DAY_MS + SETTLE_MS : 91 * DAY_MS;
    for (let pass = 0; pass < 3; pass += 1) await w.sweeper.sweep();
    expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['released']);
    expect(w.redeems(ada)).toEqual([]);
  });
});
