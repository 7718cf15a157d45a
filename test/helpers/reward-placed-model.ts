// The commands and the money rule of the model test of placed-unpaid orders and erased shops' codes
// (test/property/reward-placed-erased-model.test.ts), on a RewardWorld (reward-world.ts). The model is an account of
// points, not of the bridge: which codes a customer was given, which orders were placed, paid or cancelled with them,
// and whether the shop is installed. What the bridge holds is read from the ledger (a reservation's state, or an
// erased shop's hold by amount) and from the service (its redeems); the rule is checked against the model alone:
// - a code whose order paid while its points were held is redeemed once, and no code twice;
// - a code a checkout can still apply, or an order placed with it and not paid within PLACED_WAIT_MS, keeps its
//   points held or spent (an erased shop's only until the code's expiry and settling: a documented limit);
// - past every limit, nothing is held.
import fc from 'fast-check';
import { expect } from 'vitest';
import { PLACED_WAIT_MS } from '../../src/core/storefront/code-sweeper.ts';
import { HELD, HOLDER_KIND, holderId } from '../../src/core/storefront/reservations.ts';
import type { Reward } from '../../src/core/storefront/rewards.ts';
import { eventually } from './engine.ts';
import { DAY_MS, PLATFORM, SETTLE_MS, SHOP, offerRewards, privacyOf, type RewardWorld } from './reward-world.ts';
import { raw } from './raw-records.ts';

/** 100 points for 2.00 off, for a day: two earns give a customer two of these at once. */
export const REWARD: Reward = {
  ...{ id: 'hundred', points: 100, benefit: { kind: 'amount_off' as const, amount: '2.00' }, minimumOrder: null },
  ...{ expiresInDays: 1, combines: false, on: true },
};

export interface CodeM {
  code: string;
  customer: number;
  reservation: string;
  expiresAt: number;
  /** An order paid with it while its points were held: it must be redeemed, once. */
  paidHeld: boolean;
  /** Made before the shop's erasure. */
  erased: boolean;
}

export interface OrderM {
  id: string;
  code: string;
  state: 'placed' | 'paid' | 'cancelled';
  placedAt: number;
  /** Placed before the shop's erasure: its note went with the shop's data. */
  erased: boolean;
}

export interface Model {
  customers: string[];
  codes: CodeM[];
  orders: OrderM[];
  installed: boolean;
  rewardOn: boolean;
  /** The store counts uses late this run (Shopify's asyncUsageCount). */
  late: boolean;
}

export interface Real {
  w: RewardWorld;
  nextOrder: () => string;
  /** What the runs came to, so a run that exercised nothing is seen. */
  stats: Record<string, number>;
}
const count = (real: Real, what: string) => (real.stats[what] = (real.stats[what] ?? 0) + 1);

export type Cmd = fc.AsyncCommand<Model, Real>;

const customerIdOf = (email: string) => `customer-${email}`;

/** What the bridge does with a code's points now: held (a reservation, or an erased shop's hold), spent, or let go. */
export async function holdOf(real: Real, model: Model, code: CodeM): Promise<'held' | 'spent' | 'let go'> {
  const { w } = real;
  const email = model.customers[code.customer]!;
  const holder = await w.ledger.getRecord(HOLDER_KIND, holderId(w.account.id, { email }));
  const reservation = holder?.reservations.find((each) => each.id === code.reservation);
  if (reservation) return HELD.has(reservation.state) ? 'held' : reservation.state === 'released' ? 'let go' : 'spent';
  const kept = holder?.erasedShopHolds?.some(
    (each) => each.reservation === code.reservation && Date.parse(each.until) > w.clock.now,
  );
  return kept ? 'held' : 'let go';
}

const usable = (real: Real, model: Model, code: CodeM) =>
  real.w.store.usable(code.code, customerIdOf(model.customers[code.customer]!), real.w.clock.now);

/** Whether a checkout or an order placed with it can still take the code's discount, so its points must stay. */
function canStillPay(real: Real, model: Model, code: CodeM): boolean {
  const now = real.w.clock.now;
  if (usable(real, model, code)) return true;
  return model.orders.some(
    (order) =>
      order.code === code.code &&
      order.state === 'placed' &&
      now <= order.placedAt + PLACED_WAIT_MS &&
      // An erased shop's code pays for nothing after its expiry and settling (docs/storefront.md).
      (!order.erased || now <= code.expiresAt + SETTLE_MS),
  );
}

/**
 * The money rule, after every command. A code's redeem may wait for a sweep (an order that paid with a code another,
 * cancelled, order held: the sweeper hands it on), so all of them are due only after time passed (`due`).
 */
export async function checkMoney(real: Real, model: Model, due: boolean): Promise<void> {
  for (const [index, email] of model.customers.entries()) {
    const owed = model.codes.filter((code) => code.customer === index && code.paidHeld).map(() => REWARD.points);
    const redeems = () => real.w.redeems(email);
    // Each code whose order paid while it was held is redeemed once, for its points; nothing else is, ever.
    if (due) await eventually(() => expect(redeems(), `redeems of c${index}`).toEqual(owed), 3_000);
    expect(redeems().length, `redeems of c${index}`).toBeLessThanOrEqual(owed.length);
    expect(redeems().every((points) => points === REWARD.points)).toBe(true);
    for (const code of model.codes.filter((each) => each.customer === index))
      if (canStillPay(real, model, code))
        expect(await holdOf(real, model, code), `${code.code} can still pay`).not.toBe('let go');
  }
}

function paidHeld(real: Real, code: CodeM, how: string): void {
  code.paidHeld = true;
  count(real, code.erased ? `${how}, erased shop's code` : how);
}

async function deliver(real: Real, id: string, code: string, facts: Array<'placed' | 'paid' | 'cancelled'>) {
  await real.w.pay(id, [code], { facts });
  await real.w.settle();
}

export class Redeem implements Cmd {
  readonly customer: number;
  constructor(customer: number) {
    this.customer = customer;
  }
  check = (model: Readonly<Model>) => model.installed && model.rewardOn;
  async run(model: Model, real: Real): Promise<void> {
    const index = this.customer % model.customers.length;
    const email = model.customers[index]!;
    const answer = await real.w.redeem(email, REWARD);
    count(real, `redeem ${answer.kind}`);
    if (answer.kind !== 'issued') return;
    const reservation = (await real.w.reservations(email)).find((each) => each.code === answer.code)!;
    model.codes.push({
      ...{ code: answer.code, customer: index, reservation: reservation.id },
      ...{ expiresAt: Date.parse(reservation.expiresAt), paidHeld: false, erased: false },
    });
  }
  toString = () => `redeem(c${this.customer})`;
}

/** A checkout applies a code the store still takes: an order placed, unpaid (a bank transfer), or paid at once. */
export class Place implements Cmd {
  readonly pick: number;
  readonly paid: boolean;
  constructor(pick: number, paid: boolean) {
    this.pick = pick;
    this.paid = paid;
  }
  check = (model: Readonly<Model>) => model.installed && model.codes.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const open = model.codes.filter((code) => usable(real, model, code));
    if (open.length === 0) return void count(real, 'no code to place with');
    const code = open[this.pick % open.length]!;
    const held = (await holdOf(real, model, code)) === 'held';
    real.w.store.use(usable(real, model, code)!);
    const id = real.nextOrder();
    model.orders.push({
      id,
      code: code.code,
      state: this.paid ? 'paid' : 'placed',
      placedAt: real.w.clock.now,
      erased: false,
    });
    if (this.paid && held) paidHeld(real, code, 'paid at checkout');
    await deliver(real, id, code.code, this.paid ? ['placed', 'paid'] : ['placed']);
  }
  toString = () => `place(${this.pick}, ${this.paid ? 'paid' : 'unpaid'})`;
}

/** An order placed unpaid pays, or is cancelled (the store giving the code's use back, or not). */
export class Settle implements Cmd {
  readonly pick: number;
  readonly how: 'paid' | 'cancelled' | 'cancelled, use given back';
  constructor(pick: number, how: Settle['how']) {
    this.pick = pick;
    this.how = how;
  }
  check = (model: Readonly<Model>) => model.installed && model.orders.some((order) => order.state === 'placed');
  async run(model: Model, real: Real): Promise<void> {
    const placed = model.orders.filter((order) => order.state === 'placed');
    const order = placed[this.pick % placed.length]!;
    const code = model.codes.find((each) => each.code === order.code)!;
    if (this.how === 'paid') {
      const withdrawn = [...real.w.store.byId.values()].some((each) => each.code === code.code && each.removed);
      if ((await holdOf(real, model, code)) === 'held')
        paidHeld(real, code, withdrawn ? 'paid after withdrawal' : 'paid later');
      order.state = 'paid';
      return deliver(real, order.id, order.code, ['placed', 'paid']);
    }
    order.state = 'cancelled';
    count(real, this.how);
    if (this.how !== 'cancelled') {
      real.w.store.countLateUses();
      const made = [...real.w.store.byId.values()].find((each) => each.code === order.code);
      if (made && made.uses > 0) made.uses -= 1;
    }
    await deliver(real, order.id, order.code, ['placed', 'cancelled']);
  }
  toString = () => `settle(${this.pick}, ${this.how})`;
}

/** The merchant turns the reward off (its codes withdrawn unused), or on again. */
export class Offer implements Cmd {
  readonly on: boolean;
  constructor(on: boolean) {
    this.on = on;
  }
  check = (model: Readonly<Model>) => model.installed && model.rewardOn !== this.on;
  async run(model: Model, real: Real): Promise<void> {
    await offerRewards(real.w.ledger, [{ ...REWARD, on: this.on }]);
    model.rewardOn = this.on;
    // The sweeper's loop comes by soon after, before a store that counts late has counted a checkout's use.
    if (!this.on) await real.w.sweeper.sweep();
  }
  toString = () => `reward ${this.on ? 'on' : 'off'}`;
}

/** Time passes (the store's late count catching up), and the sweeper runs as its loop would. */
export class Advance implements Cmd {
  readonly past: 'none' | 'settling' | 'expiry' | 'placed wait';
  constructor(past: Advance['past']) {
    this.past = past;
  }
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    const by = { none: 0, settling: SETTLE_MS, expiry: DAY_MS + SETTLE_MS, 'placed wait': PLACED_WAIT_MS };
    real.w.clock.now += by[this.past] + (this.past === 'none' ? 0 : 1_000);
    if (this.past !== 'none') real.w.store.countLateUses();
    // Two passes, the worker after each, as the loops would: a pass hands a code on to an order that waits for it.
    for (let pass = 0; pass < 2; pass += 1) {
      await real.w.sweeper.sweep();
      await real.w.settle();
    }
  }
  toString = () => (this.past === 'none' ? 'sweep' : `past ${this.past}, sweep`);
}

/** The app is uninstalled, and the shop's data erased (shop/redact): its codes still pay in the store. */
export class Leave implements Cmd {
  check = (model: Readonly<Model>) => model.installed;
  async run(model: Model, real: Real): Promise<void> {
    const { w } = real;
    await privacyOf(w).shopUninstalled(PLATFORM, SHOP);
    w.serving.on = false;
    w.store.accessGone = true;
    await privacyOf(w).eraseShop(PLATFORM, SHOP);
    await w.ledger.eraseShop(PLATFORM, SHOP);
    model.installed = false;
    for (const order of model.orders) order.erased = true;
    for (const code of model.codes) code.erased = true;
    count(real, 'shop erased');
  }
  toString = () => 'shop erased';
}

/** The merchant installs the app again: the bridge serves the shop, its reward on. */
export class Return implements Cmd {
  check = (model: Readonly<Model>) => !model.installed;
  async run(model: Model, real: Real): Promise<void> {
    await reinstall(real.w);
    model.installed = true;
    model.rewardOn = true;
  }
  toString = () => 'shop reinstalls';
}

export async function reinstall(w: RewardWorld): Promise<void> {
  w.serving.on = true;
  w.store.accessGone = false;
  await offerRewards(w.ledger, [REWARD]);
  const at = new Date().toISOString();
  await w.ledger.putRecord(raw('storefront'), `${PLATFORM}:${SHOP}`, {
    platform: PLATFORM,
    shop: SHOP,
    on: true,
    by: 'test',
    at,
  });
}

/**
 * An order placed with a code and never paid nor cancelled, its use counted by the store: it held the code's points for
 * good until the sweeper let them go past the code's expiry, settling and PLACED_WAIT_MS (this model's finding). Only
 * a history run not `strict` (an erased shop's, whose limit is its own) tolerates it.
 */
export const heldByUnpaid = (real: Real, model: Model, code: CodeM): boolean =>
  [...real.w.store.byId.values()].some((each) => each.code === code.code && !each.removed && each.uses > 0) &&
  model.orders.some((order) => order.code === code.code && order.state === 'placed' && !order.erased);

/** Past every limit (a placed order's wait, every code's expiry and settling): nothing of the run is held. */
export async function closing(real: Real, model: Model, strict: boolean): Promise<void> {
  real.w.clock.now += PLACED_WAIT_MS + DAY_MS + 2 * SETTLE_MS;
  real.w.store.countLateUses();
  for (let pass = 0; pass < 3; pass += 1) {
    await real.w.sweeper.sweep();
    await real.w.settle();
  }
  await checkMoney(real, model, true);
  for (const code of model.codes) {
    if ((await holdOf(real, model, code)) !== 'held') continue;
    if (!strict && heldByUnpaid(real, model, code)) count(real, 'held by an unpaid order for good');
    else expect.fail(`${code.code} is held past every limit`);
  }
}

/** The commands, weighted: most of a run takes codes and places, pays or cancels orders with them. */
export const commands = (customers: number) => {
  const customer = fc.nat({ max: customers - 1 });
  const settle = fc.constantFrom<Settle['how']>('paid', 'paid', 'cancelled', 'cancelled, use given back');
  const past = fc.constantFrom<Advance['past']>('none', 'settling', 'expiry', 'placed wait');
  return fc.oneof(
    { weight: 3, arbitrary: customer.map((c) => new Redeem(c)) },
    { weight: 4, arbitrary: fc.tuple(fc.nat(), fc.boolean()).map(([pick, paid]) => new Place(pick, paid)) },
    { weight: 3, arbitrary: fc.tuple(fc.nat(), settle).map(([pick, how]) => new Settle(pick, how)) },
    { weight: 1, arbitrary: fc.boolean().map((on) => new Offer(on)) },
    { weight: 2, arbitrary: past.map((by) => new Advance(by)) },
    { weight: 1, arbitrary: fc.constant(new Leave()) },
    { weight: 2, arbitrary: fc.constant(new Return()) },
  );
};
