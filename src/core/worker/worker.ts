// The worker moves each order from what the loyalty service holds to where the lifecycle says it belongs:
// one call at a time per order (leased to one worker while it calls, so approve never overtakes earn) and
// many orders at once. Facts folded in during a call are noticed when its result is saved, and the lease is
// checked right before each call leaves. An order whose account's budget is spent is let go, due again when
// the budget returns, rather than hold a slot waiting in the limiter.
import { notePlaced } from '../storefront/placed-orders.ts';
import { BRIDGE_CODE, holderId } from '../storefront/reservations.ts';
import type { CoverChecks } from '../storefront/cover-checks.ts';
import type { ServiceCustomer } from '../storefront/customer-points.ts';
import type { RewardCodes } from '../storefront/reward-codes.ts';
import { tellCustomerCall, type CustomerCall, type CustomerCallListener } from '../customer-calls.ts';
import { laneAfter, LaneCalls, LANES, shopGroupOf, type Lane, type SkippedShops } from '../lanes.ts';
import { LaneClaims } from './lane-claims.ts';
import { AccountBudgets, BUDGET_SPENT_LONG_MS, type BudgetOutlook } from './account-budgets.ts';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.ts';
import { DEFAULT_LEASE_MS, LeaseLostError, type Lease } from '../leases.ts';
import { approvalDueAt, isCancelled, isTriggered, plan, type Action, type WaitingReason } from '../lifecycle.ts';
import type { OrderRecord, RedeemCode } from '../order-record.ts';
import { forgetRedeemsInDoubt, redeemInDoubt, redemptionOf, setRedemption, withoutState } from '../redeems.ts';
import type { Policy } from '../policy.ts';
import type { DeadLetter, OrderWorkRole, DeadLetterRole, RecordRole, LedgerLifecycle } from '../store/ledger-store.ts';
import { WorkLoop } from '../work-loop.ts';
import type { AccountRuntime, Accounts } from '../accounts.ts';
import { makeCall, noteIntent, recordSuccess, type LoyaltyOperations } from './calls.ts';
import { decideFailure, holdCalls, undoIntent } from './failures.ts';
import type { Place } from '../../loyalty/places.ts';
import { BudgetSpentError } from '../../loyalty/rate-limiter.ts';
import { limiterOf } from '../../loyalty/client.ts';
import {
  collisionReason,
  carriesLpOrderId,
  LP_ORDER_ID_OPERATIONS,
  lpOrderIdClaim,
  lpOrderIdFor,
  type OrderIdPrefixes,
} from './lp-order-ids.ts';

export type { LoyaltyOperations };

/** A call the service took for a customer (and, for a conversion, the referrer it named), on an account. */
export type { CustomerCall };

export interface WorkerOptions {
  store: OrderWorkRole & DeadLetterRole & RecordRole & LedgerLifecycle;
  /** Each order's account: its client, rules and pause (accounts.ts). */
  accounts: Accounts;
  logger: Logger;
  /** Who leases orders, when several bridges share a store. */
  owner?: string;
  /** Orders worked on at once. The rate limiter, not this, sets the pace. */
  concurrency?: number;
  /** Retryable failures are retried until the first failure is this old, then dead-lettered. */
  maxRetryAgeMs?: number;
  /** Failures in words the service does not document are retried this many times, then dead-lettered. */
  maxUnknownFailures?: number;
  retryMinDelayMs?: number;
  retryMaxDelayMs?: number;
  orderIdPrefixes?: OrderIdPrefixes;
  /** How long an order of a shop linked to no account waits before it is looked at again; a link wakes it at once. */
  unlinkedRecheckMs?: number;
  /** Poll a shared store this often for orders other instances left. */
  pollMs?: number | undefined;
  /** How long an order stays with an instance that stopped renewing its lease (it died) before another takes it over. */
  leaseMs?: number;
  /** The part of the worker's slots kept for backfill while live work has them all busy (BACKFILL_MIN_SHARE). */
  backfillMinShare?: number;
  /** How long a budget is spent with no real break before it is a problem to show (tests hurry it). */
  budgetSpentLongMs?: number;
  /** Calls per lane, counted for status and metrics. */
  laneCalls?: LaneCalls;
  now?: () => Date;
  random?: () => number;
}

const HOUR = 60 * 60 * 1000;

/** What an order of a paused account waits for (work.waitingFor): that account let in again. */
export const pauseOf = (account: string) => `pause:${account}`;

type Step = { kind: 'continue'; record: OrderRecord } | { kind: 'done' };

export class Worker {
  readonly #o: Required<Omit<WorkerOptions, 'pollMs'>> & Pick<WorkerOptions, 'pollMs'>;
  readonly #loop: WorkLoop<OrderRecord>;
  #running = false;
  /** Orders under way per lane: the backfill reserve is what backfill lacks of its share. */
  readonly #inFlight: Record<Lane, number> = { live: 0, backfill: 0 };
  readonly #claims: LaneClaims;
  /** Accounts whose budget was found spent, and live orders waiting for a place: claims pass over their shops. */
  readonly #budgets: AccountBudgets;
  /** The check of lapsed waits under way, if one is. */
  #checking: Promise<void> | undefined;
  /**
   * Each shop's budget, as last seen by a step (platform:shop → budget id), and each account's: accounts that
   * share one limiter (the same service, key and limit) share one budget, its places and its holds.
   */
  readonly #budgetOfShop = new Map<string, string>();
  readonly #budgetOfAccount = new Map<string, string>();
  /** Accounts whose own orders found their budget spent, and until when (what /metrics may show of each). */
  readonly #spentOfAccount = new Map<string, number>();

  /** The bridge's reward codes: an order that pays with one redeems its reservation (core/storefront/reward-codes.ts). */
  rewardCodes: Pick<RewardCodes, 'claimForOrder' | 'redeemFor' | 'settled'> | undefined;
  /** A cancelled earning's customer's codes against their balance (core/storefront/cover-checks.ts). */
  coverChecks: Pick<CoverChecks, 'cancelling' | 'check'> | undefined;

  constructor(options: WorkerOptions) {
    this.#o = {
      owner: randomUUID(),
      concurrency: 32,
      leaseMs: DEFAULT_LEASE_MS,
      maxRetryAgeMs: 72 * HOUR,
      maxUnknownFailures: 5,
      retryMinDelayMs: 5_000,
      retryMaxDelayMs: 15 * 60_000,
      orderIdPrefixes: {},
      unlinkedRecheckMs: 6 * HOUR,
      backfillMinShare: 0.2,
      budgetSpentLongMs: BUDGET_SPENT_LONG_MS,
      laneCalls: new LaneCalls(),
      now: () => new Date(),
      random: Math.random,
      ...options,
    };
    this.#budgets = new AccountBudgets({
      now: () => this.#o.now().getTime(),
      minShare: this.#o.backfillMinShare,
    });
    this.#claims = new LaneClaims(this.#o.store, {
      concurrency: this.#o.concurrency,
      minShare: this.#o.backfillMinShare,
      leaseMs: this.#o.leaseMs,
    });
    this.#loop = new WorkLoop({
      name: 'worker',
      concurrency: this.#o.concurrency,
      // An order whose account's credentials are refused is let go until its account's next probe (#step).
      claim: async (limit, owner) => {
        await this.#checkLapsedWaits();
        const claimed = await this.#claims.claim({
          owner,
          limit,
          backfillInFlight: this.#inFlight.backfill,
          skip: this.#shopsToSkip(),
        });
        return this.#inAskingOrder(claimed);
      },
      handle: (record, lease) => this.#drive(record, lease),
      // A step that failed (the ledger's disk, say) lets go of the order, to be tried again after a pause.
      abandon: (record, lease) =>
        this.#o.store.releaseOrder(
          lease.owner,
          record.key,
          new Date(this.#o.now().getTime() + this.#o.retryMinDelayMs),
        ),
      leases: {
        owner: this.#o.owner,
        leaseMs: this.#o.leaseMs,
        keyOf: (record) => record.key,
        renew: (claims) => this.#o.store.renewClaims('orders', claims, this.#o.leaseMs),
      },
      nextAt: () => this.#nextAt(),
      pollMs: this.#o.pollMs,
      logger: this.#o.logger,
    });
  }

  get stats() {
    return { inFlight: this.#loop.inFlight };
  }

  /**
   * Told after each call the service took for a customer (earn, approval, cancellation, redeem, conversion): what
   * the storefront keeps of that customer's balance is stale from then on (storefront/storefront-reader.ts).
   */
  readonly customerCalls = new Set<CustomerCallListener>();

  /** Whether the budget's live orders come first now: the storefront takes no place of it (account-budgets.ts). */
  liveFirst(budgetId: string): boolean {
    return this.#budgets.liveFirst(budgetId);
  }

  /**
   * Rate budgets this worker found spent, with when each returns (status, metrics): by budget, an account's
   * budgetId or, without one, its id; every account on a spent budget is spent.
   */
  get spentBudgets(): ReadonlyMap<string, number> {
    return this.#budgets.spent;
  }

  /** The budgets spent now, with since when each has been spent with no real break (a budget spent for long). */
  get spentBudgetsSince(): ReadonlyMap<string, number> {
    return this.#budgets.spentSince;
  }

  /** How long a budget is spent, as spentBudgetsSince says, before it is a problem to show. */
  get budgetSpentLongMs(): number {
    return this.#o.budgetSpentLongMs;
  }

  /**
   * Accounts whose own orders found their budget spent, with when it returns (the budget's earliest return known,
   * as spentBudgets says it): not the other accounts on the same budget.
   */
  get spentAccounts(): ReadonlyMap<string, number> {
    const now = this.#o.now().getTime();
    const spent = this.#budgets.spent;
    const own = new Map<string, number>();
    for (const [account, until] of this.#spentOfAccount) {
      const budgetUntil = spent.get(this.#budgetOfAccount.get(account) ?? account);
      if (until <= now || budgetUntil === undefined) this.#spentOfAccount.delete(account);
      else own.set(account, budgetUntil);
    }
    return own;
  }

  /**
   * The budget an order's turn counts against, as far as known before its step looks its account up: an account
   * not seen yet counts as its own (corrected by accountFound once looked up).
   */
  #budgetOfOrder(record: OrderRecord): string | undefined {
    const account = record.upstream.account;
    if (account === undefined) return this.#budgetOfShop.get(shopGroupOf(record.key));
    return this.#budgetOfAccount.get(account) ?? account;
  }

  /** The shops claims pass over: those of accounts whose budget is spent, and, in backfill, those holding it back. */
  #shopsToSkip({ spent, holding }: BudgetOutlook = this.#budgets.outlook()): SkippedShops {
    if (spent.size === 0 && holding.size === 0) return {};
    const all = new Set<string>();
    const backfill = new Set<string>();
    for (const [shop, budget] of this.#budgetOfShop) {
      if (spent.has(budget)) all.add(shop);
      else if (holding.has(budget)) backfill.add(shop);
    }
    return { all, backfill };
  }

  /**
   * A claim's orders in the order they will ask for their places (each
   * order's turn starts in this order, and under a spent budget the first to
   * ask gets the place that frees): backfill owed its share first, then live
   * orders, then the other backfill (account-budgets.ts).
   */
  #inAskingOrder(claimed: OrderRecord[]): OrderRecord[] {
    const owed = (record: OrderRecord) => {
      if (record.lane !== 'backfill') return false;
      const budget = this.#budgetOfOrder(record);
      return budget !== undefined && this.#budgets.shareDue(budget);
    };
    return [...claimed.filter(owed), ...claimed.filter((record) => !owed(record))];
  }

  /**
   * Live orders let go whose waits lapsed hold their account's backfill back
   * only while the store has one of them due: per account, read until one is.
   * One check at a time (claims and #nextAt share it).
   */
  #checkLapsedWaits(): Promise<void> {
    this.#checking ??= this.#readLapsedWaits().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #readLapsedWaits(): Promise<void> {
    for (const waits of this.#budgets.lapsed()) {
      for (const wait of waits) {
        let stillDue = false;
        try {
          const record = await this.#o.store.getOrder(wait.key);
          stillDue =
            record !== undefined &&
            (record.lane ?? 'live') === 'live' &&
            record.dueAt !== null &&
            Date.parse(record.dueAt) <= this.#o.now().getTime();
        } catch {
          // Unread: the wait ends rather than hold backfill on a guess.
        }
        this.#budgets.lapseChecked(wait, stillDue);
        if (stillDue) break;
      }
    }
  }

  /**
   * When to look for work next: the next due work of the shops claims do
   * not pass over, the first spent budget's return, or when a live order
   * waiting for a place falls due. Work due now that claims pass over is not
   * looked at before then: the loop would only spin, claiming nothing. A
   * slot freeing or new work wakes it sooner.
   */
  async #nextAt(): Promise<number | undefined> {
    await this.#checkLapsedWaits();
    // The shops passed over, and when that ends, as of one instant (BudgetOutlook): a return falling during the
    // store's read would otherwise be both passed over there and forgotten here, and the loop would sleep past it.
    const outlook = this.#budgets.outlook();
    const times = [await this.#o.store.nextDueAt(this.#shopsToSkip(outlook)), outlook.changesAt].filter(
      (at) => at !== undefined,
    );
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Per lane: orders under way on this instance, and its calls in the last minute. */
  get lanes(): Record<Lane, { inFlight: number; callsLastMinute: number }> {
    return Object.fromEntries(
      LANES.map((lane) => [
        lane,
        { inFlight: this.#inFlight[lane], callsLastMinute: this.#o.laneCalls.perMinute(lane) },
      ]),
    ) as Record<Lane, { inFlight: number; callsLastMinute: number }>;
  }

  start(): void {
    this.#running = true;
    this.#o.store.onWork(() => this.#loop.wake());
    this.#loop.start();
  }

  /** Stops taking orders and waits for the calls under way; their orders are let go. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop.stop();
  }

  idle(): Promise<void> {
    return this.#loop.idle();
  }

  get isIdle(): boolean {
    return this.#loop.isIdle;
  }

  wake(): void {
    this.#loop.wake();
  }

  async #drive(claimed: OrderRecord, lease: Lease): Promise<void> {
    const lane = claimed.lane ?? 'live';
    this.#inFlight[lane]++;
    // Synchronous, before any of the claim's orders asks for a place: a live one waits for its place from now on.
    this.#budgets.turnStarted(claimed.key, lane, this.#budgetOfOrder(claimed));
    try {
      let step = await this.#recoverInDoubt(claimed, lease);
      while (step.kind === 'continue') step = await this.#step(step.record, lease);
    } finally {
      this.#inFlight[lane]--;
      this.#budgets.turnEnded(claimed.key);
    }
  }

  /** A redeem left 'sending' by a process that died mid-call may have happened: a person decides. */
  async #recoverInDoubt(record: OrderRecord, lease: Lease): Promise<Step> {
    const inDoubt = redeemInDoubt(record.upstream);
    if (inDoubt === undefined || record.work.held.redeem !== undefined) return { kind: 'continue', record };
    // A reward code's redeem names its code and points: the merchant checks exactly those at the service.
    const code = inDoubt.code && withoutState(inDoubt.code);
    const what = code ? `the redeem of ${code.points} points for reward code ${code.code}` : 'a redeem';
    const reason = `${what} was being sent when the bridge stopped; it may or may not have been applied. Check the customer's history, then retry or discard`;
    const action = code
      ? { kind: 'redeem' as const, points: code.points, code }
      : { kind: 'redeem' as const, points: 0 };
    return this.#deadLetter(record, action, reason, undefined, ['redeem'], lease);
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
  async #step(record: OrderRecord, lease: Lease): Promise<Step> {
    const now = this.#o.now();
    const account = await this.#account(record);
    if (typeof account === 'string') {
      this.#budgets.needsNoPlace(record.key);
      record.work.waitingFor = 'account';
      record.target = {
        state: record.target?.state ?? 'new',
        reason: (account === 'unlinked' ? 'no_account' : 'account_removed') satisfies WaitingReason,
      };
      record.dueAt = new Date(now.getTime() + this.#o.unlinkedRecheckMs).toISOString();
      await this.#save(record, true, lease);
      return { kind: 'done' };
    }
    delete record.work.waitingFor;
    // Almost always the shop's account too; an order fixed to an account its shop has left can mislead this until the shop's next order.
    const budgetId = account.budgetId ?? account.id;
    this.#budgetOfShop.set(shopGroupOf(record.key), budgetId);
    this.#budgetOfAccount.set(account.id, budgetId);
    this.#budgets.accountFound(record.key, budgetId);
    const { policy } = account;
    await this.#takeRewardCode(record, policy);
    const { next, target } = plan(record, policy, now);
    record.target = target;
    // A reward code's redeem goes to the account that issued the code, whatever the order's own account.
    const via = next?.kind === 'redeem' && next.code ? await this.#o.accounts.runtime(next.code.account) : account;
    if (next && !via) {
      const reason = `The reward code ${(next as { code?: { code: string } }).code?.code ?? ''} was issued on a loyalty account that was removed, so its points cannot be redeemed. Nothing was taken from the customer; discard this once you have settled it with them.`;
      return this.#deadLetter(record, next, reason, undefined, [next.kind], lease);
    }
    if (!next || !via || !this.#running || account.authPause.paused || via.authPause.paused) {
      this.#budgets.needsNoPlace(record.key);
      return this.#letGo(record, next, via?.authPause.paused ? via : account, now, lease);
    }
    if (record.work.retryAt !== null && Date.parse(record.work.retryAt) > now.getTime()) {
      this.#budgets.needsNoPlace(record.key);
      record.dueAt = record.work.retryAt;
      await this.#save(record, true, lease);
      return { kind: 'done' };
    }

    const budget = via.reserveCall?.();
    if (budget?.spent) return this.#budgetSpent(record, via, budget.until, lease);
    const place = budget?.place;
    const lane = record.lane ?? 'live';
    // An account with no budget to ask (its calls wait in their limiter) counts each call as given a place.
    if (!budget) this.#budgets.placeGiven(budgetId, lane, record.key);
    else if (place) {
      if (lane === 'backfill' && !this.#budgets.backfillMayTakePlace(budgetId)) {
        // A live order of this account waits for a place: this one is let go, still due, and claims pass over
        // the account's backfill until the live order has had its place or backfill's share is due.
        place.release();
        await this.#save(record, true, lease);
        return { kind: 'done' };
      }
      // The account's backfill, held back while this order waited, may take places again: claims look at it now.
      if (this.#budgets.placeGiven(budgetId, lane, record.key)) this.#loop.wake();
    }
    try {
      return await this.#call(record, next, account, lease, place, via);
    } finally {
      // A step that made no call gives its place back (one that did, gave it to the limiter).
      place?.release();
    }
  }

  /** Let go, due when the budget returns: waiting in the limiter would hold a slot another account could use. */
  async #budgetSpent(record: OrderRecord, account: AccountRuntime, until: number, lease: Lease): Promise<Step> {
    // Claims look at the shops of the budget's accounts again at the earliest return known.
    const budgetId = account.budgetId ?? account.id;
    this.#budgets.noteSpent(budgetId, until);
    this.#spentOfAccount.set(account.id, until);
    record.dueAt = new Date(until).toISOString();
    // Noted before the save lets the order go: a claim meanwhile holds the account's backfill back.
    if ((record.lane ?? 'live') === 'live') {
      this.#budgets.noteLiveWait(record.key, budgetId, until);
      // Every instance's storefront comes after it too, where the budget is shared (the limiter throttles the mark).
      limiterOf(account.client)?.markLiveWaiting?.();
    }
    return this.#save(record, true, lease);
  }

  /** Nothing to send now: the order is saved and let go, due when its next step is. */
  async #letGo(
    record: OrderRecord,
    next: Action | undefined,
    account: AccountRuntime,
    now: Date,
    lease: Lease,
  ): Promise<Step> {
    const retryAt =
      record.work.retryAt !== null && Date.parse(record.work.retryAt) > now.getTime() ? record.work.retryAt : null;
    // Paused: looked at again when the account is let in (engine.wakeWaiting), or at its next probe; never in a spin.
    const resumeAt = account.authPause.paused ? account.authPause.nextProbeAt : null;
    if (next && account.authPause.paused) record.work.waitingFor = pauseOf(account.id);
    if (!next && record.work.retryAt !== null) {
      // A call being retried is wanted no more (an add in doubt on an order since cancelled): no retry is pending.
      const { unknownFailures: _counted, ...work } = record.work;
      record.work = { ...work, attempts: 0, firstFailureAt: null, retryAt: null, lastError: null };
    }
    record.dueAt = next
      ? (retryAt ?? resumeAt ?? now.toISOString())
      : (approvalDueAt(record, account.policy)?.toISOString() ?? null);
    await this.#save(record, true, lease);
    return { kind: 'done' };
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
    const codes = this.rewardCodes;
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

  /** The order's lp_orderid, its intent noted, then its call (on `via`, the account the call goes to). */
  async #call(
    record: OrderRecord,
    next: Action,
    account: AccountRuntime,
    lease: Lease,
    place: Place | undefined,
    via: AccountRuntime = account,
  ): Promise<Step> {
    const { policy } = account;
    // A reward code's redeem names the code's customer, read from its holder now (no order copies a contact).
    let codeCustomer: { email: string } | { mobile: string } | undefined;
    if (next.kind === 'redeem' && next.code) {
      const ready = await this.rewardCodes?.redeemFor(next.code, record.key);
      if (ready?.kind === 'send') codeCustomer = ready.customer;
      else if (ready?.kind === 'sent' || ready?.kind === 'not-held') {
        // Its reservation is not the order's to spend now (let go by the sweeper, or spent already): nothing is sent
        // for it. Spent: the order says so too. Let go: the order takes the code anew on its next step, if it can.
        const reservation = next.code.reservation;
        if (ready.kind === 'sent') setRedemption(record.upstream, next.code, 'sent');
        else
          record.upstream.redeemCodes = record.upstream.redeemCodes?.filter((each) => each.reservation !== reservation);
        return { kind: 'continue', record };
      } else
        return this.#deadLetter(
          record,
          next,
          `The customer of reward code ${next.code.code} was erased, so its points cannot be redeemed. Nothing was taken from anyone; discard this.`,
          undefined,
          ['redeem'],
          lease,
        );
    }
    const lpOrderId = await this.#lpOrderId(record, next, account, lease);
    // Another order holds the lp_orderid: its calls are held by a dead letter, and the order goes on from there.
    if (typeof lpOrderId !== 'string') return lpOrderId;
    // An activity kept from a try before (one that may have been served: see decideFailure) stays with the order.
    const activityKept = record.upstream.earnActivityId !== undefined;
    // Noted now; or left by a try before this one, which may have taken effect (see undoIntent).
    const intentNotedNow = noteIntent(record, next, {
      policy,
      earnActivityId: account.earnActivityId,
      account: account.id,
    });
    if (intentNotedNow) {
      // The save carries the lp_orderid's registration too: both are durable before the call.
      const saved = await this.#save(record, false, lease);
      if (saved.kind === 'done') return saved;
      if (saved.record !== record) {
        // New facts arrived since the plan: plan again before calling. Nothing went out under the intent just
        // saved, so the plan starts from before it (were it kept, a refusal of the next try would find it in doubt).
        undoIntent(saved.record, next, false, { keepActivity: activityKept });
        return saved;
      }
    } else if (carriesLpOrderId(next.kind)) {
      // No intent to save: the registration is made durable on its own before the call (a store says at once
      // when it is already).
      await this.#o.store.claimLpOrderId(lpOrderIdClaim(lpOrderId, account.id), record.key);
    }

    // Before the cancel leaves: the customer's codes are marked to be checked against what it leaves them.
    const coverOf = next.kind === 'cancel' ? coverCustomers(record) : [];
    const coverMarks: Array<string | undefined> = [];
    // Under the holders of the account's pool's first, where its customers' codes are reserved (AccountPool).
    const first = coverOf.length > 0 && this.coverChecks ? (await via.pool()).holder : via.id;
    for (const each of coverOf) coverMarks.push(await this.coverChecks?.cancelling(via.id, each, first));
    // A try of this call that failed and may still have taken effect (the client's own retries: a timeout, then a 429).
    let triedInDoubt = false;
    let result;
    try {
      lease.check();
      this.#o.laneCalls.record(record.lane ?? 'live');
      result = await makeCall(via.client, record, next, {
        policy,
        earnActivityId: account.earnActivityId,
        lpOrderId,
        ...(codeCustomer ? { customer: codeCustomer } : {}),
        fence: () => lease.check(),
        onTryInDoubt: () => {
          triedInDoubt = true;
        },
        ...(place ? { place } : {}),
      });
    } catch (error) {
      const earlierTryInDoubt = !intentNotedNow || triedInDoubt;
      if (error instanceof BudgetSpentError) {
        // Nothing was sent: the intent is undone, and the order waits for the budget without a slot.
        undoIntent(record, next, earlierTryInDoubt);
        return this.#budgetSpent(record, via, error.until, lease);
      }
      if (error instanceof LeaseLostError) {
        // Nothing was sent; whoever holds the order now decides, from what is saved.
        this.#o.logger.warn(
          { order: record.key, operation: next.kind },
          'the lease on this order was lost before its call; the call was not sent',
        );
        return { kind: 'done' };
      }
      return this.#failed(record, next, error, via, lease, earlierTryInDoubt);
    }
    const now = this.#o.now();
    recordSuccess(record, next, result, now.toISOString());
    // Nothing more to send now (after most calls): the save that lets the order go carries the result, one
    // write where there were two. Another call to make saves the result first, before that call is sent.
    const after = plan(record, policy, now);
    try {
      if (!after.next) {
        record.target = after.target;
        return await this.#letGo(record, undefined, account, now, lease);
      }
      return await this.#save(record, false, lease);
    } finally {
      // After the save, not before: a balance read from the ledger between a drop and the save would count the
      // order without this call, and be kept as fresh. Told even when the save failed: the service took the call.
      this.#tellCustomerCall(record, next, via.id, codeCustomer);
      // The cancel went through: the customer's codes are checked now (the sweeper does it where this fails).
      for (const [at, each] of coverOf.entries())
        await this.coverChecks
          ?.check(via, holderId(first, each), coverMarks[at])
          .catch((error: unknown) =>
            this.#o.logger.warn(
              { order: record.key, kind: (error as Error)?.name },
              "a customer's reward codes could not be checked after a cancel; the sweeper checks them",
            ),
          );
      // The reservation is spent; a crash before this leaves it held (never less), and the sweeper settles it.
      if (next.kind === 'redeem' && next.code)
        await this.rewardCodes
          ?.settled(next.code, 'redeemed', record.key)
          .catch((error: unknown) =>
            this.#o.logger.warn(
              { order: record.key, kind: (error as Error)?.name },
              'a redeemed reward code could not be marked; the sweeper marks it',
            ),
          );
    }
  }

  #tellCustomerCall(
    record: OrderRecord,
    action: Action,
    account: string,
    codeCustomer?: { email: string } | { mobile: string },
  ): void {
    const { email, mobile } = codeCustomer
      ? {
          email: 'email' in codeCustomer ? codeCustomer.email : null,
          mobile: 'mobile' in codeCustomer ? codeCustomer.mobile : null,
        }
      : record.snapshot.customer;
    const referrer = action.kind === 'conversion' ? action.referral.referrer : undefined;
    const call: CustomerCall = {
      account,
      customer: { ...(email ? { email } : {}), ...(mobile ? { mobile } : {}) },
      ...(referrer && (referrer.kind === 'email' || referrer.kind === 'mobile')
        ? { referrer: { [referrer.kind]: referrer.value } }
        : {}),
    };
    tellCustomerCall(this.customerCalls, call, this.#o.logger);
  }

  /** The order's lp_orderid, claimed for it before each call that carries one; when another order holds it, the step after the dead letter. */
  async #lpOrderId(record: OrderRecord, action: Action, account: AccountRuntime, lease: Lease): Promise<string | Step> {
    const lpOrderId =
      record.upstream.lpOrderId ?? lpOrderIdFor(this.#o.orderIdPrefixes, record.platform, record.shop, record.orderId);
    if (!carriesLpOrderId(action.kind)) return lpOrderId;
    // Claimed again each time, not only the first: a round that wrote the order and failed to write its
    // registration leaves the order with an lp_orderid its registry does not hold (a store answers at once when it does).
    // Durable with the intent saved next (#call), or on its own there when there is none.
    const owner = await this.#o.store.claimLpOrderId(lpOrderIdClaim(lpOrderId, account.id), record.key, {
      durable: false,
    });
    if (owner !== record.key) {
      return this.#deadLetter(
        record,
        action,
        collisionReason(lpOrderId, record.key, owner),
        undefined,
        LP_ORDER_ID_OPERATIONS,
        lease,
      );
    }
    record.upstream.lpOrderId = lpOrderId;
    return lpOrderId;
  }

  async #failed(
    record: OrderRecord,
    action: Action,
    error: unknown,
    account: AccountRuntime,
    lease: Lease,
    earlierTryInDoubt: boolean,
  ): Promise<Step> {
    const decision = decideFailure(
      record,
      action,
      error,
      this.#o.now(),
      {
        maxRetryAgeMs: this.#o.maxRetryAgeMs,
        maxUnknownFailures: this.#o.maxUnknownFailures,
        backoff: { minDelayMs: this.#o.retryMinDelayMs, maxDelayMs: this.#o.retryMaxDelayMs, random: this.#o.random },
      },
      earlierTryInDoubt,
    );
    switch (decision.kind) {
      case 'pause':
        account.authPause.pause();
        record.work.waitingFor = pauseOf(account.id);
        record.dueAt = account.authPause.nextProbeAt ?? this.#o.now().toISOString();
        await this.#save(record, true, lease);
        return { kind: 'done' };
      case 'retry':
        this.#o.logger.warn(
          {
            order: record.key,
            operation: action.kind,
            attempts: record.work.attempts,
            retryInMs: decision.delayMs,
            error: decision.message,
          },
          'loyalty call failed; will retry',
        );
        record.dueAt = record.work.retryAt;
        await this.#save(record, true, lease);
        return { kind: 'done' };
      case 'settled':
        this.#o.logger.info(
          { order: record.key, operation: action.kind, answer: decision.message },
          'the service’s refusal settled the call',
        );
        return this.#save(record, false, lease);
      case 'dead-letter': {
        if (!(action.kind === 'redeem' && action.code))
          return this.#deadLetter(record, action, decision.reason, decision.httpStatus, [action.kind], lease);
        const code = action.code;
        const inDoubt = redemptionOf(record.upstream, code) === 'sending';
        const reason = inDoubt
          ? `The redeem of ${code.points} points for reward code ${code.code} may or may not have been applied (${decision.reason}). Check the customer's history at the loyalty service before you retry it.`
          : `The loyalty service refused to take ${code.points} points for reward code ${code.code}: the customer's points were spent elsewhere before the code was used (${decision.reason}). The order kept its discount. Retry once the customer has the points again, or discard this.`;
        const step = await this.#deadLetter(record, action, reason, decision.httpStatus, ['redeem'], lease);
        // Refused, or in doubt: the points stay held until a person decides (a retry, or a discard: discarded).
        if (!inDoubt) await this.rewardCodes?.settled(code, 'refused', record.key).catch(() => undefined);
        return step;
      }
    }
  }

  async #deadLetter(
    record: OrderRecord,
    action: Action,
    reason: string,
    httpStatus: number | undefined,
    holds: ReadonlyArray<Action['kind']>,
    lease: Lease,
  ): Promise<Step> {
    const letter = await this.#o.store.addDeadLetter({
      id: randomUUID(),
      kind: 'call',
      reason,
      platform: record.platform,
      shop: record.shop,
      orderKey: record.key,
      operation: action.kind,
      httpStatus,
    });
    holdCalls(record, holds, letter.id, reason);
    this.#o.logger.error(
      { order: record.key, operation: action.kind, deadLetter: letter.id, reason },
      'loyalty call dead-lettered',
    );
    // The order's other calls go on.
    return this.#save(record, false, lease);
  }

  /**
   * Saves progress under the claim's own token: the store refuses ('lost') a
   * save by a claim another has replaced. On 'refolded' the order is read
   * again, with its new facts, to be planned again.
   */
  async #save(record: OrderRecord, release: boolean, lease: Lease): Promise<Step> {
    const result = await this.#o.store.saveProgress(record, { owner: lease.owner, release, leaseMs: this.#o.leaseMs });
    if (result === 'lost') {
      this.#o.logger.warn({ order: record.key }, 'another instance took this order over; leaving it to it');
      return { kind: 'done' };
    }
    if (release) return { kind: 'done' };
    if (result === 'refolded') {
      const fresh = await this.#o.store.getOrder(record.key);
      return fresh ? { kind: 'continue', record: fresh } : { kind: 'done' };
    }
    return { kind: 'continue', record };
  }

  /**
   * A person discarded a dead letter of the order's redeems: what it held is settled, so that nothing stays held for
   * good behind it. A redeem left in doubt counts as taken from now (the person chose not to send it again; a code's
   * reservation is redeemed); a reward code's refused redeem is given up (its reservation's points, held for a retry
   * until now, are let go), and the order's other redeems go on. The order's own refused redeem stays given up, held:
   * it is the last.
   */
  async discarded(orderKey: string, letter: Pick<DeadLetter, 'id' | 'reason'>): Promise<void> {
    let spent: RedeemCode | undefined;
    let givenUp: RedeemCode | undefined;
    await this.#o.store.updateProgress(orderKey, (record) => {
      spent = undefined;
      givenUp = undefined;
      const { upstream, work } = record;
      if (work.held.redeem !== letter.id) return;
      const doubt = redeemInDoubt(upstream);
      if (doubt) {
        setRedemption(upstream, doubt.code, 'sent');
        spent = doubt.code && withoutState(doubt.code);
      } else {
        const refused = upstream.redeemCodes?.find(
          (each) => each.redemption === 'none' && letter.reason.includes(each.code),
        );
        if (!refused) return;
        givenUp = withoutState(refused);
        upstream.redeemCodes = upstream.redeemCodes?.filter((each) => each !== refused);
      }
      const { redeem: _given, ...others } = work.held;
      record.work = { ...work, held: others };
    });
    if (spent) await this.rewardCodes?.settled(spent, 'redeemed', orderKey);
    if (givenUp) await this.rewardCodes?.settled(givenUp, 'discarded', orderKey);
    this.#loop.wake();
  }

  /** A dead-lettered call, retried by a person: released, and the order looked at now. */
  async retry(orderKey: string, deadLetterId: string, lane: Lane = 'live'): Promise<void> {
    await this.#o.store.updateProgress(orderKey, (record) => {
      record.lane = laneAfter(record, lane);
      // Only the letter that held the redeem lets a person's retry send a redeem in doubt again: a stale letter (one a
      // crash left after its order was told) must not, while a redeem sent since is in doubt with no letter yet.
      const redeemHeld = record.work.held.redeem === deadLetterId;
      const held = Object.entries(record.work.held).filter(([, id]) => id !== deadLetterId);
      record.work = {
        attempts: 0,
        firstFailureAt: null,
        retryAt: null,
        lastError: null,
        held: Object.fromEntries(held),
      };
      if (redeemHeld) forgetRedeemsInDoubt(record.upstream);
    });
    this.#loop.wake();
  }
}

/**
 * Whose codes a cancel may leave uncovered: the order's e-mail and its phone, each its own holder (a storefront names a
 * customer by their phone where its record of them has no e-mail), while the service finds the one customer by either.
 */
const coverCustomers = (record: OrderRecord): ServiceCustomer[] => {
  const { email, mobile } = record.snapshot.customer;
  return [...(email ? [{ email }] : []), ...(mobile ? [{ mobile }] : [])];
};
