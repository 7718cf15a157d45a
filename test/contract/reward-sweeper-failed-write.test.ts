// The sweeper's writes failing half way (a PostgreSQL connection lost, the bridge stopped), on both ledger backends:
// a real engine and worker on the sandbox, reward codes in an in-memory store (test/helpers/reward-world.ts).
//
// An order took a code and was cancelled before its redeem went, while the store counts a use of the code (another
// order's, its delivery on its way; or a store that keeps the cancelled order's use). The sweeper removes the code
// from the store and keeps its points held for the order whose use the store counts. It removed the code first:
// when the write after failed, the next pass found no code in the store, took it for one gone, let its points go and
// dropped its record, and the order that used it, when it came, redeemed nothing.
import { describe, expect, it } from 'vitest';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

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
const orderId = () => String(66_000_000 + ++next);
const someone = () => `failed-write-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function customerWith(w: RewardWorld, orders: number): Promise<string> {
  const email = someone();
  for (let i = 0; i < orders; i++) await w.earn(email, orderId());
  await w.settle();
  await eventually(() =>
    expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(orders * 100),
  );
  return email;
}

/** The next change of a reservation fails, as a write on a lost connection does (whatever the sweeper did before it). */
function failNextChange(w: RewardWorld): void {
  const end = w.codes.end.bind(w.codes);
  let armed = true;
  w.codes.end = async (...args) => {
    if (!armed) return end(...args);
    armed = false;
    throw new Error('Connection terminated unexpectedly');
  };
}

describe.each(ledgerBackends())('the sweeper’s writes failing half way (%s)', (_name, runs, open) => {
  it.runIf(runs)('keeps a used code’s points held for the order the store counted, across a failed write', async () => {
    const w = await rewardWorld(world, await open(), { rewards: [BIG] });
    const ada = await customerWith(w, 2);
    const customerId = `customer-${ada}`;
    const answer = await w.redeem(ada, BIG);
    expect(answer.kind).toBe('issued');
    const code = (answer as { code: string }).code;
    // Used at checkout; its order is cancelled before its redeem goes, and the store keeps counting the use.
    w.store.use(w.store.usable(code, customerId, w.clock.now)!);
    await w.pay(orderId(), [code], { facts: ['placed', 'paid', 'cancelled'] });
    await w.settle();
    expect((await w.reservations(ada))[0]?.state).toBe('used');
    failNextChange(w);
    await expect(w.sweeper.sweep()).resolves.toMatchObject({ failed: 1 });
    await w.sweeper.sweep();
    // Its points are still held: the order whose use the store counted takes them when it comes.
    expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['issued']);
    await w.pay(orderId(), [code]);
    await w.settle();
    await eventually(() => expect(w.redeems(ada)).toEqual([200]));
  });
});
