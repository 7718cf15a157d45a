// Reserve at issue, redeem at use, wired as src/composition/storefront-reader.ts wires it, on a ledger the test
// opens: a real engine and worker on the sandbox over HTTP, the storefront's reader, RewardCodes, CoverChecks (with a
// take-back's), and the CodeSweeper, and the codes of an in-memory store (fake-code-store.ts) on the clock the test moves. Customers earn
// by fulfilled orders (100 approved points each, the sandbox's activity '1') and pay with codes by paid orders.
import { expect } from 'vitest';
import type { PoolCandidate } from '../../src/accounts/account-pools.ts';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import type { Engine } from '../../src/core/engine.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { Policy } from '../../src/core/policy.ts';
import { CodeSweeper } from '../../src/core/storefront/code-sweeper.ts';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { HOLDER_KIND, fenceOf, holderId, type Reservation } from '../../src/core/storefront/reservations.ts';
import { RewardCodes, type RedeemAnswer } from '../../src/core/storefront/reward-codes.ts';
import { saveRewards, type Reward } from '../../src/core/storefront/rewards.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { takeBackChecks } from '../../src/core/storefront/take-back-checks.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually, type sandboxWithEngines } from './engine.ts';
import { FakeCodeStore } from './fake-code-store.ts';
import { orderEvent } from './order-events.ts';
import { raw } from './raw-records.ts';

export const PLATFORM = 'testshop';
export const SHOP = 'shop-1';
export const SETTLE_MS = 60 * 60_000;
export const REPAIR_MS = 2 * 60_000;
export const DAY_MS = 24 * 60 * 60_000;

export interface RewardWorld {
  engine: Engine;
  ledger: LedgerStore;
  account: AccountRuntime;
  codes: RewardCodes;
  sweeper: CodeSweeper;
  store: FakeCodeStore;
  clock: { now: number };
  /** Whether the bridge serves the shop (false once it is uninstalled), as the sweeper asks. */
  serving: { on: boolean };
  /** A fulfilled order of the customer's: 100 approved points once the worker is done. */
  earn(email: string, orderId: string): Promise<void>;
  /** The customer asks for a reward in the shop. */
  redeem(email: string, reward: Reward, customerId?: string): Promise<RedeemAnswer>;
  /** A paid order (or other facts) carrying these codes, delivered. */
  pay(orderId: string, codes: string[], overrides?: Partial<OrderEvent>): Promise<void>;
  reservations(email: string): Promise<Reservation[]>;
  /** The sandbox's redeems of the customer, in points. */
  redeems(email: string): number[];
  settle(): Promise<void>;
}

export async function rewardWorld(
  world: ReturnType<typeof sandboxWithEngines>,
  ledger: LedgerStore,
  options: {
    rewards: Reward[];
    policy?: Partial<Policy>;
    countsLate?: boolean;
    /** The worker's wait before it tries a failed call again (20 to 100 ms by default). */
    retryMs?: number;
  },
): Promise<RewardWorld> {
  const logger = createLogger({ level: 'silent' });
  const clock = { now: Date.now() };
  const serving = { on: true };
  const now = () => new Date(clock.now);
  const retry =
    options.retryMs === undefined ? {} : { retryMinDelayMs: options.retryMs, retryMaxDelayMs: options.retryMs };
  const engine = await world.start({
    ...{ store: ledger, worker: { leaseMs: 1_000, ...retry } },
    ...{ pollMs: 250, policy: options.policy },
  });
  const account = (await engine.accounts.runtime('default'))!;
  const store = new FakeCodeStore({ countsLate: options.countsLate ?? false });
  const codesOf = (platform: string) => (platform === PLATFORM ? store.parts : undefined);
  const reader: StorefrontReader = new StorefrontReader({
    accounts: engine.accounts,
    store: ledger,
    liveFirst: (budgetId) => engine.worker.liveFirst(budgetId),
    share: 0.5,
    held: (id, customer, source, readStartedAt) => codes.held(id, customer, source, readStartedAt),
    fence: (id, customer) => fenceOf(ledger, holderId(id, customer)),
    logger,
    now: () => clock.now,
  });
  const codes = new RewardCodes({ store: ledger, codesOf, reader, logger, now });
  const checks = new CoverChecks({ store: ledger, codesOf, reader, codes, logger, now });
  engine.worker.rewardCodes = codes;
  engine.worker.coverChecks = checks;
  engine.adjustments.takeBackChecks = takeBackChecks(ledger, checks);
  engine.worker.customerCalls.add((call) => reader.dropBalance(call.account, call.customer));
  const sweeper = new CodeSweeper({
    store: ledger,
    codes,
    checks,
    codesOf,
    served: async () => serving.on,
    accounts: engine.accounts,
    logger,
    now,
    settleMs: SETTLE_MS,
    repairMs: REPAIR_MS,
  });
  await saveRewards(ledger, PLATFORM, SHOP, options.rewards, 'test');
  await ledger.putRecord(raw('storefront'), `${PLATFORM}:${SHOP}`, {
    platform: PLATFORM,
    shop: SHOP,
    on: true,
    by: 'test',
    at: new Date().toISOString(),
  });
  const settle = async () => {
    await engine.drain();
    await new Promise((resolve) => setTimeout(resolve, 110));
    await engine.drain();
  };
  return {
    engine,
    ledger,
    account,
    codes,
    sweeper,
    store,
    clock,
    serving,
    settle,
    async earn(email, orderId) {
      await engine.accept(`earn-${orderId}`, [
        orderEvent({
          orderId,
          facts: ['placed', 'paid', 'fulfilled'],
          customer: { name: 'Ada', email, mobile: mobileOf(email) },
        }),
      ]);
    },
    redeem: (email, reward, customerId = `customer-${email}`) =>
      codes.redeem({ platform: PLATFORM, shop: SHOP, customerId, account, customer: { email }, reward }),
    async pay(orderId, paidWith, overrides = {}) {
      await engine.accept(`pay-${orderId}-${Math.random()}`, [
        orderEvent({
          orderId,
          facts: ['placed', 'paid'],
          customer: { name: 'Payer', email: `payer-${orderId}@example.com`, mobile: mobileOf(orderId) },
          discountCodes: paidWith.map((code) => ({ code, amount: '1.00' })),
          ...overrides,
        }),
      ]);
    },
    reservations: async (email) =>
      (await ledger.getRecord(HOLDER_KIND, holderId(account.id, { email })))?.reservations ?? [],
    // The customer's own redemptions as the service keeps them, not a copy of all of them (the models ask after each
    // step): the service finds a customer's in any case; a redeem counts here under the e-mail it was sent with.
    redeems: (email) =>
      world.sandbox.store
        .redemptionsOf({ name: '', email, mobile: '' })
        .filter((each) => each.email === email)
        .map((each) => each.points),
  };
}

/** A phone of the customer's, as the earn needs one (lp_mobile); the same for the same e-mail. */
export const mobileOf = (email: string): string =>
  `+4477009${String([...email].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) % 100_000, 7)).padStart(5, '0')}`;

/** Turns a reward on or off in the shop, as the merchant's page saves it. */
export const offerRewards = (ledger: LedgerStore, rewards: Reward[]) =>
  saveRewards(ledger, PLATFORM, SHOP, rewards, 'test');

/** A reward of 200 points for 5.00 off, lasting 7 days, combining: the one the reward contract tests spend. */
export const BIG: Reward = {
  ...{ id: 'big', points: 200, benefit: { kind: 'amount_off' as const, amount: '5.00' }, minimumOrder: null },
  ...{ expiresInDays: 7, combines: true, on: true },
};

/** Each of the customer's orders refunded in full (their points cancelled at the service), the worker done. */
export async function refunded(w: RewardWorld, email: string, orderIds: string[]): Promise<void> {
  for (const id of orderIds)
    await w.engine.accept(`refund-${id}`, [
      orderEvent({
        orderId: id,
        facts: ['placed', 'paid', 'fulfilled', 'cancelled'],
        customer: { name: 'Ada', email, mobile: mobileOf(email) },
      }),
    ]);
  await w.settle();
}

/** The world's RewardPrivacy, on its clock: an uninstall, a shop's or a customer's erasure. */
export const privacyOf = (w: RewardWorld) =>
  new RewardPrivacy({
    ...{ store: w.ledger, accounts: w.engine.accounts, codesOf: () => w.store.parts },
    ...{ logger: createLogger({ level: 'silent' }), now: () => new Date(w.clock.now), settleMs: SETTLE_MS },
  });

let made = 0;

/** A customer with `earned` approved points (100 an order, each numbered by `orderId`), read at `world`'s sandbox. */
export async function customerWithPoints(
  world: ReturnType<typeof sandboxWithEngines>,
  w: RewardWorld,
  { earned, orderId, prefix }: { earned: number; orderId: () => string; prefix: string },
): Promise<string> {
  const email = `${prefix}-${++made}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  for (let i = 0; i < earned / 100; i++) await w.earn(email, orderId());
  await w.settle();
  await eventually(() => expect(world.sandbox.store.balance({ name: '', email, mobile: '' }).approved).toBe(earned));
  return email;
}

/** A customer with `earned` approved points and a code of 200 made in SHOP: the e-mail and the code. */
export async function customerWithCode(
  world: ReturnType<typeof sandboxWithEngines>,
  w: RewardWorld,
  options: { earned: number; orderId: () => string; prefix: string },
): Promise<{ email: string; code: string }> {
  const email = await customerWithPoints(world, w, options);
  const answer = await w.redeem(email, BIG);
  expect(answer.kind).toBe('issued');
  return { email, code: (answer as { code: string }).code };
}

/**
 * A customer's code of 200 used at checkout and refused at its order: her points were spent elsewhere first, so the
 * order's redeem is refused at the service and kept as a dead letter (the refusal).
 */
export async function refusedAtUse(
  world: ReturnType<typeof sandboxWithEngines>,
  w: RewardWorld,
  options: { orderId: () => string; prefix: string },
) {
  const { email, code } = await customerWithCode(world, w, { ...options, earned: 200 });
  world.sandbox.store.redeem({ email }, 200);
  w.store.use(w.store.usable(code, `customer-${email}`, w.clock.now)!);
  await w.pay(options.orderId(), [code], { customer: { name: 'Ada', email, mobile: null } });
  await w.settle();
  const [refusal] = await w.engine.store.listDeadLetters();
  return { email, code, refusal };
}

/** The customer asks for BIG in `shop`, a store on `account` (a pool's member, say). */
export const redeemIn = (w: RewardWorld, account: AccountRuntime, email: string, shop: string) =>
  w.codes.redeem({
    ...{ platform: PLATFORM, shop, customerId: `customer-${email}`, account },
    ...{ customer: { email }, reward: BIG },
  });

/**
 * The registry's candidates (account-pools.ts) for the merchant's two stores on one service: the world's account, the
 * older, with `firstKey`, and the second store's, with `secondKey`. The same key makes them one pool.
 */
export const twoStores = (w: RewardWorld, firstKey: string, secondKey: string): PoolCandidate[] => [
  { id: w.account.id, key: firstKey, createdAt: '' },
  { id: 'second-store', key: secondKey, createdAt: new Date().toISOString() },
];

/** The merchant's second store, on an account of its own with the world's service, in the pool `pool` answers. */
export const secondStoreIn = (w: RewardWorld, pool: AccountRuntime['pool']): AccountRuntime => ({
  ...w.account,
  ...{ id: 'second-store', name: 'second-store' },
  pool,
});
