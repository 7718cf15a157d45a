// The worker moves each order from what the loyalty service holds to where
// the lifecycle says it belongs, one call at a time per order (approve never
// overtakes earn) and many orders at once; the client's shared limiter keeps
// the whole within the rate limit.
//
// Exactly-once in effect, and what it rests on. A call's result is recorded
// after the call, so a crash in between makes the call again on restart:
//   earn        the service "sends or updates" by (activity, order): a repeat updates, never doubles;
//   approve     repeating the current state is a no-op success;
//   cancel      likewise;
//   conversion  the service records one per (campaign, order);
//   redeem      NOT idempotent: its intent is saved before the call, and a
//               redemption found in that state after a crash, or failed in a
//               way that may have taken effect, goes to dead letters for a
//               person to check instead of being sent again.
import { LoyaltyError } from '../loyalty/errors.ts';
import type { LoyaltyResult } from '../loyalty/client.ts';
import type { EarnInput, ConversionInput, RedeemInput, UpdatePointsInput } from '../loyalty/client.ts';
import type { Logger } from '../logger.ts';
import { approvalDueAt, plan, type Action } from './lifecycle.ts';
import type { Ledger } from './ledger.ts';
import { recordCall, type CallRecord, type OrderRecord } from './order-record.ts';
import type { Policy } from './policy.ts';

/** The part of the loyalty client the worker uses. */
export interface LoyaltyOperations {
  earn(input: EarnInput): Promise<LoyaltyResult>;
  updatePoints(input: UpdatePointsInput): Promise<LoyaltyResult>;
  redeem(input: RedeemInput): Promise<LoyaltyResult>;
  addConversion(input: ConversionInput): Promise<LoyaltyResult>;
}

export interface WorkerOptions {
  ledger: Ledger;
  client: LoyaltyOperations;
  policy: Policy;
  earnActivityId: string;
  logger: Logger;
  /** Orders worked on at once. The rate limiter, not this, sets the pace. */
  concurrency?: number;
  /** Retryable failures are retried until the first failure is this old, then dead-lettered. */
  maxRetryAgeMs?: number;
  retryMinDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Orders with nothing left to do, quiet this long, leave the hot files. */
  settleAfterMs?: number;
  now?: () => Date;
  random?: () => number;
}

const HOUR = 60 * 60 * 1000;

export class Worker {
  readonly #o: Required<Omit<WorkerOptions, 'ledger' | 'client' | 'policy' | 'earnActivityId' | 'logger'>> &
    Pick<WorkerOptions, 'ledger' | 'client' | 'policy' | 'earnActivityId' | 'logger'>;
  readonly #ready = new Set<string>();
  readonly #inFlight = new Set<string>();
  /** Orders that changed while a call for them was under way: look again when it ends. */
  readonly #again = new Set<string>();
  /** Orders waiting for a time: a retry or the end of a pending period. */
  readonly #dueAt = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #running = false;
  #idleWaiters: Array<() => void> = [];

  constructor(options: WorkerOptions) {
    this.#o = {
      concurrency: 32,
      maxRetryAgeMs: 72 * HOUR,
      retryMinDelayMs: 5_000,
      retryMaxDelayMs: 15 * 60_000,
      settleAfterMs: 2 * 60_000,
      now: () => new Date(),
      random: Math.random,
      ...options,
    };
  }

  async start(): Promise<void> {
    this.#running = true;
    await this.#recoverInDoubtRedemptions();
    this.#o.ledger.onOrdersChanged((keys) => this.wake(keys));
    this.wake([...this.#o.ledger.activeOrders()].map((order) => order.key));
    this.#sweeper = setInterval(
      () => void this.sweep().catch((error: unknown) => this.#o.logger.error({ err: error }, 'settling orders failed')),
      Math.max(1_000, Math.min(30_000, this.#o.settleAfterMs)),
    );
    this.#sweeper.unref();
  }

  /** Stops taking new work and waits for the calls under way. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    clearInterval(this.#sweeper);
    await this.idle();
  }

  /** Resolves when no call is under way and none is ready to start. Orders waiting for a time do not count. */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0 && (this.#ready.size === 0 || !this.#running)) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  get stats() {
    return { ready: this.#ready.size, inFlight: this.#inFlight.size, waiting: this.#dueAt.size };
  }

  /** Looks at these orders again: their facts changed, or a person retried them. */
  wake(keys: Iterable<string>): void {
    for (const key of keys) {
      if (this.#inFlight.has(key)) this.#again.add(key);
      else {
        this.#dueAt.delete(key);
        this.#ready.add(key);
      }
    }
    this.#pump();
  }

  #pump(): void {
    if (!this.#running) return this.#notifyIdle();
    for (const key of this.#ready) {
      if (this.#inFlight.size >= this.#o.concurrency) break;
      this.#ready.delete(key);
      this.#inFlight.add(key);
      void this.#drive(key)
        .catch((error: unknown) => {
          this.#o.logger.error({ err: error, order: key }, 'worker failed on an order; it will be tried again');
          this.#waitUntil(key, this.#o.now().getTime() + this.#o.retryMinDelayMs);
        })
        .finally(() => {
          this.#inFlight.delete(key);
          if (this.#again.delete(key)) this.#ready.add(key);
          this.#pump();
        });
    }
    this.#notifyIdle();
  }

  #notifyIdle(): void {
    if (this.#inFlight.size > 0 || (this.#ready.size > 0 && this.#running)) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Makes the calls an order needs, one after another, until it is where it belongs or has to wait. */
  async #drive(key: string): Promise<void> {
    while (this.#running) {
      const record = this.#o.ledger.activeOrder(key);
      if (!record) return;
      const now = this.#o.now();
      if (record.work.retryAt !== null && Date.parse(record.work.retryAt) > now.getTime()) {
        return this.#waitUntil(key, Date.parse(record.work.retryAt));
      }
      const { next, target } = plan(record, this.#o.policy, now);
      if (record.target?.state !== target.state || record.target.reason !== ('reason' in target ? target.reason : undefined)) {
        record.target = target;
        await this.#o.ledger.save([record]);
      }
      if (!next) {
        const due = approvalDueAt(record, this.#o.policy);
        if (due) this.#waitUntil(key, due.getTime());
        return;
      }
      const done = await this.#perform(record, next);
      if (!done) return;
    }
  }

  /** Makes one call and records what came of it. Returns whether the order may go on at once. */
  async #perform(record: OrderRecord, action: Action): Promise<boolean> {
    const { ledger, client, earnActivityId } = this.#o;
    const { snapshot, orderId } = record;
    const customer = snapshot.customer;

    // Intent saved before the call, where a crash between the call and its
    // record would otherwise leave the ledger believing nothing was sent.
    const intent = (() => {
      if (action.kind === 'earn' && record.upstream.points === 'none') return () => (record.upstream.points = 'earning');
      if (action.kind === 'conversion' && record.upstream.conversion === 'none') return () => (record.upstream.conversion = 'sending');
      if (action.kind === 'redeem') return () => (record.upstream.redemption = 'sending');
      return undefined;
    })();
    if (intent) {
      intent();
      await ledger.save([record]);
    }

    let result: LoyaltyResult;
    try {
      switch (action.kind) {
        case 'earn':
          result = await client.earn({
            activityId: earnActivityId,
            name: customer.name ?? (customer.email ?? '').split('@')[0] ?? '',
            email: customer.email ?? '',
            mobile: customer.mobile ?? '',
            description: `Order ${snapshot.orderName || orderId}`,
            orderId,
          });
          break;
        case 'approve':
        case 'cancel':
          result = await client.updatePoints({ status: action.kind, orderId });
          break;
        case 'redeem':
          result = await client.redeem({ ...(customer.email ? { email: customer.email } : { mobile: customer.mobile ?? '' }), points: action.points });
          break;
        case 'conversion':
          result = await client.addConversion({
            orderId,
            campaignId: action.referral.campaignId,
            ...(customer.name ? { refereeName: customer.name } : {}),
            ...(customer.email ? { refereeEmail: customer.email } : {}),
          });
          break;
      }
    } catch (error) {
      await this.#failed(record, action, error);
      return false;
    }

    const now = this.#o.now().toISOString();
    switch (action.kind) {
      case 'earn':
        record.upstream.points = 'earned';
        record.upstream.earnedAt = now;
        break;
      case 'approve':
        record.upstream.points = 'approved';
        break;
      case 'cancel':
        record.upstream.points = 'cancelled';
        break;
      case 'redeem':
        record.upstream.redemption = 'sent';
        break;
      case 'conversion':
        record.upstream.conversion = 'sent';
        break;
    }
    record.work = { ...record.work, attempts: 0, firstFailureAt: null, retryAt: null, lastError: null };
    recordCall(record, { operation: action.kind, at: now, attempts: result.attempts, outcome: 'success', message: result.message });
    record.updatedAt = now;
    await ledger.save([record]);
    return true;
  }

  async #failed(record: OrderRecord, action: Action, error: unknown): Promise<void> {
    const { ledger, logger } = this.#o;
    const now = this.#o.now();
    const failure =
      error instanceof LoyaltyError ? error : undefined;
    const message = failure?.summary ?? (error as Error).message ?? String(error);
    const call: CallRecord = {
      operation: action.kind,
      at: now.toISOString(),
      attempts: 1,
      outcome: 'failed',
      httpStatus: failure?.httpStatus,
      message,
    };

    // An intent whose call certainly did not take effect is not in doubt any more.
    if (failure?.certainlyNotApplied) {
      if (action.kind === 'earn' && record.upstream.points === 'earning') record.upstream.points = 'none';
      if (action.kind === 'conversion' && record.upstream.conversion === 'sending') record.upstream.conversion = 'none';
    }

    if (action.kind === 'redeem') {
      if (failure?.certainlyNotApplied && failure.retryable) {
        record.upstream.redemption = 'none';
      } else if (failure && !failure.retryable) {
        record.upstream.redemption = 'none';
      } else {
        // It may have been applied: sending it again could take the points twice.
        recordCall(record, call);
        await this.#deadLetter(record, action, `redeem of ${action.points} points may or may not have been applied (${message}); check the customer's history before retrying`, failure?.httpStatus);
        return;
      }
    }

    const firstFailureAt = record.work.firstFailureAt ?? now.toISOString();
    const tooOld = now.getTime() - Date.parse(firstFailureAt) >= this.#o.maxRetryAgeMs;
    if (failure?.retryable && !tooOld) {
      const attempts = record.work.attempts + 1;
      const delay = this.#backoff(attempts, failure.retryAfterMs);
      record.work = { ...record.work, attempts, firstFailureAt, retryAt: new Date(now.getTime() + delay).toISOString(), lastError: message };
      recordCall(record, { ...call, outcome: 'retry' });
      await ledger.save([record]);
      logger.warn({ order: record.key, operation: action.kind, attempts, retryInMs: delay, error: message }, 'loyalty call failed; will retry');
      this.#waitUntil(record.key, now.getTime() + delay);
      return;
    }
    recordCall(record, call);
    const reason = tooOld ? `gave up after retrying for ${Math.round(this.#o.maxRetryAgeMs / HOUR)} h: ${message}` : message;
    if (failure?.kind === 'invalid_auth') logger.error({ operation: action.kind }, failure.message);
    await this.#deadLetter(record, action, reason, failure?.httpStatus);
  }

  async #deadLetter(record: OrderRecord, action: Action, reason: string, httpStatus: number | undefined): Promise<void> {
    const letter = await this.#o.ledger.addDeadLetter({
      kind: 'call',
      reason,
      platform: record.platform,
      orderKey: record.key,
      operation: action.kind,
      httpStatus,
    });
    // The retry state belonged to this call; the order's other calls start afresh.
    record.work = { attempts: 0, firstFailureAt: null, retryAt: null, lastError: reason, held: { ...record.work.held, [action.kind]: letter.id } };
    await this.#o.ledger.save([record]);
    this.#o.logger.error({ order: record.key, operation: action.kind, deadLetter: letter.id, reason }, 'loyalty call dead-lettered');
  }

  /** Exponential backoff with full jitter, never shorter than the service's Retry-After. */
  #backoff(attempts: number, retryAfterMs: number | undefined): number {
    const ceiling = Math.min(this.#o.retryMaxDelayMs, this.#o.retryMinDelayMs * 2 ** (attempts - 1));
    const jittered = this.#o.retryMinDelayMs / 2 + this.#o.random() * (ceiling - this.#o.retryMinDelayMs / 2);
    return Math.max(Math.round(jittered), retryAfterMs ?? 0);
  }

  /** A dead-lettered call, retried by a person: release it and try again now. */
  async retry(orderKey: string, deadLetterId: string): Promise<void> {
    // An order with a held call is never settled, so it is always among the active ones.
    const record = this.#o.ledger.activeOrder(orderKey);
    if (!record) return;
    const held = Object.entries(record.work.held).filter(([, id]) => id !== deadLetterId);
    record.work = { attempts: 0, firstFailureAt: null, retryAt: null, lastError: null, held: Object.fromEntries(held) };
    if (record.upstream.redemption === 'sending' && record.work.held.redeem === undefined) record.upstream.redemption = 'none';
    await this.#o.ledger.save([record]);
    this.wake([orderKey]);
  }

  #waitUntil(key: string, at: number): void {
    this.#dueAt.set(key, at);
    this.#armTimer();
  }

  #armTimer(): void {
    clearTimeout(this.#timer);
    if (!this.#running || this.#dueAt.size === 0) return;
    let earliest = Infinity;
    for (const at of this.#dueAt.values()) earliest = Math.min(earliest, at);
    const delay = Math.max(0, Math.min(earliest - this.#o.now().getTime(), 2 ** 31 - 1));
    this.#timer = setTimeout(() => {
      const now = this.#o.now().getTime();
      const due = [...this.#dueAt].filter(([, at]) => at <= now).map(([key]) => key);
      for (const key of due) this.#dueAt.delete(key);
      this.wake(due);
      this.#armTimer();
    }, delay);
    this.#timer.unref();
  }

  /** A redemption left 'sending' by a crash may have happened: a person decides. */
  async #recoverInDoubtRedemptions(): Promise<void> {
    for (const record of [...this.#o.ledger.activeOrders()]) {
      if (record.upstream.redemption !== 'sending' || record.work.held.redeem !== undefined) continue;
      await this.#deadLetter(record, { kind: 'redeem', points: 0 }, "a redeem was being sent when the bridge stopped; it may or may not have been applied. Check the customer's history, then retry or discard", undefined);
    }
  }

  #sweeping: Promise<number> | undefined;

  /** Moves quiet orders with nothing left to do out of the hot files. One sweep at a time. */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweep(): Promise<number> {
    const now = this.#o.now();
    const quiet: OrderRecord[] = [];
    for (const record of this.#o.ledger.activeOrders()) {
      if (this.#inFlight.has(record.key) || this.#ready.has(record.key) || this.#dueAt.has(record.key)) continue;
      if (Object.keys(record.work.held).length > 0 || record.work.retryAt !== null) continue;
      const { next } = plan(record, this.#o.policy, now);
      if (next || approvalDueAt(record, this.#o.policy)) continue;
      // Nothing left to do for now, finished or waiting for a fact that may never come
      // (paid, never fulfilled): out of the hot files; an event for it brings it back.
      if (now.getTime() - Date.parse(record.updatedAt) >= this.#o.settleAfterMs) quiet.push(record);
    }
    await this.#o.ledger.settle(quiet);
    return quiet.length;
  }
}
