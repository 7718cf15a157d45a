// The worker moves each order from what the loyalty service holds to where the lifecycle says it belongs:
// one call at a time per order (leased to one worker while it calls, so approve never overtakes earn) and
// many orders at once. Facts folded in during a call are noticed when its result is saved, and the lease is
// checked right before each call leaves. An order whose account's budget is spent is let go, due again when
// the budget returns, rather than hold a slot waiting in the limiter.
import type { CoverChecks } from '../storefront/cover-checks.ts';
import type { RewardCodes } from '../storefront/reward-codes.ts';
import type { CustomerCall, CustomerCallListener } from '../customer-calls.ts';
import { laneAfter, LANES, type Lane } from '../lanes.ts';
import { AccountBudgets } from './account-budgets.ts';
import type { Lease } from '../leases.ts';
import type { OrderRecord, RedeemCode } from '../order-record.ts';
import { forgetRedeemsInDoubt, redeemInDoubt, setRedemption, withoutState } from '../redeems.ts';
import type { DeadLetter } from '../store/ledger-store.ts';
import { WorkLoop } from '../work-loop.ts';
import type { LoyaltyOperations } from './calls.ts';
import { OrderCall } from './order-call.ts';
import { OrderSaves } from './order-saves.ts';
import { OrderSchedule } from './order-schedule.ts';
import { OrderSteps } from './order-steps.ts';
import { withDefaults, type WorkerOptions, type WorkerSettings } from './worker-options.ts';

export type { LoyaltyOperations };

/** A call the service took for a customer (and, for a conversion, the referrer it named), on an account. */
export type { CustomerCall };

export { pauseOf } from './worker-options.ts';
export type { WorkerOptions };

export class Worker {
  readonly #o: WorkerSettings;
  readonly #loop: WorkLoop<OrderRecord>;
  #running = false;
  /** Orders under way per lane: the backfill reserve is what backfill lacks of its share. */
  readonly #inFlight: Record<Lane, number> = { live: 0, backfill: 0 };
  /** Accounts whose budget was found spent, and live orders waiting for a place: claims pass over their shops. */
  readonly #budgets: AccountBudgets;
  /** Which orders are claimed and when, by each shop's and account's budget (order-schedule.ts). */
  readonly #schedule: OrderSchedule;
  readonly #steps: OrderSteps;

  /** The bridge's reward codes: an order that pays with one redeems its reservation (core/storefront/reward-codes.ts). */
  rewardCodes: Pick<RewardCodes, 'claimForOrder' | 'redeemFor' | 'settled'> | undefined;
  /** A cancelled earning's customer's codes against their balance (core/storefront/cover-checks.ts). */
  coverChecks: Pick<CoverChecks, 'cancelling' | 'check'> | undefined;

  constructor(options: WorkerOptions) {
    this.#o = withDefaults(options);
    this.#budgets = new AccountBudgets({
      now: () => this.#o.now().getTime(),
      minShare: this.#o.backfillMinShare,
    });
    this.#schedule = new OrderSchedule(this.#o, this.#budgets);
    const saves = new OrderSaves(this.#o, this.#schedule);
    // The worker itself is the parts' hooks: they read its rewardCodes and coverChecks, set after it is made.
    this.#steps = new OrderSteps(this.#o, this, {
      budgets: this.#budgets,
      schedule: this.#schedule,
      saves,
      call: new OrderCall(this.#o, this, saves),
      running: () => this.#running,
      wake: () => this.#loop.wake(),
    });
    this.#loop = new WorkLoop({
      name: 'worker',
      concurrency: this.#o.concurrency,
      // An order whose account's credentials are refused is let go until its account's next probe (OrderSteps.step).
      claim: (limit, owner) => this.#schedule.claim(limit, owner, this.#inFlight),
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
      nextAt: () => this.#schedule.nextAt(),
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
    return this.#schedule.spentAccounts;
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
    this.#budgets.turnStarted(claimed.key, lane, this.#schedule.budgetOfOrder(claimed));
    try {
      let step = await this.#steps.recoverInDoubt(claimed, lease);
      while (step.kind === 'continue') step = await this.#steps.step(step.record, lease);
    } finally {
      this.#inFlight[lane]--;
      this.#budgets.turnEnded(claimed.key);
    }
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
