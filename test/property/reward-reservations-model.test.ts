// Reserve at issue, redeem at use (issue 52), model-checked on both ledger backends: a real engine and worker on
// the real sandbox over HTTP, RewardCodes and CodeSweeper wired as src/composition/storefront-reader.ts wires them,
// and the codes of an in-memory store (test/helpers/fake-code-store.ts), of BigCommerce's code maker against the
// fake BigCommerce's Promotions API over HTTP, or of WooCommerce's against the fake WooCommerce's coupons over HTTP
// (test/helpers/model-codes.ts): there a make fails at the promotion or coupon (before) or loses the answer of its
// code (after), and a checkout applies a code as that store would (WooCommerce: by the billing e-mail).
// Commands: customers redeem from two tabs at once, pay with a code (its delivery sometimes twice, sometimes
// cancelled with it, at a till the program excludes, on a test order) or with two codes on one order, cancel, have
// an order that earned their points cancelled (issue 64), spend points elsewhere, earn, the clock passes a code's repair or its expiry and
// settling window, the sweeper runs; the ledger's writes of reward records and the store's make fail once when
// told (before or after the write). After every command, what a customer would notice: a reservation is made
// only within the balance, no code is usable without its reservation, each code's order is redeemed once at the
// service (never by REDEEM_CODE_PATTERN, which matches LB- codes here), a refused redeem is a dead letter and
// releases its hold, and an unused code is removed after its window with its points available again.
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import type { Engine } from '../../src/core/engine.ts';
import { orderKey } from '../../src/core/order-event.ts';
import { codePattern } from '../../src/core/code-pattern.ts';
import { codeRedeemOf, redemptionSummary } from '../../src/core/redeems.ts';
import { CoverChecks } from '../../src/core/storefront/cover-checks.ts';
import { CodeSweeper } from '../../src/core/storefront/code-sweeper.ts';
import {
  CODE_KIND,
  HELD,
  HOLDER_KIND,
  REDEEM_SKEW_MS,
  fenceOf,
  holderId,
  type Reservation,
} from '../../src/core/storefront/reservations.ts';
import { MAX_OPEN_CODES, RewardCodes, type RedeemAnswer } from '../../src/core/storefront/reward-codes.ts';
import { saveRewards, type Reward } from '../../src/core/storefront/rewards.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import type { RecordType } from '../../src/core/store/roles/record-types.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { createLogger } from '../../src/logger.ts';
import { clientFor, eventually, sandboxWithEngines } from '../helpers/engine.ts';
import { settle as settleEngine } from '../helpers/settle.ts';
import { startFakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { withPromotions } from '../helpers/fake-bigcommerce-promotions.ts';
import { startFakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { withCoupons } from '../helpers/fake-woocommerce-coupons.ts';
import { gate, ledgerBackends } from '../helpers/ledger-backends.ts';
import { bigCommerceCodes, inMemoryCodes, wooCommerceCodes, type ModelCodes } from '../helpers/model-codes.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { storeWith } from '../helpers/store-with.ts';
import { raw } from '../helpers/raw-records.ts';
import { amountOff, moneyTakenOff } from '../helpers/amount-off.ts';
import type { RewardBenefit } from '../../src/core/reward-benefit.ts';

const world = sandboxWithEngines();
const logger = createLogger({ level: 'silent' });
const PLATFORM = 'testshop';
const SHOP = 'shop-1';
const DAY_MS = 24 * 60 * 60 * 1000;
const SETTLE_MS = 60 * 60_000;
const REPAIR_MS = 2 * 60_000;
/** One fulfilled order earns this many approved points (the sandbox's activity '1'). */
const EARN = 100;
const REWARDS: Reward[] = [
  {
    ...{ id: 'big', points: 60, benefit: amountOff('6.00') },
    ...{ minimumOrder: null, expiresInDays: 1, combines: false, on: true },
  },
  {
    ...{ id: 'small', points: 25, benefit: amountOff('2.50') },
    ...{ minimumOrder: null, expiresInDays: 1, combines: false, on: true },
  },
];
/**
 * Each run offers REWARDS as one kind of reward, in turn (reward-benefit.ts): every kind is made, paid with and
 * let go by each code maker, through the same commands, and a pinned seed replays the same commands whatever the kind.
 */
const BENEFIT_OF_RUN: ReadonlyArray<RewardBenefit | undefined> = [
  undefined,
  { kind: 'percent_off', percent: 10 },
  { kind: 'free_shipping' },
];
const rewardsOfRun = (run: number): Reward[] => {
  const benefit = BENEFIT_OF_RUN[run % BENEFIT_OF_RUN.length];
  return benefit ? REWARDS.map((reward) => ({ ...reward, benefit })) : REWARDS;
};
const REWARD_KINDS = new Set([HOLDER_KIND.kind, CODE_KIND.kind]);

type Fail = 'before' | 'after';

interface Customer {
  index: number;
  email: string;
  customerId: string;
}

interface Real {
  engine: Engine;
  ledger: LedgerStore;
  account: AccountRuntime;
  codes: RewardCodes;
  sweeper: CodeSweeper;
  fake: ModelCodes;
  clock: { now: number };
  storeFail: Fail | undefined;
  /** Writes of reward records let through before the injected failure. */
  storeFailSkip: number;
  customers: Customer[];
  /** Each customer's earning orders not cancelled yet (by index): what CancelEarning picks from. */
  earned: Map<number, string[]>;
  /** The customers of the runs before: their codes stay in the store, each still needs its reservation. */
  earlier: Customer[];
  run: number;
  orders: number;
  base: number;
  /** What the runs came to, so a run that exercised nothing is seen. */
  stats: Record<string, number>;
}
const count = (real: Real, what: string) => (real.stats[what] = (real.stats[what] ?? 0) + 1);

interface Model {
  /** Per customer, the redeems made at the service outside the bridge. */
  elsewhere: number[];
  elsewherePoints: number[];
  /** Orders that paid with a code: the order's key, and the code's customer. */
  paid: Array<{ key: string; orderId: string; code: string; customer: number }>;
}

const service = () => clientFor(world.sandbox);
const balanceOf = (email: string) => {
  const customer = { name: '', email, mobile: '' };
  return world.sandbox.store.balance(customer);
};
/** The service's redeems, each customer's by email, from one read of its state (it grows with every run). */
async function sandboxRedemptionsOf(): Promise<(email: string) => number[]> {
  const response = await fetch(`${world.sandbox.url}/_sandbox/state`, {
    headers: { 'x-api-key': world.sandbox.credentials.apiKey, 'x-brand-id': world.sandbox.credentials.brandId },
  });
  const state = (await response.json()) as { redemptions: Array<{ email: string; points: number }> };
  return (email) => state.redemptions.filter((each) => each.email === email).map((each) => each.points);
}
const sandboxRedemptions = async (email: string): Promise<number[]> => (await sandboxRedemptionsOf())(email);

const holderOf = (real: Real, customer: Customer) => holderId(real.account.id, { email: customer.email });
async function reservationsOf(real: Real, customer: Customer): Promise<Reservation[]> {
  return (await real.ledger.getRecord(HOLDER_KIND, holderOf(real, customer)))?.reservations ?? [];
}
// A refused one holds its points too, until a person settles its dead letter (docs/storefront.md, "Refused at use").
const heldOf = (reservations: Reservation[]) =>
  reservations
    .filter((each) => HELD.has(each.state) || each.state === 'refused')
    .reduce((total, each) => total + each.points, 0);

/** The ledger with reward records' writes failing once when told: before the write, or after it landed. */
function failing(store: LedgerStore, real: Pick<Real, 'storeFail' | 'storeFailSkip'>): LedgerStore {
  const once = async <T>(kind: RecordType<unknown>, write: () => Promise<T>): Promise<T> => {
    const fail = REWARD_KINDS.has(kind.kind) ? real.storeFail : undefined;
    if (!fail) return write();
    // The failure lands on a later write where told: a redeem's mark, a release, not always the first write.
    if (real.storeFailSkip > 0) {
      real.storeFailSkip -= 1;
      return write();
    }
    real.storeFail = undefined;
    if (fail === 'before') throw new Error('injected: the ledger refused the write');
    await write();
    throw new Error('injected: the write landed, its answer was lost');
  };
  return storeWith(store, {
    changeRecord: (kind, id, change) => once(kind, () => store.changeRecord(kind, id, change)),
    addRecord: (kind, id, value) => once(kind, () => store.addRecord(kind, id, value)),
    putRecord: (kind, id, value) => once(kind, () => store.putRecord(kind, id, value)),
  });
}

/** Until nothing is due and no retry waits (helpers/settle.ts). */
const settle = (real: Real): Promise<void> => settleEngine(real.engine, real.ledger);

async function earn(real: Real, customer: Customer): Promise<void> {
  const orderId = nextOrderId(real);
  real.earned.set(customer.index, [...(real.earned.get(customer.index) ?? []), orderId]);
  await real.engine.accept(`earn-${orderId}`, [
    orderEvent({
      orderId,
      facts: ['placed', 'paid', 'fulfilled'],
      customer: { name: 'Ada', email: customer.email, mobile: mobileOf(real, customer.index) },
    }),
  ]);
}
/** Who pays with the codes: another customer, with points of their own (a redeem wrongly theirs would go through). */
const payerOf = (real: Pick<Real, 'run' | 'base'>) => `payer-${real.base}-${real.run}@example.com`;
/** Order ids are integers at the service (lp_orderid), distinct per backend (they share the sandbox). */
const nextOrderId = (real: Real) => String(real.base + ++real.orders);
const mobileOf = (real: Pick<Real, 'run' | 'base'>, index: number) =>
  `+447700${String(((real.base / 1_000_000) % 10) * 100_000 + real.run * 100 + index).padStart(6, '0')}`;

/** A command that hangs fails as itself, named, rather than as the file's timeout. */
async function within<T>(ms: number, what: string, running: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([running, late]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// What a user would notice, checked after every command.

async function checkInvariants(real: Real, model: Model): Promise<void> {
  const byCode = new Map<string, Reservation>();
  // Every earlier run's customers, in one read of the ledger (one a customer made the checks quadratic in runs).
  const earlierHolders = new Set(real.earlier.map((customer) => holderOf(real, customer)));
  for (const { id, value } of await real.ledger.listRecords(HOLDER_KIND))
    if (earlierHolders.has(id)) for (const each of value.reservations) byCode.set(each.code, each);
  const redemptionsOf = await sandboxRedemptionsOf();
  for (const customer of real.customers) {
    const reservations = await reservationsOf(real, customer);
    for (const each of reservations) byCode.set(each.code, each);
    // One redeem per use: the service's redeems of the customer are those made elsewhere and one per code whose
    // order's redeem went through, each for that code's points.
    const redeemedCodes: number[] = [];
    for (const each of reservations) {
      if (each.state === 'redeemed') redeemedCodes.push(each.points);
      else if (each.state === 'used' && each.orderKey) {
        const order = await real.engine.store.getOrder(each.orderKey);
        if (order && codeRedeemOf(order.upstream, each.id)?.redemption === 'sent') redeemedCodes.push(each.points);
      }
    }
    const atService = redemptionsOf(customer.email);
    // Redeemed reservations that ended ENDED_KEPT_MS ago are dropped, their points kept in the holder (pruned). The
    // worker records a redeem's time on the machine's clock, which this model's clock runs months ahead of, so a
    // redeem the sweeper settles from that record may be dropped at once (seed 1493088991): its points still count.
    const earlier = (await real.ledger.getRecord(HOLDER_KIND, holderOf(real, customer)))?.redeemedEarlier ?? 0;
    const expected = model.elsewhere[customer.index]! + redeemedCodes.length;
    if (earlier === 0) expect(atService.length, `redeems of customer ${customer.index}`).toBe(expected);
    else expect(atService.length, `redeems of customer ${customer.index}`).toBeGreaterThan(expected);
    const points = (list: number[]) => list.reduce((total, each) => total + each, 0);
    expect(points(atService), `points redeemed of customer ${customer.index}`).toBe(
      model.elsewherePoints[customer.index]! + points(redeemedCodes) + earlier,
    );
  }
  // No code usable without its reservation.
  for (const live of real.fake.live()) {
    const reservation = byCode.get(live.code);
    expect(reservation && HELD.has(reservation.state), `code ${live.code} is live: ${reservation?.state}`).toBe(true);
  }
  // A refused redeem is a dead letter in words, and holds its points until a person settles it: a retry of an order
  // cancelled meanwhile, which wants no redeem any more, lets them go (the sweeper).
  const letters = await real.engine.store.listDeadLetters();
  for (const reservation of byCode.values()) {
    if (reservation.state !== 'refused') continue;
    const about = letters.filter((letter) => letter.orderKey === reservation.orderKey);
    const order = await real.engine.store.getOrder(reservation.orderKey ?? '');
    // (Cancelled before it earned, its points stay 'none'.)
    const cancelled = order?.upstream.points === 'cancelled' || order?.facts.includes('cancelled') === true;
    const wantsNoRedeem = cancelled && order?.work.held.redeem === undefined;
    expect(
      about.some((letter) => /spent elsewhere/.test(letter.reason)) || wantsNoRedeem,
      `refused ${reservation.code}: ${JSON.stringify(about.map((letter) => letter.reason))}`,
    ).toBe(true);
  }
  // The code pattern's path (LB- codes match it here) never redeemed an order paid with a bridge code, nor tried:
  // no redeem of the payer (whose own points would pay for it), no dead letter of a redeem but a code's.
  for (const { key } of model.paid) {
    const order = await real.engine.store.getOrder(key);
    if (order) expect(order.upstream.redemption).toBe('none');
    for (const letter of letters.filter((each) => each.orderKey === key && each.operation === 'redeem'))
      expect(letter.reason).toMatch(/reward code LB-/);
  }
  expect(redemptionsOf(payerOf(real))).toEqual([]);
}

/**
 * The end of a run: no more failures, the lost deliveries arrive (reconciliation), the worker settles, and the
 * clock passes every code's window. Then nothing stays held: each reservation of the run ended (redeemed, refused
 * or released), no code of it is usable, and what the service took is exactly the redeems of paid codes.
 */
async function closing(real: Real, model: Model): Promise<void> {
  real.storeFail = undefined;
  real.fake.failMake = undefined;
  for (const paid of model.paid) await new Redeliver(model.paid.indexOf(paid)).run(model, real);
  await settle(real);
  real.clock.now += DAY_MS + SETTLE_MS + 1_000;
  await real.sweeper.sweep();
  await real.sweeper.sweep();
  await checkInvariants(real, model);
  const letters = await real.engine.store.listDeadLetters();
  for (const customer of real.customers)
    for (const each of await reservationsOf(real, customer)) {
      // A code's redeem held behind another code's refused one (an order paid with two) waits for a person, its
      // points still held: the one state a run may end in besides these.
      const order = each.state === 'used' ? await real.engine.store.getOrder(each.orderKey ?? '') : undefined;
      if (order?.work.held.redeem !== undefined && letters.some((letter) => letter.orderKey === order.key)) continue;
      expect(each.state, `${each.code} at the end (${each.endedWhy ?? ''})`).toMatch(/^(released|redeemed|refused)$/);
      count(real, `ended ${each.state}${each.endedWhy === 'its code expired unused' ? ' unused' : ''}`);
    }
  const mine = new Set(real.customers.map((customer) => customer.customerId));
  for (const code of real.fake.live()) expect(mine.has(code.customerId), `${code.code} still usable`).toBe(false);
}

// ---------------------------------------------------------------------------------------------------------------
// Commands.

type Cmd = fc.AsyncCommand<Model, Real>;

class Redeem implements Cmd {
  readonly customer: number;
  readonly rewards: number[];
  constructor(customer: number, rewards: number[]) {
    this.customer = customer;
    this.rewards = rewards;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const customer = real.customers[this.customer % real.customers.length]!;
    const failures = real.storeFail !== undefined || real.fake.failMake !== undefined;
    const before = await reservationsOf(real, customer);
    const balance = balanceOf(customer.email);
    const now = real.clock.now;
    const recent = before
      .filter((each) => each.state === 'redeemed' && Date.parse(each.redeemedAt!) > now - REDEEM_SKEW_MS)
      .reduce((total, each) => total + each.points, 0);
    const available = balance.approved - balance.redeemed - heldOf(before) - recent;
    const asked = this.rewards.map((index) => REWARDS[index]!);
    const answers: Array<RedeemAnswer | { kind: 'threw' }> = await Promise.all(
      asked.map((reward) =>
        real.codes
          .redeem({
            platform: PLATFORM,
            shop: SHOP,
            customerId: customer.customerId,
            account: real.account,
            customer: { email: customer.email },
            reward,
          })
          .catch(() => ({ kind: 'threw' as const })),
      ),
    );
    const after = await reservationsOf(real, customer);
    const added = after.filter((each) => !before.some((old) => old.id === each.id) && HELD.has(each.state));
    // Never more open codes than the limit, however the tabs interleave.
    const open = (list: Reservation[]) =>
      list.filter(
        (each) =>
          each.state === 'reserving' ||
          (each.state === 'issued' && each.removedAt === undefined && Date.parse(each.expiresAt) > now),
      ).length;
    const openBefore = open(before);
    expect(open(after)).toBeLessThanOrEqual(Math.max(MAX_OPEN_CODES, openBefore));
    // Within the balance: what was reserved now fits in what was available when it was reserved.
    expect(added.reduce((total, each) => total + each.points, 0)).toBeLessThanOrEqual(Math.max(0, available));
    for (const answer of answers) count(real, answer.kind);
    const issued = answers.flatMap((answer, index) => (answer.kind === 'issued' ? [asked[index]!.points] : []));
    for (const [index, answer] of answers.entries()) {
      expect(answer.kind).not.toBe('busy');
      if (answer.kind === 'issued') {
        // The code is in the store for that customer, and usable now.
        expect(real.fake.usable(answer.code, customer.customerId, real.clock.now)).toBe(true);
        expect(after.find((each) => each.code === answer.code)?.state).toBe('issued');
      }
      if (!failures && answer.kind === 'short') {
        // Refused only when what the other tab took left too little.
        const others = issued.reduce((total, each) => total + each, 0);
        expect(asked[index]!.points).toBeGreaterThan(available - others);
      }
      if (!failures) expect(['issued', 'short', 'too-many']).toContain(answer.kind);
      // Refused for holding too many only at the limit: what was open before and what the other tab was given, or
      // kept reserving when its make failed (its code may be in the store: the repair decides; seed 1493088991).
      const unsettled = failures ? answers.filter((each) => each.kind === 'failed' || each.kind === 'threw').length : 0;
      if (answer.kind === 'too-many')
        expect(openBefore + issued.length + unsettled, 'open codes at a refusal').toBeGreaterThanOrEqual(
          MAX_OPEN_CODES,
        );
    }
    void model;
  }
  toString = () => `redeem(c${this.customer}, ${this.rewards.map((index) => REWARDS[index]!.id).join('+')})`;
}

type PayHow = 'once' | 'twice' | 'cancelled' | 'lost' | 'two-orders' | 'excluded' | 'test';

/** A make slower than the repair waits: the sweeper lets the points go meanwhile, so the code made must go too. */
class RedeemDuringRepair implements Cmd {
  readonly customer: number;
  constructor(customer: number) {
    this.customer = customer;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    const customer = real.customers[this.customer % real.customers.length]!;
    const failures = real.storeFail !== undefined || real.fake.failMake !== undefined;
    const made = gate();
    const asked = gate();
    real.fake.holdMake = { asked: asked.open, until: made.opened };
    const answer = real.codes
      .redeem({
        platform: PLATFORM,
        shop: SHOP,
        customerId: customer.customerId,
        account: real.account,
        customer: { email: customer.email },
        reward: REWARDS[1]!,
      })
      .catch(() => ({ kind: 'threw' as const }));
    // Short (nothing reserved) answers without a make.
    const first = await Promise.race([asked.opened.then(() => 'asked' as const), answer]);
    real.fake.holdMake = undefined;
    if (first !== 'asked') return;
    real.clock.now += REPAIR_MS + 1_000;
    await real.sweeper.sweep();
    made.open();
    const answered = await answer;
    if (!failures) expect(answered.kind).toBe('failed');
    count(real, 'make outlived its repair');
  }
  toString = () => `redeem during its repair(c${this.customer})`;
}

class PayWithCode implements Cmd {
  /**
   * once; twice (its delivery twice, at once); cancelled (paid and cancelled in one delivery, before its redeem);
   * lost (the store counts the use, its order's delivery is lost: Redeliver brings it later); two-orders (the store
   * let two orders apply the code at once: one redeem between them).
   */
  readonly pick: number;
  readonly how: PayHow;
  constructor(pick: number, how: PayHow) {
    this.pick = pick;
    this.how = how;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const usable = real.fake
      .live()
      .filter((each) => real.fake.usable(each.code, each.customerId, real.clock.now))
      .filter((each) => real.customers.some((customer) => customer.customerId === each.customerId));
    if (usable.length === 0) return;
    const code = usable[this.pick % usable.length]!;
    const customer = real.customers.find((each) => each.customerId === code.customerId)!;
    const failures = real.storeFail !== undefined;
    const reservation = (await reservationsOf(real, customer)).find((each) => each.code === code.code)!;
    const balance = balanceOf(customer.email);
    const redeemsBefore = (await sandboxRedemptions(customer.email)).length;
    real.fake.use(code.code, code.customerId, real.clock.now);
    const cancelled = this.how === 'cancelled';
    const paying = (orderId: string) =>
      // Paid by someone else's contact: the code's customer's points are redeemed all the same, whatever the order
      // earns (at a till the program excludes, a test order: the code gave its discount).
      orderEvent({
        orderId,
        facts: cancelled ? ['placed', 'paid', 'cancelled'] : ['placed', 'paid'],
        customer: { name: 'Payer', email: payerOf(real), mobile: mobileOf(real, 50) },
        discountCodes: [{ code: real.fake.orderCode(code.code), amount: moneyTakenOff(reservation.benefit, '150.00') }],
        ...(this.how === 'excluded' ? { source: 'pos' } : {}),
        ...(this.how === 'test' ? { test: true } : {}),
      });
    const event = paying(nextOrderId(real));
    const orderId = event.orderId;
    model.paid.push({ key: orderKey(event), orderId, code: code.code, customer: customer.index });
    count(real, `pay ${this.how}`);
    if (this.how === 'lost') return;
    const deliveries = [real.engine.accept(`pay-${orderId}-1`, [event])];
    if (this.how === 'twice')
      deliveries.push(real.engine.accept(`pay-${orderId}-2`, [{ ...event, deliveryId: `${event.deliveryId}-again` }]));
    if (this.how === 'two-orders') {
      const other = paying(nextOrderId(real));
      model.paid.push({ key: orderKey(other), orderId: other.orderId, code: code.code, customer: customer.index });
      deliveries.push(real.engine.accept(`pay-${other.orderId}-1`, [other]));
    }
    await Promise.all(deliveries);
    await settle(real);
    if (failures) return;
    const after = (await reservationsOf(real, customer)).find((each) => each.id === reservation.id)!;
    const redeems = (await sandboxRedemptions(customer.email)).length;
    if (cancelled) {
      // Cancelled before its redeem: nothing is taken; the sweeper lets the hold go.
      expect(redeems).toBe(redeemsBefore);
      expect(['used', 'issued']).toContain(after.state);
    } else if (balance.approved - balance.redeemed >= reservation.points) {
      expect(after.state).toBe('redeemed');
      expect(redeems).toBe(redeemsBefore + 1);
      count(real, 'redeemed');
    } else {
      expect(after.state).toBe('refused');
      expect(redeems).toBe(redeemsBefore);
      count(real, 'refused');
    }
  }
  toString = () => `pay(${this.pick}, ${this.how})`;
}

/** One order pays with two codes at once (they combine at checkout), of one customer or of two. */
class PayWithTwo implements Cmd {
  readonly pick: number;
  constructor(pick: number) {
    this.pick = pick;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const usable = real.fake
      .live()
      .filter((each) => real.fake.usable(each.code, each.customerId, real.clock.now))
      .filter((each) => real.customers.some((customer) => customer.customerId === each.customerId));
    if (usable.length < 2) return;
    const first = usable[this.pick % usable.length]!;
    const second = usable[(this.pick + 1) % usable.length]!;
    const failures = real.storeFail !== undefined;
    const event = orderEvent({
      orderId: nextOrderId(real),
      facts: ['placed', 'paid'],
      customer: { name: 'Payer', email: payerOf(real), mobile: mobileOf(real, 50) },
      discountCodes: [first, second].map((each) => ({ code: real.fake.orderCode(each.code), amount: '1.00' })),
    });
    for (const each of [first, second]) {
      real.fake.use(each.code, each.customerId, real.clock.now);
      const customer = real.customers.find((one) => one.customerId === each.customerId)!;
      model.paid.push({ key: orderKey(event), orderId: event.orderId, code: each.code, customer: customer.index });
    }
    count(real, 'pay with two');
    await real.engine.accept(`pay-${event.orderId}-1`, [event]);
    await settle(real);
    if (failures) return;
    // Each code's redeem went, or was refused (a dead letter); one refused holds the other's until a person acts.
    const order = await real.engine.store.getOrder(orderKey(event));
    for (const each of [first, second]) {
      const customer = real.customers.find((one) => one.customerId === each.customerId)!;
      const reservation = (await reservationsOf(real, customer)).find((one) => one.code === each.code)!;
      const waits = reservation.state === 'used' && order?.work.held.redeem !== undefined;
      expect(['redeemed', 'refused'].includes(reservation.state) || waits, `${each.code} of two`).toBe(true);
      count(real, `two: ${reservation.state}`);
    }
  }
  toString = () => `pay with two(${this.pick})`;
}

/** One of the customer's earning orders is cancelled: its points leave their balance. */
class CancelEarning implements Cmd {
  readonly customer: number;
  constructor(customer: number) {
    this.customer = customer;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    const customer = real.customers[this.customer % real.customers.length]!;
    const orderId = real.earned.get(customer.index)?.shift();
    if (orderId === undefined) return;
    const failures = real.storeFail !== undefined || real.fake.failMake !== undefined;
    await real.engine.accept(`cancel-earn-${orderId}`, [
      orderEvent({
        orderId,
        facts: ['placed', 'paid', 'fulfilled', 'cancelled'],
        customer: { name: 'Ada', email: customer.email, mobile: mobileOf(real, customer.index) },
      }),
    ]);
    await settle(real);
    count(real, 'earning cancelled');
    if (failures) return;
    // What the codes still unused in the store hold is covered by what the cancel left (the rest are withdrawn).
    const balance = balanceOf(customer.email);
    const reservations = await reservationsOf(real, customer);
    const unused = reservations.filter(
      (each) => each.state === 'issued' && each.removedAt === undefined && real.fake.made(each.code)?.uses === 0,
    );
    const others = heldOf(reservations) - unused.reduce((total, each) => total + each.points, 0);
    const left = balance.approved - balance.redeemed - others;
    expect(
      unused.reduce((total, each) => total + each.points, 0),
      `unused codes of c${customer.index} after a cancel`,
    ).toBeLessThanOrEqual(Math.max(0, left));
    if (reservations.some((each) => each.endedWhy?.includes('orders that earned'))) count(real, 'withdrawn');
  }
  toString = () => `cancel earning(c${this.customer})`;
}

class Redeliver implements Cmd {
  readonly pick: number;
  constructor(pick: number) {
    this.pick = pick;
  }
  check = (model: Readonly<Model>) => model.paid.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const paid = model.paid[this.pick % model.paid.length]!;
    await real.engine.accept(`again-${paid.orderId}-${++real.orders}`, [
      orderEvent({
        orderId: paid.orderId,
        facts: ['placed', 'paid'],
        customer: { name: 'Payer', email: payerOf(real), mobile: mobileOf(real, 50) },
        discountCodes: [{ code: real.fake.orderCode(paid.code), amount: '1.00' }],
      }),
    ]);
    await settle(real);
  }
  toString = () => `redeliver(${this.pick})`;
}

class CancelOrder implements Cmd {
  readonly pick: number;
  constructor(pick: number) {
    this.pick = pick;
  }
  check = (model: Readonly<Model>) => model.paid.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const paid = model.paid[this.pick % model.paid.length]!;
    await real.engine.accept(`cancel-${paid.orderId}-${++real.orders}`, [
      orderEvent({
        orderId: paid.orderId,
        facts: ['placed', 'paid', 'cancelled'],
        customer: { name: 'Payer', email: payerOf(real), mobile: mobileOf(real, 50) },
        discountCodes: [{ code: real.fake.orderCode(paid.code), amount: '1.00' }],
      }),
    ]);
    await settle(real);
  }
  toString = () => `cancel(${this.pick})`;
}

class SpendElsewhere implements Cmd {
  readonly customer: number;
  readonly points: number;
  constructor(customer: number, points: number) {
    this.customer = customer;
    this.points = points;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const customer = real.customers[this.customer % real.customers.length]!;
    const balance = balanceOf(customer.email);
    const points = this.points === 0 ? balance.approved - balance.redeemed : this.points;
    if (points <= 0 || points > balance.approved - balance.redeemed) return;
    await service().redeem({ email: customer.email, points });
    model.elsewhere[customer.index]! += 1;
    model.elsewherePoints[customer.index]! += points;
  }
  toString = () => `elsewhere(c${this.customer}, ${this.points === 0 ? 'all' : this.points})`;
}

class Earn implements Cmd {
  readonly customer: number;
  constructor(customer: number) {
    this.customer = customer;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    const customer = real.customers[this.customer % real.customers.length]!;
    const before = balanceOf(customer.email).approved;
    await earn(real, customer);
    await settle(real);
    await eventually(() => expect(balanceOf(customer.email).approved).toBe(before + EARN));
  }
  toString = () => `earn(c${this.customer})`;
}

class Advance implements Cmd {
  readonly past: 'repair' | 'expiry';
  constructor(past: 'repair' | 'expiry') {
    this.past = past;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    real.clock.now += this.past === 'repair' ? REPAIR_MS + 1_000 : DAY_MS + SETTLE_MS + 1_000;
    // A sweep that met an injected failure looks again on the next pass: two passes, as the loop would.
    await real.sweeper.sweep();
    await real.sweeper.sweep();
    const now = real.clock.now;
    for (const customer of real.customers) {
      const balance = balanceOf(customer.email);
      for (const each of await reservationsOf(real, customer)) {
        // No reservation without its code longer than the repair takes.
        expect(each.state, `${each.code} after the repair`).not.toBe('reserving');
        const code = real.fake.made(each.code);
        if (Date.parse(each.expiresAt) + SETTLE_MS < now && (!code || code.uses === 0)) {
          // Unused past its window: removed from the store, its points let go, the service's balance untouched.
          expect(each.state, `${each.code} unused after its window`).toMatch(/^(released|redeemed|refused)$/);
          if (each.endedWhy === 'its code expired unused') count(real, 'expired unused');
          if (code) expect(code.removed).toBe(true);
        }
      }
      void balance;
    }
  }
  toString = () => `advance(${this.past})`;
}

class Sweep implements Cmd {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const failures = real.storeFail !== undefined;
    await real.sweeper.sweep();
    if (failures) return;
    // A code's order cancelled before its redeem: the hold is let go, and the service took nothing.
    for (const { key, code, customer: index } of model.paid) {
      const order = await real.engine.store.getOrder(key);
      if (!order?.facts.includes('cancelled') || redemptionSummary(order.upstream).redemption !== 'none') continue;
      const customer = real.customers[index]!;
      const reservation = (await reservationsOf(real, customer)).find((each) => each.code === code);
      // (Or refused: its redeem was refused before the cancellation came.)
      if (reservation?.orderKey === key) expect(reservation.state).toMatch(/^(released|refused)$/);
    }
    // A redeem the service refused holds nothing, even where the ledger failed as it was marked.
    const letters = await real.engine.store.listDeadLetters();
    for (const { key, code, customer: index } of model.paid) {
      // The letter names its code: of an order paid with two, the other code's redeem waits behind it, held.
      const refused = (letter: { orderKey?: string | undefined; reason: string }) =>
        letter.orderKey === key && /spent elsewhere/.test(letter.reason) && letter.reason.includes(code);
      if (!letters.some(refused)) continue;
      const reservation = (await reservationsOf(real, real.customers[index]!)).find((each) => each.code === code);
      if (reservation?.orderKey === key)
        expect(reservation.state, `the refused redeem of ${code} on ${key}`).toBe('refused');
    }
  }
  toString = () => 'sweep';
}

class InjectStoreFailure implements Cmd {
  readonly fail: Fail;
  readonly skip: number;
  constructor(fail: Fail, skip: number) {
    this.fail = fail;
    this.skip = skip;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    real.storeFail = this.fail;
    real.storeFailSkip = this.skip;
  }
  toString = () => `store fails ${this.fail} after ${this.skip} writes`;
}

/** A person retries a dead letter of a code's redeem (the customer has the points again, or not). */
class RetryDeadLetter implements Cmd {
  readonly pick: number;
  constructor(pick: number) {
    this.pick = pick;
  }
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const keys = new Set(model.paid.map((paid) => paid.key));
    const letters = (await real.engine.store.listDeadLetters()).filter((each) => keys.has(each.orderKey ?? ''));
    if (letters.length === 0) return;
    await real.engine.retryDeadLetter(letters[this.pick % letters.length]!);
    count(real, 'dead letter retried');
    await settle(real);
  }
  toString = () => `retry dead letter(${this.pick})`;
}

class InjectMakeFailure implements Cmd {
  readonly fail: Fail;
  constructor(fail: Fail) {
    this.fail = fail;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    real.fake.failMake = this.fail;
  }
  toString = () => `make fails ${this.fail}`;
}

class RunWorkerUntilIdle implements Cmd {
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    await settle(real);
  }
  toString = () => 'worker until idle';
}

const customerArb = fc.nat({ max: 2 });
const redeem = fc
  .tuple(customerArb, fc.array(fc.nat({ max: 1 }), { minLength: 1, maxLength: 2 }))
  .map(([c, r]) => new Redeem(c, r));
const pay = fc
  .tuple(
    fc.nat(),
    fc.constantFrom<PayHow>('once', 'once', 'twice', 'cancelled', 'lost', 'two-orders', 'excluded', 'test'),
  )
  .map(([p, how]) => new PayWithCode(p, how));
// Redeems and payments weigh more: most commands of a run then meet codes to pay with.
const commands = [
  redeem,
  redeem,
  redeem,
  fc.tuple(customerArb, fc.constant<number[]>([0, 0])).map(([c, r]) => new Redeem(c, r)),
  pay,
  pay,
  pay,
  customerArb.map((c) => new RedeemDuringRepair(c)),
  fc.nat().map((p) => new PayWithTwo(p)),
  customerArb.map((c) => new CancelEarning(c)),
  fc.nat().map((p) => new Redeliver(p)),
  fc.nat().map((p) => new CancelOrder(p)),
  fc.tuple(customerArb, fc.constantFrom(0, 15, 40)).map(([c, n]) => new SpendElsewhere(c, n)),
  customerArb.map((c) => new Earn(c)),
  fc.constantFrom<'repair' | 'expiry'>('repair', 'expiry').map((past) => new Advance(past)),
  fc.constant(new Sweep()),
  fc
    .tuple(fc.constantFrom<Fail>('before', 'after'), fc.nat({ max: 3 }))
    .map(([fail, skip]) => new InjectStoreFailure(fail, skip)),
  fc.nat().map((p) => new RetryDeadLetter(p)),
  customerArb.map((c) => new SpendElsewhere(c, 0)),
  fc.constantFrom<Fail>('before', 'after').map((fail) => new InjectMakeFailure(fail)),
  fc.constant(new RunWorkerUntilIdle()),
];

/**
 * Seeds whose first run found a defect, replayed before the random runs: 159697421 (in-memory codes), a make that
 * threw after the repair had let its reservation go left its code in the store with nothing to find it by;
 * -1461726723 (BigCommerce), two codes on one order, the first refused (its points spent elsewhere): the second
 * waits for a person behind the first's dead letter, which the run's end took for a code left held (and its run
 * 33: a refused code's letter retried after its order was cancelled before it earned, its points 'none');
 * -1343070176 (WooCommerce), a Redeem answered "too few" from a balance kept from before an earn the worker sent
 * (the reader's drop was not wired here as the composition wires it).
 */
const PINNED_SEEDS: Record<(typeof CODE_STORES)[number]['name'], Array<{ seed: number; path: string }>> = {
  'in-memory': [
    { seed: 159697421, path: '0' },
    // A redeem settled by the sweeper from the worker's record, then its reservation dropped as ended long ago; and
    // two tabs, one whose make failed after its code was made, the other refused for the codes open.
    { seed: 1493088991, path: '37' },
    { seed: 1493088991, path: '127' },
  ],
  bigcommerce: [
    { seed: -1461726723, path: '4' },
    { seed: -1461726723, path: '33' },
  ],
  woocommerce: [{ seed: -1343070176, path: '8' }],
};

/**
 * Whose codes: the in-memory store's, and BigCommerce's and WooCommerce's code makers against their fakes over HTTP
 * (fewer runs: each make, use and removal is an HTTP call or a few). Order ids and phones are distinct per backend
 * and store.
 */
const MODEL_SOAK = process.env.MODEL_SOAK === '1';
const SUITE_SEED = 20_261_127;
const CODE_STORES = [
  { name: 'in-memory', numRuns: 40, base: { lowdb: 71_000_000, other: 72_000_000 } },
  { name: 'bigcommerce', numRuns: 20, base: { lowdb: 73_000_000, other: 74_000_000 } },
  { name: 'woocommerce', numRuns: 20, base: { lowdb: 75_000_000, other: 76_000_000 } },
] as const;

/** The codes of that store; a fake BigCommerce (its rate limit out of the way) or WooCommerce to close after the runs. */
async function codeStore(name: (typeof CODE_STORES)[number]['name']) {
  if (name === 'in-memory') return { fake: inMemoryCodes(), close: async () => undefined };
  if (name === 'woocommerce') {
    const keys = { key: 'ck_model', secret: 'cs_model' };
    const woo = withCoupons(await startFakeWooCommerce({ consumerKey: keys.key, consumerSecret: keys.secret }));
    return { fake: wooCommerceCodes(woo, SHOP, keys), close: () => woo.close() };
  }
  const token = 'model-token';
  const bigCommerce = withPromotions(await startFakeBigCommerce({ storeHash: SHOP, accessToken: token }));
  bigCommerce.quota = { requests: 1_000_000, windowMs: 30_000 };
  return { fake: bigCommerceCodes(bigCommerce, SHOP, token), close: () => bigCommerce.close() };
}

describe.each(ledgerBackends())('reward reservations, model-checked (%s)', (_name, runs, open) => {
  it.runIf(runs).each(CODE_STORES)(
    'reserve within the balance, one code per reservation, one redeem per use, unused codes cost nothing ($name codes)',
    async ({ name: storeName, numRuns, base }) => {
      const ledger = await open();
      const clock = { now: Date.now() };
      const { fake, close } = await codeStore(storeName);
      onTestFinished(close);
      const real = {
        ledger,
        clock,
        fake,
        storeFail: undefined as Fail | undefined,
        storeFailSkip: 0,
        customers: [] as Customer[],
        earned: new Map<number, string[]>(),
        earlier: [] as Customer[],
        run: 0,
        orders: 0,
        base: _name === 'lowdb' ? base.lowdb : base.other,
        stats: {},
      } as Real;
      const store = failing(ledger, real);
      const engine = await world.start({
        store: ledger,
        // A step that an injected ledger failure broke off leaves its order leased: taken again within a second.
        worker: { leaseMs: 1_000 },
        pollMs: 250,
        // LB- codes match the code pattern here: the pattern's path must still never redeem them.
        policy: { redemption: { codePattern: codePattern('^LB-'), pointsPerUnit: 1 }, excludedSources: ['pos'] },
      });
      const account = (await engine.accounts.runtime('default'))!;
      const codesOf = (platform: string) => (platform === PLATFORM ? fake.parts : undefined);
      const reader: StorefrontReader = new StorefrontReader({
        accounts: engine.accounts,
        store: ledger,
        liveFirst: (budgetId) => engine.worker.liveFirst(budgetId),
        share: 0.2,
        held: (id, customer, source, readStartedAt) => codes.held(id, customer, source, readStartedAt),
        fence: (id, customer) => fenceOf(store, holderId(id, customer)),
        logger,
        now: () => clock.now,
      });
      const codes = new RewardCodes({ store, codesOf, reader, logger, now: () => new Date(clock.now) });
      engine.worker.rewardCodes = codes;
      // As src/composition/storefront-reader.ts: the worker's calls for a customer drop their kept balance.
      engine.worker.customerCalls.add((call) => reader.dropBalance(call.account, call.customer));
      const checks = new CoverChecks({ store, codesOf, reader, codes, logger, now: () => new Date(clock.now) });
      engine.worker.coverChecks = checks;
      const sweeper = new CodeSweeper({
        store,
        codes,
        checks,
        codesOf,
        served: async () => true,
        accounts: engine.accounts,
        logger,
        now: () => new Date(clock.now),
        settleMs: SETTLE_MS,
        repairMs: REPAIR_MS,
      });
      await saveRewards(ledger, PLATFORM, SHOP, REWARDS, 'test');
      await ledger.putRecord(raw('storefront'), `${PLATFORM}:${SHOP}`, {
        platform: PLATFORM,
        shop: SHOP,
        on: true,
        by: 'test',
        at: new Date().toISOString(),
      });
      Object.assign(real, { engine, account, codes, sweeper });

      const property = fc.asyncProperty(
        fc.commands(commands, {
          maxCommands: 24,
          size: 'max',
          // A shrunk failure's commands: MODEL_REPLAY=<its replayPath>, with MODEL_SEED and MODEL_PATH.
          ...(process.env.MODEL_REPLAY ? { replayPath: process.env.MODEL_REPLAY } : {}),
        }),
        fc.nat({ max: 1 }),
        async (cmds, extra) => {
          real.earlier.push(...real.customers);
          real.run += 1;
          await saveRewards(ledger, PLATFORM, SHOP, rewardsOfRun(real.run), 'test');
          real.storeFail = undefined;
          real.storeFailSkip = 0;
          fake.failMake = undefined;
          real.earned = new Map();
          real.customers = Array.from({ length: 2 + extra }, (_, index) => ({
            index,
            email: `model-${real.run}-${index}-${Math.random().toString(36).slice(2, 8)}@example.com`,
            customerId: `customer-${real.run}-${index}`,
          }));
          for (const customer of real.customers) await earn(real, customer);
          await earn(real, { index: 50, email: payerOf(real), customerId: 'payer' });
          await earn(real, { index: 50, email: payerOf(real), customerId: 'payer' });
          await settle(real);
          for (const customer of real.customers)
            await eventually(() => expect(balanceOf(customer.email).approved).toBe(EARN));
          const model: Model = {
            elsewhere: real.customers.map(() => 0),
            elsewherePoints: real.customers.map(() => 0),
            paid: [],
          };
          await fc.asyncModelRun(
            () => ({ model, real }),
            [...cmds].map((command) => ({
              check: (m: Readonly<Model>) => command.check(m),
              run: async (m: Model, r: Real) => {
                await within(20_000, command.toString(), command.run(m, r));
                await checkInvariants(r, m);
              },
              toString: () => command.toString(),
            })),
          );
          await closing(real, model);
        },
      );
      // The histories that found defects, first, on every run (the run of their seed that failed).
      // (numRuns 1: from a path, fast-check goes on to numRuns runs, a hundred by default, after the one replayed.)
      for (const { seed, path } of PINNED_SEEDS[storeName])
        await fc.assert(property, { seed, path, numRuns: 1, endOnFailure: true });
      // The suite's runs start from one seed, so the histories it covers (and the stats below) are the same on every
      // run; `npm run soak` runs new ones, five times as many, from a random seed (MODEL_SOAK=1).
      const seed = process.env.MODEL_SEED ? Number(process.env.MODEL_SEED) : MODEL_SOAK ? undefined : SUITE_SEED;
      await fc.assert(property, {
        numRuns: MODEL_SOAK ? numRuns * 5 : numRuns,
        endOnFailure: process.env.MODEL_END_ON_FAILURE === '1',
        // A failure's seed, to run its sequence again: MODEL_SEED=<seed> npx vitest run <this file> -t '<its name>'.
        ...(seed === undefined ? {} : { seed }),
        ...(process.env.MODEL_PATH ? { path: process.env.MODEL_PATH } : {}),
      });
      // The runs met what they are for (the weights make each of these common: tens a file).
      // Those of issue 64 need more runs than the stores over HTTP make: the in-memory store's meet them.
      const issue64 = storeName === 'in-memory' ? ['pay with two', 'earning cancelled', 'pay excluded'] : [];
      for (const what of [
        'issued',
        'short',
        'redeemed',
        'ended released unused',
        'make outlived its repair',
        ...issue64,
      ])
        expect(real.stats[what] ?? 0, `${what}: ${JSON.stringify(real.stats)}`).toBeGreaterThan(0);
    },
    // Minutes on 2 cores beside the rest of the suite (its HTTP stores most): the runs, not a hang.
    600_000,
  );
});
