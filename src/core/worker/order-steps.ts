// One step of an order's turn: its account looked up, the lifecycle's plan made, and the step's place in its
// account's rate budget asked for, before the one call it may make (order-call.ts).
import { notePlaced } from '../storefront/placed-orders.ts';
import { BRIDGE_CODE } from '../storefront/reservations.ts';
import type { AccountRuntime } from '../accounts.ts';
import type { Lease } from '../leases.ts';
import { isCancelled, isTriggered, plan, type WaitingReason } from '../lifecycle.ts';
import type { OrderRecord } from '../order-record.ts';
import type { Policy } from '../policy.ts';
import { redeemInDoubt, withoutState } from '../redeems.ts';
import type { AccountBudgets } from './account-budgets.ts';
import type { OrderCall } from './order-call.ts';
import type { OrderSaves, Step } from './order-saves.ts';
import type { OrderSchedule } from './order-schedule.ts';
import type { WorkerHooks, WorkerSettings } from './worker-options.ts';

export interface OrderStepsParts {
  budgets: AccountBudgets;
  schedule: OrderSchedule;
  saves: OrderSaves;
  call: OrderCall;
  /** Whether the worker is running: a stopped one makes no more calls, and lets its orders go. */
  running: () => boolean;
  /** Wakes the worker's loop to claim again. */
  wake: () => void;
}

export class OrderSteps {
  readonly #o: WorkerSettings;
  readonly #hooks: WorkerHooks;
  readonly #p: OrderStepsParts;

  constructor(o: WorkerSettings, hooks: WorkerHooks, parts: OrderStepsParts) {
    this.#o = o;
    this.#hooks = hooks;
    this.#p = parts;
  }

  /** A redeem left 'sending' by a process that died mid-call may have happened: a person decides. */
  async recoverInDoubt(record: OrderRecord, lease: Lease): Promise<Step> {
    const inDoubt = redeemInDoubt(record.upstream);
    if (inDoubt === undefined || record.work.held.redeem !== undefined) return { kind: 'continue', record };
    // A reward code's redeem names its code and points: the merchant checks exactly those at the service.
    const code = inDoubt.code && withoutState(inDoubt.code);
    const what = code ? `the redeem of ${code.points} points for reward code ${code.code}` : 'a redeem';
    const reason = `${what} was being sent when the bridge stopped; it may or may not have been applied. Check the customer's history, then retry or discard`;
    const action = code
      ? { kind: 'redeem' as const, points: code.points, code }
      : { kind: 'redeem' as const, points: 0 };
    return this.#p.saves.deadLetter(record, action, reason, undefined, ['redeem'], lease);
  }

  /**
   * The order's account: the one its first call went to, or the one its shop
   * is linked to now. An order of a shop linked to none waits, folded, with
   * nothing sent, and is looked at again when its shop is linked (or after
   * unlinkedRecheckMs).
   */
  async #account(record: OrderRecord): Promise<AccountRuntime | 'unlinked' | 'gone'> {
    const id = record.upstream.account ?? (await this.#o.accounts.forShop(record.platform, record.shop));
    if (id === undefined) return 'unlinked';
    return (await this.#o.accounts.runtime(id)) ?? 'gone';
  }

  /** Plans the order and makes at most one call. */
  async step(record: OrderRecord, lease: Lease): Promise<Step> {
    const { budgets, saves } = this.#p;
    const now = this.#o.now();
    const account = await this.#account(record);
    if (typeof account === 'string') {
      budgets.needsNoPlace(record.key);
      record.work.waitingFor = 'account';
      record.target = {
        state: record.target?.state ?? 'new',
        reason: (account === 'unlinked' ? 'no_account' : 'account_removed') satisfies WaitingReason,
      };
      record.dueAt = new Date(now.getTime() + this.#o.unlinkedRecheckMs).toISOString();
      await saves.save(record, true, lease);
      return { kind: 'done' };
    }
    delete record.work.waitingFor;
    const budgetId = this.#p.schedule.accountFound(record, account);
    const { policy } = account;
    await this.#takeRewardCode(record, policy);
    const { next, target } = plan(record, policy, now);
    record.target = target;
    // A reward code's redeem goes to the account that issued the code, whatever the order's own account.
    const via = next?.kind === 'redeem' && next.code ? await this.#o.accounts.runtime(next.code.account) : account;
    if (next && !via) {
      const reason = `The reward code ${(next as { code?: { code: string } }).code?.code ?? ''} was issued on a loyalty account that was removed, so its points cannot be redeemed. Nothing was taken from the customer; discard this once you have settled it with them.`;
      return saves.deadLetter(record, next, reason, undefined, [next.kind], lease);
    }
    if (!next || !via || !this.#p.running() || account.authPause.paused || via.authPause.paused) {
      budgets.needsNoPlace(record.key);
      return saves.letGo(record, next, via?.authPause.paused ? via : account, now, lease);
    }
    if (record.work.retryAt !== null && Date.parse(record.work.retryAt) > now.getTime()) {
      budgets.needsNoPlace(record.key);
      record.dueAt = record.work.retryAt;
      await saves.save(record, true, lease);
      return { kind: 'done' };
    }

    const budget = via.reserveCall?.();
    if (budget?.spent) return saves.budgetSpent(record, via, budget.until, lease);
    const place = budget?.place;
    const lane = record.lane ?? 'live';
    // An account with no budget to ask (its calls wait in their limiter) counts each call as given a place.
    if (!budget) budgets.placeGiven(budgetId, lane, record.key);
    else if (place) {
      if (lane === 'backfill' && !budgets.backfillMayTakePlace(budgetId)) {
        // A live order of this account waits for a place: this one is let go, still due, and claims pass over
        // the account's backfill until the live order has had its place or backfill's share is due.
        place.release();
        await saves.save(record, true, lease);
        return { kind: 'done' };
      }
      // The account's backfill, held back while this order waited, may take places again: claims look at it now.
      if (budgets.placeGiven(budgetId, lane, record.key)) this.#p.wake();
    }
    try {
      return await this.#p.call.call(record, next, account, lease, place, via);
    } finally {
      // A step that made no call gives its place back (one that did, gave it to the limiter).
      place?.release();
    }
  }

  /**
   * An order that pays with one of the bridge's reward codes takes the code's reservation (once: the same order
   * gets it again after a crash, any other none); saved with the order's next save. Not while the order is placed
   * and not paid (where paying is what earns): its payment may fail, and a store may give the code's use back then
   * (some stores do), letting another order pay with it, which the unpaid order would keep it from; a failed
   * order is never cancelled, so it would hold the points for good. Once paid, or cancelled (the sweeper then lets
   * the code go as the store counts it), it takes it.
   */
  async #takeRewardCode(record: OrderRecord, policy: Policy): Promise<void> {
    const codes = this.#hooks.rewardCodes;
    const { upstream, snapshot } = record;
    if (!codes) return;
    const facts = new Set(record.facts);
    const placed = !isTriggered(facts, policy) && !isCancelled(facts, policy);
    // Each of the bridge's codes the order carries (two may combine at checkout), each taken once.
    for (const { code } of snapshot.discountCodes) {
      if (!BRIDGE_CODE.test(code)) continue;
      if (placed) {
        // Not taken yet, but its points held for it: it may pay days later (placed-orders.ts).
        await notePlaced(this.#o.store, { platform: record.platform, shop: record.shop, code, orderKey: record.key });
        continue;
      }
      if (upstream.redeemCodes?.some((each) => each.code.toUpperCase() === code.toUpperCase())) continue;
      const taken = await codes.claimForOrder(record.platform, record.shop, code, record.key);
      if (taken && !upstream.redeemCodes?.some((each) => each.reservation === taken.reservation))
        upstream.redeemCodes = [...(upstream.redeemCodes ?? []), { ...taken, redemption: 'none' }];
    }
  }
}
