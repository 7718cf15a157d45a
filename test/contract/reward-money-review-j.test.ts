// Review J of issue 64: a customer's erasure against a reward code the store counted as used whose order has not
// reached the bridge yet (a webhook late, an order paid days after checkout). Its points are held for that order
// (the sweeper's usedAtPlatform): its order's redeem must still go once it comes, or the discount is free and the
// customer keeps the points to spend again. So must a refused code's, for the merchant's retry of its dead letter.
import { describe, expect, it } from 'vitest';
import { poolOf } from '../../src/accounts/account-pools.ts';
import { PLACED_WAIT_MS } from '../../src/core/storefront/code-sweeper.ts';
import { HOLDER_KIND, holderId } from '../../src/core/storefront/reservations.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { ledgerBackends } from '../helpers/ledger-backends.ts';
import {
  BIG,
  DAY_MS,
  redeemIn,
  refusedAtUse,
  secondStoreIn,
  twoStores,
  SHOP,
  SETTLE_MS,
  privacyOf,
  rewardWorld,
  type RewardWorld,
  customerWithCode as withCode,
} from '../helpers/reward-world.ts';

const world = sandboxWithEngines();

let next = 0;
const orderId = () => String(64_995_000 + ++next);

const customerWithCode = (w: RewardWorld, earned: number) =>
  withCode(world, w, { earned, orderId, prefix: 'review-j' });

const approved = (email: string) => world.sandbox.store.balance({ name: '', email, mobile: '' }).approved;

/**
 * The merchant's second store, on an account of its own with the same service and key: one pool, whose first (the
 * world's account) holds every code the second store reserves; and the erasure as the bridge's accounts wire it.
 */
function secondStore(w: RewardWorld) {
  const candidates = twoStores(w, 'the same key', 'the same key');
  const second = secondStoreIn(w, async () => poolOf('second-store', candidates));
  const accounts = {
    all: async () => [w.account, second],
    runtime: async (id: string) => [w.account, second].find((each) => each.id === id),
  };
  const privacy = new RewardPrivacy({
    ...{ store: w.ledger, accounts, codesOf: () => w.store.parts, settleMs: SETTLE_MS },
    ...{ logger: createLogger({ level: 'silent' }), now: () => new Date(w.clock.now) },
  });
  return { second, privacy };
}

describe.each(ledgerBackends())('a customer’s erasure against their reward codes, review J (%s)', (_n, runs, open) => {
  it.runIf(runs)(
    'J1: a code used in the store before the erasure, its order arriving after, is redeemed once',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      w.engine.privacy.kept.add(privacyOf(w));
      const { email, code } = await customerWithCode(w, 300);
      // The customer pays with the code at checkout; the store counts its use, the order's webhook is late.
      w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
      // Past its expiry the sweeper finds it used in the store: its points stay held for the order.
      w.clock.now += 7 * DAY_MS + SETTLE_MS + 60_000;
      await w.sweeper.sweep();
      expect((await w.reservations(email)).map((each) => [each.state, each.usedAtPlatform])).toEqual([
        ['issued', true],
      ]);
      await w.engine.privacy.eraseCustomer({ emails: [email], phones: [], orderIds: [] }, 'admin');
      // The order arrives: its discount is paid for by the code's points.
      const order = orderId();
      await w.pay(order, [code], { customer: { name: 'Ada', email, mobile: null } });
      await w.settle();
      await eventually(() => expect(w.redeems(email)).toEqual([200]), 5_000);
      expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).available).toBe(100);
      // And then nothing of the customer is left in the holders.
      expect(JSON.stringify(await w.ledger.listRecords(HOLDER_KIND))).not.toContain(email);
    },
  );

  it.runIf(runs)(
    'J1: a code used in the store before the erasure whose order never comes is let go, and its customer forgotten',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      w.engine.privacy.kept.add(privacyOf(w));
      const { email, code } = await customerWithCode(w, 300);
      w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
      // Erased before the sweeper looked: the store's count says the code was used.
      await w.engine.privacy.eraseCustomer({ emails: [email], phones: [], orderIds: [] }, 'admin');
      const holders = () => w.ledger.listRecords(HOLDER_KIND);
      expect(JSON.stringify(await holders())).toContain(email);
      // Its order never comes (a payment that failed, left open): let go once it can pay for nothing more.
      w.clock.now += 7 * DAY_MS + SETTLE_MS + PLACED_WAIT_MS + 60_000;
      await w.sweeper.sweep();
      expect(JSON.stringify(await holders())).not.toContain(email);
      expect(w.redeems(email)).toEqual([]);
      expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).available).toBe(300);
    },
  );

  it.runIf(runs)(
    'J2: a code refused at use before the customer’s erasure is still redeemed by the merchant’s retry',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      w.engine.privacy.kept.add(privacyOf(w));
      // Her points are spent elsewhere; the order that paid with the code is refused its redeem (a dead letter).
      const { email, refusal } = await refusedAtUse(world, w, { orderId, prefix: 'review-j' });
      expect((await w.reservations(email)).map((each) => each.state)).toEqual(['refused']);
      await w.engine.privacy.eraseCustomer({ emails: [email], phones: [], orderIds: [] }, 'admin');
      // She earns again at the service; the merchant retries the refused redeem, as its letter says to.
      for (const id of [orderId(), orderId()]) await w.earn(email, id);
      await w.settle();
      await eventually(() => expect(approved(email)).toBe(400));
      await w.engine.retryDeadLetter(refusal!);
      await w.settle();
      // The discount is paid for: as a code refused after the erasure is (kept until a person settles it).
      expect(w.redeems(email)).toEqual([200, 200]);
      expect(await w.engine.store.listDeadLetters()).toEqual([]);
      // Then nothing of her is left in the holders.
      expect(JSON.stringify(await w.ledger.listRecords(HOLDER_KIND))).not.toContain(email);
    },
  );

  it.runIf(runs)(
    'J3: an erasure asked for a pool’s second store forgets the customer’s code reserved in that store',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email } = await customerWithCode(w, 400);
      const { second, privacy } = secondStore(w);
      const there = await redeemIn(w, second, email, 'shop-2');
      expect(there.kind).toBe('issued');
      // The second store's merchant asks for the customer's erasure from their account (its shops' data alone).
      const match = { emails: [email], phones: [], orderIds: [] };
      const exported = JSON.stringify(await privacy.exportCustomer(match, 'second-store'));
      await privacy.eraseCustomer(match, 'second-store');
      const left = (await w.reservations(email)).map((each) => each.shop);
      // The export showed the code, and the erasure took it; the first store's code is not the second's to erase.
      expect([exported.includes('shop-2'), left]).toEqual([true, [SHOP]]);
    },
  );

  it.runIf(runs)(
    'J3: an erasure asked for a pool’s second store leaves the first store’s count of the customer’s spent points',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const email = `review-j-spent-${++next}@example.com`;
      for (const id of [orderId(), orderId(), orderId(), orderId()]) await w.earn(email, id);
      await w.settle();
      await eventually(() => expect(approved(email)).toBe(400));
      // The first store's holder of her remembers 100 points spent long ago (their reservations dropped).
      const holder = holderId(w.account.id, { email });
      await w.ledger.putRecord(HOLDER_KIND, holder, {
        ...{ account: w.account.id, customer: { email }, reservations: [], redeemedEarlier: 100 },
      });
      const { second, privacy } = secondStore(w);
      const there = await redeemIn(w, second, email, 'shop-2');
      expect(there.kind).toBe('issued');
      await privacy.eraseCustomer({ emails: [email], phones: [], orderIds: [] }, 'second-store');
      // A balance the first store counts from the ledger still leaves those 100 out.
      const after = await w.ledger.getRecord(HOLDER_KIND, holder);
      expect([after?.reservations.length, after?.redeemedEarlier]).toEqual([0, 100]);
    },
  );

  it.runIf(runs)(
    'J6: a refused code whose dead letter a retry took when the bridge stopped can still be retried or discarded',
    async () => {
      const w = await rewardWorld(world, await open(), { rewards: [BIG] });
      const { email, code, refusal } = await refusedAtUse(world, w, { orderId, prefix: 'review-j' });
      // A person presses Retry: the bridge takes the letter (whoever removes it retries it), and stops right then,
      // before the order is told (engine.ts, retryDeadLetter).
      await w.ledger.removeDeadLetter(refusal!.id);
      // Restarted, the sweeper passes, and a day goes by.
      w.clock.now += DAY_MS;
      await w.sweeper.sweep();
      await w.settle();
      // A letter a person can act on again, naming the code; their discard lets the points go.
      const letters = await w.engine.store.listDeadLetters();
      expect(letters.map((each) => each.reason.includes(code))).toEqual([true]);
      await w.engine.discardDeadLetter(letters[0]!.id);
      expect((await w.reservations(email)).map((each) => each.state)).toEqual(['released']);
    },
  );
});
