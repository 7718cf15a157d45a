// One step's call to the loyalty service: its lp_orderid claimed and intent saved before it leaves, then what
// its success or failure does to the order, the customer's codes and those listening for customers' calls.
import { holderId } from '../storefront/reservations.ts';
import type { ServiceCustomer } from '../storefront/customer-points.ts';
import { tellCustomerCall, type CustomerCall } from '../customer-calls.ts';
import type { AccountRuntime } from '../accounts.ts';
import { LeaseLostError, type Lease } from '../leases.ts';
import { plan, type Action } from '../lifecycle.ts';
import type { OrderRecord, RedeemCode } from '../order-record.ts';
import { redemptionOf, setRedemption } from '../redeems.ts';
import type { Place } from '../../loyalty/places.ts';
import { BudgetSpentError } from '../../loyalty/rate-limiter.ts';
import { CARRIES_LP_ORDER_ID, carriesLpOrderId, makeCall, noteIntent, recordSuccess } from './calls.ts';
import { decideFailure, undoIntent } from './failures.ts';
import { collisionReason, lpOrderIdClaim, lpOrderIdFor } from './lp-order-ids.ts';
import type { OrderSaves, Step } from './order-saves.ts';
import { pauseOf, type WorkerHooks, type WorkerSettings } from './worker-options.ts';

type CodeCustomer = { email: string } | { mobile: string };

/** The calls a collision of the order's lp_orderid holds: every one that carries it. */
const LP_ORDER_ID_CALLS = (Object.keys(CARRIES_LP_ORDER_ID) as Action['kind'][]).filter(carriesLpOrderId);

/** A call about to leave, with what the steps before it found. */
interface Sending {
  record: OrderRecord;
  next: Action;
  account: AccountRuntime;
  /** The account the call goes to (a reward code's redeem goes to the account that issued the code). */
  via: AccountRuntime;
  lease: Lease;
  place: Place | undefined;
  codeCustomer: CodeCustomer | undefined;
  lpOrderId: string;
  /** Whether this step noted the call's intent, rather than a try before it. */
  intentNotedNow: boolean;
}

export class OrderCall {
  readonly #o: WorkerSettings;
  readonly #hooks: WorkerHooks;
  readonly #saves: OrderSaves;

  constructor(o: WorkerSettings, hooks: WorkerHooks, saves: OrderSaves) {
    this.#o = o;
    this.#hooks = hooks;
    this.#saves = saves;
  }

  /** The order's lp_orderid, its intent noted, then its call (on `via`, the account the call goes to). */
  async call(
    record: OrderRecord,
    next: Action,
    account: AccountRuntime,
    lease: Lease,
    place: Place | undefined,
    via: AccountRuntime = account,
  ): Promise<Step> {
    const { policy } = account;
    // A reward code's redeem names the code's customer, read from its holder now (no order copies a contact).
    let codeCustomer: CodeCustomer | undefined;
    if (next.kind === 'redeem' && next.code) {
      const ready = await this.#hooks.rewardCodes?.redeemFor(next.code, record.key);
      if (ready?.kind === 'send') codeCustomer = ready.customer;
      else return this.#notSent(record, next, next.code, ready?.kind, lease);
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
      const saved = await this.#saves.save(record, false, lease);
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
    return this.#send({ record, next, account, via, lease, place, codeCustomer, lpOrderId, intentNotedNow });
  }

  /** A reward code's redeem whose code's holder gave no customer to send it for: nothing is sent. */
  #notSent(
    record: OrderRecord,
    next: Action,
    code: RedeemCode,
    ready: 'sent' | 'not-held' | 'gone' | undefined,
    lease: Lease,
  ): Step | Promise<Step> {
    if (ready === 'sent' || ready === 'not-held') {
      // Its reservation is not the order's to spend now (let go by the sweeper, or spent already): nothing is sent
      // for it. Spent: the order says so too. Let go: the order takes the code anew on its next step, if it can.
      const reservation = code.reservation;
      if (ready === 'sent') setRedemption(record.upstream, code, 'sent');
      else
        record.upstream.redeemCodes = record.upstream.redeemCodes?.filter((each) => each.reservation !== reservation);
      return { kind: 'continue', record };
    }
    return this.#saves.deadLetter(
      record,
      next,
      `The customer of reward code ${code.code} was erased, so its points cannot be redeemed. Nothing was taken from anyone; discard this.`,
      undefined,
      ['redeem'],
      lease,
    );
  }

  /** The call itself, then its result saved, or its failure decided. */
  async #send(sending: Sending): Promise<Step> {
    const { record, next, account, via, lease, place, codeCustomer } = sending;
    const { policy } = account;
    // Before the cancel leaves: the customer's codes are marked to be checked against what it leaves them.
    const coverOf = next.kind === 'cancel' ? coverCustomers(record) : [];
    const coverMarks: Array<string | undefined> = [];
    // Under the holders of the account's pool's first, where its customers' codes are reserved (AccountPool).
    const first = coverOf.length > 0 && this.#hooks.coverChecks ? (await via.pool()).holder : via.id;
    for (const each of coverOf) coverMarks.push(await this.#hooks.coverChecks?.cancelling(via.id, each, first));
    // A try of this call that failed and may still have taken effect (the client's own retries: a timeout, then a 429).
    let triedInDoubt = false;
    let result;
    try {
      lease.check();
      this.#o.laneCalls.record(record.lane ?? 'live');
      result = await makeCall(via.client, record, next, {
        policy,
        earnActivityId: account.earnActivityId,
        lpOrderId: sending.lpOrderId,
        ...(codeCustomer ? { customer: codeCustomer } : {}),
        fence: () => lease.check(),
        onTryInDoubt: () => {
          triedInDoubt = true;
        },
        ...(place ? { place } : {}),
      });
    } catch (error) {
      const earlierTryInDoubt = !sending.intentNotedNow || triedInDoubt;
      if (error instanceof BudgetSpentError) {
        // Nothing was sent: the intent is undone, and the order waits for the budget without a slot.
        undoIntent(record, next, earlierTryInDoubt);
        return this.#saves.budgetSpent(record, via, error.until, lease);
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
        return await this.#saves.letGo(record, undefined, account, now, lease);
      }
      return await this.#saves.save(record, false, lease);
    } finally {
      // After the save, not before: a balance read from the ledger between a drop and the save would count the
      // order without this call, and be kept as fresh. Told even when the save failed: the service took the call.
      this.#tellCustomerCall(record, next, via.id, codeCustomer);
      await this.#afterSent(record, next, via, coverOf, coverMarks, first);
    }
  }

  /** What a call the service took leaves to settle: the customer's codes after a cancel, a redeemed code. */
  async #afterSent(
    record: OrderRecord,
    next: Action,
    via: AccountRuntime,
    coverOf: ServiceCustomer[],
    coverMarks: Array<string | undefined>,
    first: string,
  ): Promise<void> {
    // The cancel went through: the customer's codes are checked now (the sweeper does it where this fails).
    for (const [at, each] of coverOf.entries())
      await this.#hooks.coverChecks
        ?.check(via, holderId(first, each), coverMarks[at])
        .catch((error: unknown) =>
          this.#o.logger.warn(
            { order: record.key, kind: (error as Error)?.name },
            "a customer's reward codes could not be checked after a cancel; the sweeper checks them",
          ),
        );
    // The reservation is spent; a crash before this leaves it held (never less), and the sweeper settles it.
    if (next.kind === 'redeem' && next.code)
      await this.#hooks.rewardCodes
        ?.settled(next.code, 'redeemed', record.key)
        .catch((error: unknown) =>
          this.#o.logger.warn(
            { order: record.key, kind: (error as Error)?.name },
            'a redeemed reward code could not be marked; the sweeper marks it',
          ),
        );
  }

  #tellCustomerCall(record: OrderRecord, action: Action, account: string, codeCustomer?: CodeCustomer): void {
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
    tellCustomerCall(this.#hooks.customerCalls, call, this.#o.logger);
  }

  /** The order's lp_orderid, claimed for it before each call that carries one; when another order holds it, the step after the dead letter. */
  async #lpOrderId(record: OrderRecord, action: Action, account: AccountRuntime, lease: Lease): Promise<string | Step> {
    const lpOrderId =
      record.upstream.lpOrderId ?? lpOrderIdFor(this.#o.orderIdPrefixes, record.platform, record.shop, record.orderId);
    if (!carriesLpOrderId(action.kind)) return lpOrderId;
    // Claimed again each time, not only the first: a round that wrote the order and failed to write its
    // registration leaves the order with an lp_orderid its registry does not hold (a store answers at once when it does).
    // Durable with the intent saved next (call), or on its own there when there is none.
    const owner = await this.#o.store.claimLpOrderId(lpOrderIdClaim(lpOrderId, account.id), record.key, {
      durable: false,
    });
    if (owner !== record.key) {
      return this.#saves.deadLetter(
        record,
        action,
        collisionReason(lpOrderId, record.key, owner),
        undefined,
        LP_ORDER_ID_CALLS,
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
        await this.#saves.save(record, true, lease);
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
        await this.#saves.save(record, true, lease);
        return { kind: 'done' };
      case 'settled':
        this.#o.logger.info(
          { order: record.key, operation: action.kind, answer: decision.message },
          'the service’s refusal settled the call',
        );
        return this.#saves.save(record, false, lease);
      case 'dead-letter': {
        if (!(action.kind === 'redeem' && action.code))
          return this.#saves.deadLetter(record, action, decision.reason, decision.httpStatus, [action.kind], lease);
        const code = action.code;
        const inDoubt = redemptionOf(record.upstream, code) === 'sending';
        const reason = inDoubt
          ? `The redeem of ${code.points} points for reward code ${code.code} may or may not have been applied (${decision.reason}). Check the customer's history at the loyalty service before you retry it.`
          : `The loyalty service refused to take ${code.points} points for reward code ${code.code}: the customer's points were spent elsewhere before the code was used (${decision.reason}). The order kept its discount. Retry once the customer has the points again, or discard this.`;
        const step = await this.#saves.deadLetter(record, action, reason, decision.httpStatus, ['redeem'], lease);
        // Refused, or in doubt: the points stay held until a person decides (a retry, or a discard: discarded).
        if (!inDoubt) await this.#hooks.rewardCodes?.settled(code, 'refused', record.key).catch(() => undefined);
        return step;
      }
    }
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
