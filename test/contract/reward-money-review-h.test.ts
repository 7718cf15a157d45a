// Review H of issue 64's reward money: what still lets one customer spend another's points, on both ledger backends,
// a real engine and worker on the sandbox over HTTP (test/helpers/reward-world.ts).
// - H1: a phone is paired with the e-mail of the order last earned with it (customer-holders.ts, emailLastEarned),
//   and a checkout's e-mail is whatever the shopper typed. One paid guest order naming a victim's e-mail beside the
//   shopper's own phone makes the shopper, signed in by that phone alone, the victim at the next redeem: their
//   reservation goes under the victim's holder, on the victim's balance, and the code is made for the shopper.
// - H2: a code whose redeem the service refused holds nothing ('refused'), so its points make a new code; a person's
//   retry of the refused redeem then takes those points at the service, and the new code, once used, is refused in turn.
// - H3: a merchant's second store on an account of its own with the same service and key (accounts.md: "they share
//   one budget") reads the same customer's points at the service, but reservations are kept per bridge account
//   (holderId(account.id, …)): the same 200 points make a 200-point code in each store.
import { describe, expect, it } from 'vitest';
import { poolOf } from '../../src/accounts/account-pools.ts';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { fenceOf, holderId } from '../../src/core/storefront/reservations.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { BIG, PLATFORM, SHOP, rewardWorld, type RewardWorld } from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_880_000 + ++next);
const approved = (email: string) => world.sandbox.store.balance({ name: '', email, mobile: '' }).approved;

/** A customer with `orders` × 100 approved points, each order carrying their e-mail and phone. */
async function customerWith(w: RewardWorld, orders: number): Promise<string> {
  const email = `review-h-${++next}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  for (let each = 0; each < orders; each += 1) await w.earn(email, orderId());
  await w.settle();
  await eventually(() => expect(approved(email)).toBe(orders * 100));
  return email;
}

/** A paid, fulfilled guest order naming `email` beside `phone`, as a shopper typed them at checkout; earned. */
async function guestOrder(w: RewardWorld, email: string, phone: string): Promise<void> {
  const id = orderId();
  await w.engine.accept(`earn-${id}`, [
    orderEvent({
      orderId: id,
      facts: ['placed', 'paid', 'fulfilled'],
      customer: { name: 'Mallory', email, mobile: phone },
    }),
  ]);
  await w.settle();
}

/**
 * The world's account ('default', the environment's key) and another on its service, created after it: its own id,
 * the world's client, and `key` its own; each with the pool the registry finds it in (account-pools.ts).
 */
function twoAccounts(w: RewardWorld, id: string, key: 'the same key' | 'another key') {
  const candidates = [
    { id: w.account.id, key: 'the same key', createdAt: '' },
    { id, key, createdAt: new Date().toISOString() },
  ];
  const first: AccountRuntime = { ...w.account, pool: async () => poolOf(w.account.id, candidates) };
  const twin: AccountRuntime = { ...w.account, id, name: id, pool: async () => poolOf(id, candidates) };
  return { first, twin };
}

const redeemIn = (w: RewardWorld, account: AccountRuntime, email: string, shop: string) =>
  w.codes.redeem({
    ...{ platform: PLATFORM, shop, customerId: `customer-${email}`, account },
    ...{ customer: { email }, reward: BIG },
  });

/** A phone no order in the ledger carries yet. */
const newPhone = () => `+4477006${String(10_000 + ++next).slice(-5)}`;

/**
 * A victim with 500 points, and a shopper's phone a guest checkout carried beside the victim's e-mail: the order
 * earned (for the victim), and the service now pairs that phone with the victim.
 */
async function phoneBesideVictim(w: RewardWorld): Promise<{ victim: string; phone: string }> {
  const victim = await customerWith(w, 4);
  const phone = newPhone();
  await guestOrder(w, victim, phone);
  await eventually(() => expect(approved(victim)).toBe(500));
  return { victim, phone };
}

describe.each(ledgerBackends())('review H of the reward money (%s)', (_name, runs, open) => {
  it.runIf(runs)(
    'H1: spends none of a customer’s points for a shopper who typed their e-mail at a guest checkout beside her own phone',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { victim, phone } = await phoneBesideVictim(w);
      // Signed in by that phone alone (the shop's record of her has no e-mail), she presses Redeem.
      const stolen = await w.codes.redeem({
        ...{ platform: PLATFORM, shop: SHOP, customerId: 'mallory-by-phone', account: w.account },
        ...{ customer: { mobile: phone }, reward: BIG },
      });
      // No code of the victim's points is made for her: the victim's 500 points still make two codes of 200 for them.
      expect(stolen.kind).not.toBe('issued');
      expect((await w.redeem(victim, BIG)).kind).toBe('issued');
      expect((await w.redeem(victim, BIG)).kind).toBe('issued');
      expect(w.store.live().map((code) => code.customerId)).not.toContain('mallory-by-phone');
    },
  );

  it.runIf(runs)(
    'H1b: shows a shopper signed in by her phone none of the points or orders of an e-mail she typed at a guest checkout',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { phone } = await phoneBesideVictim(w);
      const reader = new StorefrontReader({
        ...{ accounts: w.engine.accounts, store: w.ledger, liveFirst: () => false, share: 0.5 },
        held: (id, customer, source, at) => w.codes.held(id, customer, source, at),
        fence: (id, customer) => fenceOf(w.ledger, holderId(id, customer)),
        ...{ logger: createLogger({ level: 'silent' }), now: () => w.clock.now },
      });
      const page = await reader.points(w.account, { mobile: phone }, { platform: PLATFORM, shop: SHOP });
      // Her page, signed in by the phone alone: the victim's 500 points are not hers to see.
      const shown = page.ok ? page.points.balance.approved + page.points.balance.pending : 0;
      expect(shown).toBeLessThan(500);
    },
  );

  it.runIf(runs)(
    'H2: never refuses at use a code made while another’s refused redeem waited for a person’s retry',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const first = await w.redeem(ada, BIG);
      expect(first.kind).toBe('issued');
      // Her 200 points are spent elsewhere (another program's redeem at the service); then the code pays an order.
      world.sandbox.store.redeem({ email: ada }, 200);
      await w.pay(orderId(), [first.kind === 'issued' ? first.code : '']);
      await w.settle();
      const [refusal] = await w.engine.store.listDeadLetters();
      expect(refusal).toBeDefined();
      expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['refused']);
      // She earns 200 more; the merchant's page says "retry once the customer has the points again".
      for (const id of [orderId(), orderId()]) await w.earn(ada, id);
      await w.settle();
      await eventually(() => expect(approved(ada)).toBe(400));
      const second = await w.redeem(ada, BIG);
      await w.engine.retryDeadLetter(refusal!);
      await w.settle();
      // Whatever the retry did, a code the bridge made on points it held is redeemed when it pays.
      if (second.kind === 'issued') {
        await w.pay(orderId(), [second.code]);
        await w.settle();
        const made = (await w.reservations(ada)).find((each) => each.code === second.code);
        expect(made?.state).toBe('redeemed');
      }
    },
  );

  it.runIf(runs)(
    'H2: holds a refused code’s points for the merchant’s retry, and lets them go when a person discards its letter',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const first = await w.redeem(ada, BIG);
      world.sandbox.store.redeem({ email: ada }, 200);
      await w.pay(orderId(), [first.kind === 'issued' ? first.code : '']);
      await w.settle();
      const [refusal] = await w.engine.store.listDeadLetters();
      for (const id of [orderId(), orderId()]) await w.earn(ada, id);
      await w.settle();
      await eventually(() => expect(approved(ada)).toBe(400));
      // Her 200 new points are what the retry would take: no code is made on them while the letter waits.
      expect((await w.redeem(ada, BIG)).kind).toBe('short');
      await w.sweeper.sweep();
      expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['refused']);
      // The merchant gives the refused redeem up: the points are hers again, and the reservation says why.
      await w.engine.discardDeadLetter(refusal!.id);
      const [letGo] = await w.reservations(ada);
      expect(letGo).toMatchObject({ state: 'released', endedWhy: expect.stringContaining('discarded') });
      expect((await w.redeem(ada, BIG)).kind).toBe('issued');
    },
  );

  it.runIf(runs)(
    'H2: lets a refused code’s points go once a person retries it for an order cancelled meanwhile, not before',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const first = await w.redeem(ada, BIG);
      world.sandbox.store.redeem({ email: ada }, 200);
      const order = orderId();
      await w.pay(order, [first.kind === 'issued' ? first.code : '']);
      await w.settle();
      const [refusal] = await w.engine.store.listDeadLetters();
      // The order is cancelled while its letter waits: the sweeper lets nothing go on its own.
      await w.pay(order, [first.kind === 'issued' ? first.code : ''], { facts: ['placed', 'paid', 'cancelled'] });
      await w.settle();
      await w.sweeper.sweep();
      expect((await w.reservations(ada)).map((each) => each.state)).toEqual(['refused']);
      // The merchant retries it: the cancelled order redeems nothing, so the points are spared.
      await w.engine.retryDeadLetter(refusal!);
      await w.settle();
      await w.sweeper.sweep();
      const [after] = await w.reservations(ada);
      expect(after).toMatchObject({ state: 'released', endedWhy: expect.stringContaining('cancelled') });
      expect(w.redeems(ada)).toEqual([200]);
    },
  );

  it.runIf(runs)(
    'H3: makes one code of a customer’s points in two stores whose accounts share the service’s key, not one in each',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      // The merchant's second store, linked to an account of its own on the same service with the same key: the
      // registry gives it a runtime with its own id, the same client, and the pool the registry finds the two in
      // (src/accounts/account-pools.ts; a test engine has one account, so its runtime is copied under another id).
      const { first, twin } = twoAccounts(w, 'merchant-second-store', 'the same key');
      const here = await redeemIn(w, first, ada, SHOP);
      const there = await redeemIn(w, twin, ada, 'shop-2');
      expect(here.kind).toBe('issued');
      // 200 points at the service: the second code would pay an order whose redeem the service refuses.
      expect(there.kind).toBe('short');
      expect(w.store.live()).toHaveLength(1);
    },
  );

  it.runIf(runs)(
    'H3: counts a code the second store reserved under its own account before, and shares nothing across keys',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const ada = await customerWith(w, 2);
      const bob = await customerWith(w, 2);
      // A code reserved in the second store while its account was alone (before this fix): under its own holder.
      const { first, twin } = twoAccounts(w, 'merchant-second-store', 'the same key');
      expect((await redeemIn(w, { ...twin, pool: alone(twin.id) }, ada, 'shop-2')).kind).toBe('issued');
      // It still holds her points in the first store, now that the two accounts are one pool.
      expect((await redeemIn(w, first, ada, SHOP)).kind).toBe('short');
      // An account on the same service with a key of its own is another merchant: its code of Bob's points (as
      // that service's pool of Bob's points) is made beside the first store's.
      const apart = twoAccounts(w, 'another-merchant', 'another key');
      expect((await redeemIn(w, apart.first, bob, SHOP)).kind).toBe('issued');
      expect((await redeemIn(w, apart.twin, bob, 'shop-3')).kind).toBe('issued');
      expect(w.store.live()).toHaveLength(3);
    },
  );
});
