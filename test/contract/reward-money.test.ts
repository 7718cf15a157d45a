// Rewards keep the merchant's money (issue 64), on both ledger backends: a real engine and worker on the sandbox over
// HTTP, reward codes made in an in-memory store (test/helpers/reward-world.ts). Each finding of the issue, as a
// customer or a merchant would notice it: how many codes a burst makes, which orders redeem their codes, what a
// balance counted from the ledger remembers, what a cancelled earning does to a live code, what a slow make or a
// late use count leaves in the store.
import { describe, expect, it } from 'vitest';
import { codePattern } from '../../src/core/code-pattern.ts';
import { HELD } from '../../src/core/storefront/reservations.ts';
import { MAX_OPEN_CODES } from '../../src/core/storefront/reward-codes.ts';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';
import { orderEvent } from '../helpers/order-events.ts';
import {
  DAY_MS,
  REPAIR_MS,
  SETTLE_MS,
  mobileOf,
  offerRewards,
  rewardWorld,
  type RewardWorld,
} from '../helpers/reward-world.ts';

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
const SMALL: Reward = { ...BIG, id: 'small', points: 100, benefit: { kind: 'amount_off' as const, amount: '2.00' } };
const REWARDS = [BIG, SMALL];

let next = 0;
/** Order ids are integers at the service, distinct across the file's tests and backends (they share the sandbox). */
const orderId = () => String(64_000_000 + ++next);
const someone = () => `money-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** A customer with `orders` fulfilled orders' approved points. */
async function customerWith(w: RewardWorld, orders: number): Promise<{ email: string; orderIds: string[] }> {
  const email = someone();
  const orderIds = Array.from({ length: orders }, orderId);
  for (const id of orderIds) await w.earn(email, id);
  await w.settle();
  await eventually(() =>
    expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(orders * 100),
  );
  return { email, orderIds };
}

const issuedCode = (answer: { kind: string; code?: string }) => {
  expect(answer.kind).toBe('issued');
  return answer.code!;
};

describe.each(ledgerBackends())('rewards keep the merchant’s money (%s)', (_name, runs, open) => {
  it.runIf(runs)('makes no more open codes than the limit, whatever a burst of redeems asks', async () => {
    const w = await rewardWorld(world, await open(), { rewards: REWARDS });
    const { email } = await customerWith(w, 30);
    const answers = await Promise.all(Array.from({ length: 30 }, () => w.redeem(email, SMALL)));
    const issued = answers.filter((each) => each.kind === 'issued');
    expect(issued.length).toBeGreaterThan(0);
    expect(issued.length).toBeLessThanOrEqual(MAX_OPEN_CODES);
    expect(answers.filter((each) => each.kind === 'too-many').length).toBeGreaterThan(0);
    expect(w.store.live()).toHaveLength(issued.length);
    expect((await w.reservations(email)).filter((each) => HELD.has(each.state))).toHaveLength(issued.length);
  });

  it.runIf(runs)('redeems each reward code of an order once, and a pattern code beside them', async () => {
    const w = await rewardWorld(world, await open(), {
      rewards: REWARDS,
      policy: { redemption: { codePattern: codePattern('^LOYALTY-'), pointsPerUnit: 10 } },
    });
    const ada = await customerWith(w, 3);
    const big = issuedCode(await w.redeem(ada.email, BIG));
    const small = issuedCode(await w.redeem(ada.email, SMALL));
    // The payer has points of their own, spent by the merchant's LOYALTY- code (2.00 at 10 points a unit: 20).
    const paidBy = orderId();
    const payer = `payer-${paidBy}@example.com`;
    await w.earn(payer, orderId());
    await w.settle();
    await w.engine.accept(`pay-${paidBy}`, [
      orderEvent({
        orderId: paidBy,
        facts: ['placed', 'paid'],
        customer: { name: 'Payer', email: payer, mobile: mobileOf(payer) },
        discountCodes: [
          { code: big, amount: '5.00' },
          { code: small, amount: '2.00' },
          { code: 'LOYALTY-2', amount: '2.00' },
        ],
      }),
    ]);
    await w.settle();
    await eventually(() => expect(w.redeems(ada.email).sort()).toEqual([100, 200]));
    expect(w.redeems(payer)).toEqual([20]);
    expect((await w.reservations(ada.email)).map((each) => each.state)).toEqual(['redeemed', 'redeemed']);
    // Delivered again: nothing more is taken from anyone.
    await w.pay(paidBy, [big, small], { customer: { name: 'Payer', email: payer, mobile: mobileOf(payer) } });
    await w.settle();
    expect(w.redeems(ada.email)).toHaveLength(2);
    expect(w.redeems(payer)).toEqual([20]);
  });

  it.runIf(runs)(
    'spends a code’s points on an order that earns nothing (a source the program excludes, a test order)',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: REWARDS, policy: { excludedSources: ['pos'] } });
      const ada = await customerWith(w, 4);
      const atTheTill = issuedCode(await w.redeem(ada.email, BIG));
      const onTest = issuedCode(await w.redeem(ada.email, SMALL));
      w.store.use(w.store.usable(atTheTill, `customer-${ada.email}`, w.clock.now)!);
      w.store.use(w.store.usable(onTest, `customer-${ada.email}`, w.clock.now)!);
      await w.pay(orderId(), [atTheTill], { source: 'pos' });
      await w.pay(orderId(), [onTest], { test: true });
      await w.settle();
      await eventually(() => expect(w.redeems(ada.email).sort()).toEqual([100, 200]));
      // Long after their expiry, nothing is given back: the discounts were given, the points are spent.
      w.clock.now += 8 * DAY_MS + SETTLE_MS + 1_000;
      await w.sweeper.sweep();
      expect((await w.reservations(ada.email)).map((each) => each.state)).toEqual(['redeemed', 'redeemed']);
    },
  );

  it.runIf(runs)(
    'remembers spent points after their reservations are dropped, when the balance comes from the ledger',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: REWARDS });
      // An account whose `transaction` says nothing the bridge reads: its balance is counted from the ledger.
      const client = new Proxy(w.account.client, {
        get: (target, key) => (key === 'transactions' ? undefined : Reflect.get(target, key, target)),
      });
      // The ledger counts each earn by the points its activity is declared to give (LOYALTY_ACTIVITY_POINTS).
      const account = { ...w.account, client, activityPoints: { '1': 100 } };
      const ada = await customerWith(w, 3);
      const redeem = (reward: Reward) =>
        w.codes.redeem({
          platform: 'testshop',
          shop: 'shop-1',
          customerId: 'ada',
          account,
          customer: { email: ada.email },
          reward,
        });
      const first = issuedCode(await redeem(BIG));
      w.store.use(w.store.usable(first, 'ada', w.clock.now)!);
      await w.pay(orderId(), [first]);
      await w.settle();
      await eventually(async () => expect((await w.reservations(ada.email))[0]?.state).toBe('redeemed'));
      // Day 91: the redeemed reservation is dropped with the next write, but its 200 points stay spent.
      w.clock.now += 91 * DAY_MS;
      issuedCode(await redeem(SMALL));
      expect(await redeem(BIG)).toMatchObject({ kind: 'short', available: 0 });
      expect((await w.reservations(ada.email)).map((each) => each.state)).toEqual(['issued']);
    },
  );

  it.runIf(runs)('withdraws a live code once the orders that earned its points are cancelled', async () => {
    const w = await rewardWorld(world, await open(), { rewards: REWARDS });
    const ada = await customerWith(w, 2);
    const code = issuedCode(await w.redeem(ada.email, BIG));
    // Both orders refunded in full: their 200 points are cancelled at the service.
    for (const id of ada.orderIds)
      await w.engine.accept(`refund-${id}`, [
        orderEvent({
          orderId: id,
          facts: ['placed', 'paid', 'fulfilled', 'cancelled'],
          customer: { name: 'Ada', email: ada.email, mobile: mobileOf(ada.email) },
        }),
      ]);
    await w.settle();
    await eventually(async () => {
      expect(w.store.usable(code, `customer-${ada.email}`, w.clock.now)).toBeUndefined();
      expect((await w.reservations(ada.email))[0]).toMatchObject({
        state: 'released',
        endedWhy: expect.stringMatching(/cancelled/),
      });
    });
    expect(w.redeems(ada.email)).toEqual([]);
    expect(await w.engine.store.listDeadLetters()).toEqual([]);
  });

  it.runIf(runs)(
    'keeps the points held, and removes the code, when the store makes it after the bridge gave up',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: REWARDS });
      const ada = await customerWith(w, 2);
      const late = gate();
      w.store.makeAfterTimeout = late.opened;
      expect((await w.redeem(ada.email, BIG)).kind).toBe('failed');
      late.open();
      await eventually(() => expect(w.store.live()).toHaveLength(1));
      // A code is in the store: its reservation holds its points until the repair has looked.
      expect((await w.reservations(ada.email)).map((each) => each.state)).toEqual(['reserving']);
      w.clock.now += REPAIR_MS + 1_000;
      await w.sweeper.sweep();
      expect(w.store.live()).toEqual([]);
      expect((await w.reservations(ada.email)).map((each) => each.state)).toEqual(['released']);
    },
  );

  it.runIf(runs)(
    'keeps a code’s points for its order when the store counts its use late and its reward is turned off',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: REWARDS, countsLate: true });
      const ada = await customerWith(w, 3);
      const used = issuedCode(await w.redeem(ada.email, BIG));
      const unused = issuedCode(await w.redeem(ada.email, SMALL));
      // Paid at the till a moment before the merchant turns the rewards off; the store has not counted it yet.
      w.store.use(w.store.usable(used, `customer-${ada.email}`, w.clock.now)!);
      await offerRewards(
        w.ledger,
        REWARDS.map((reward) => ({ ...reward, on: false })),
      );
      await w.sweeper.sweep();
      expect(w.store.live()).toEqual([]);
      expect((await w.reservations(ada.email)).map((each) => each.state)).toEqual(['issued', 'issued']);
      // Its order arrives: its points are redeemed once.
      w.store.countLateUses();
      await w.pay(orderId(), [used]);
      await w.settle();
      await eventually(() => expect(w.redeems(ada.email)).toEqual([200]));
      // The unused one's points come back once the window for such an order has passed.
      w.clock.now += SETTLE_MS + 1_000;
      await w.sweeper.sweep();
      const states = Object.fromEntries((await w.reservations(ada.email)).map((each) => [each.code, each.state]));
      expect(states).toEqual({ [used]: 'redeemed', [unused]: 'released' });
    },
  );
});
