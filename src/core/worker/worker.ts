// The worker moves each order from what the loyalty service holds to where
// the lifecycle says it belongs, one call at a time per order (approve never
// overtakes earn: an order is leased to one worker, on one instance, while it
// calls) and many orders at once; the client's limiter keeps the whole within
// the service's rate limit. New facts folded in while a call is under way are
// noticed when its result is saved, and the order is planned again before
// its next call.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.ts';
import { approvalDueAt, plan, type Action } from '../lifecycle.ts';
import type { OrderRecord } from '../order-record.ts';
import type { Policy } from '../policy.ts';
import type { LedgerStore } from '../store/ledger-store.ts';
import { WorkLoop } from '../work-loop.ts';
import type { AuthPause } from './auth-pause.ts';
import { makeCall, noteIntent, recordSuccess, type LoyaltyOperations } from './calls.ts';
import { decideFailure, holdCalls } from './failures.ts';
import { collisionReason, LP_ORDER_ID_OPERATIONS, lpOrderIdFor, type OrderIdPrefixes } from './lp-order-ids.ts';

export type { LoyaltyOperations };

export interface WorkerOptions {
  store: LedgerStore;
  client: LoyaltyOperations;
  policy: Policy;
  earnActivityId: string;
  logger: Logger;
  /** Who leases orders, when several bridges share a store. */
  owner?: string;
  /** Orders worked on at once. The rate limiter, not this, sets the pace. */
  concurrency?: number;
  /** Retryable failures are retried until the first failure is this old, then dead-lettered. */
  maxRetryAgeMs?: number;
  retryMinDelayMs?: number;
  retryMaxDelayMs?: number;
  orderIdPrefixes?: OrderIdPrefixes;
  authPause?: AuthPause;
  /** Poll a shared store this often for orders other instances left. */
  pollMs?: number | undefined;
  /** Longer than any one call with its retries: another instance takes an order over only after this. */
  leaseMs?: number;
  now?: () => Date;
  random?: () => number;
}

const HOUR = 60 * 60 * 1000;

type Step = { kind: 'continue'; record: OrderRecord } | { kind: 'done' };

export class Worker {
  readonly #o: Required<Omit<WorkerOptions, 'authPause' | 'pollMs'>> & Pick<WorkerOptions, 'authPause' | 'pollMs'>;
  readonly #loop: WorkLoop<OrderRecord>;
  #running = false;

  constructor(options: WorkerOptions) {
    this.#o = {
      owner: randomUUID(),
      concurrency: 32,
      leaseMs: 5 * 60_000,
      maxRetryAgeMs: 72 * HOUR,
      retryMinDelayMs: 5_000,
      retryMaxDelayMs: 15 * 60_000,
      orderIdPrefixes: {},
      now: () => new Date(),
      random: Math.random,
      ...options,
    };
    this.#loop = new WorkLoop({
      name: 'worker',
      concurrency: this.#o.concurrency,
      // While the service refuses our credentials, nothing is claimed: every call would fail the same way.
      claim: (limit) => (this.#o.authPause?.paused ? Promise.resolve([]) : this.#o.store.claimDue(this.#o.owner, limit, this.#o.leaseMs)),
      handle: (record) => this.#drive(record),
      nextAt: () => this.#o.store.nextDueAt(),
      pollMs: this.#o.pollMs,
      logger: this.#o.logger,
    });
  }

  get stats() {
    return { inFlight: this.#loop.inFlight, paused: this.#o.authPause?.paused ?? false };
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

  async #drive(claimed: OrderRecord): Promise<void> {
    let step = await this.#recoverInDoubt(claimed);
    while (step.kind === 'continue') step = await this.#step(step.record);
  }

  /** A redeem left 'sending' by a process that died mid-call may have happened: a person decides. */
  async #recoverInDoubt(record: OrderRecord): Promise<Step> {
    if (record.upstream.redemption !== 'sending' || record.work.held.redeem !== undefined) return { kind: 'continue', record };
    const reason = "a redeem was being sent when the bridge stopped; it may or may not have been applied. Check the customer's history, then retry or discard";
    return this.#deadLetter(record, { kind: 'redeem', points: 0 }, reason, undefined, ['redeem']);
  }

  /** Plans the order and makes at most one call. */
  async #step(record: OrderRecord): Promise<Step> {
    const now = this.#o.now();
    const { next, target } = plan(record, this.#o.policy, now);
    record.target = target;
    if (!next || !this.#running || this.#o.authPause?.paused) {
      const retryAt = record.work.retryAt !== null && Date.parse(record.work.retryAt) > now.getTime() ? record.work.retryAt : null;
      record.dueAt = next ? (retryAt ?? now.toISOString()) : (approvalDueAt(record, this.#o.policy)?.toISOString() ?? null);
      await this.#save(record, true);
      return { kind: 'done' };
    }
    if (record.work.retryAt !== null && Date.parse(record.work.retryAt) > now.getTime()) {
      record.dueAt = record.work.retryAt;
      await this.#save(record, true);
      return { kind: 'done' };
    }

    const lpOrderId = await this.#lpOrderId(record, next);
    if (lpOrderId === undefined) return { kind: 'done' };
    if (noteIntent(record, next)) {
      const saved = await this.#save(record, false);
      if (saved.kind === 'done') return saved;
      // New facts arrived since the plan: plan again before calling.
      if (saved.record !== record) return saved;
    }

    let result;
    try {
      result = await makeCall(this.#o.client, record, next, this.#o.earnActivityId, lpOrderId);
    } catch (error) {
      return this.#failed(record, next, error);
    }
    recordSuccess(record, next, result, this.#o.now().toISOString());
    return this.#save(record, false);
  }

  /** The order's lp_orderid, registered to it before its first call that carries one; undefined when another order holds it. */
  async #lpOrderId(record: OrderRecord, action: Action): Promise<string | undefined> {
    if (record.upstream.lpOrderId) return record.upstream.lpOrderId;
    const lpOrderId = lpOrderIdFor(this.#o.orderIdPrefixes, record.platform, record.shop, record.orderId);
    if (!(LP_ORDER_ID_OPERATIONS as readonly string[]).includes(action.kind)) return lpOrderId;
    const owner = await this.#o.store.claimLpOrderId(lpOrderId, record.key);
    if (owner !== record.key) {
      await this.#deadLetter(record, action, collisionReason(lpOrderId, record.key, owner), undefined, LP_ORDER_ID_OPERATIONS);
      return undefined;
    }
    record.upstream.lpOrderId = lpOrderId;
    return lpOrderId;
  }

  async #failed(record: OrderRecord, action: Action, error: unknown): Promise<Step> {
    const decision = decideFailure(record, action, error, this.#o.now(), {
      maxRetryAgeMs: this.#o.maxRetryAgeMs,
      backoff: { minDelayMs: this.#o.retryMinDelayMs, maxDelayMs: this.#o.retryMaxDelayMs, random: this.#o.random },
    });
    switch (decision.kind) {
      case 'pause':
        this.#o.authPause?.pause();
        record.dueAt = this.#o.now().toISOString();
        await this.#save(record, true);
        return { kind: 'done' };
      case 'retry':
        this.#o.logger.warn({ order: record.key, operation: action.kind, attempts: record.work.attempts, retryInMs: decision.delayMs, error: decision.message }, 'loyalty call failed; will retry');
        record.dueAt = record.work.retryAt;
        await this.#save(record, true);
        return { kind: 'done' };
      case 'dead-letter':
        return this.#deadLetter(record, action, decision.reason, decision.httpStatus, [action.kind]);
    }
  }

  async #deadLetter(record: OrderRecord, action: Action, reason: string, httpStatus: number | undefined, holds: ReadonlyArray<Action['kind']>): Promise<Step> {
    const letter = await this.#o.store.addDeadLetter({ id: randomUUID(), kind: 'call', reason, platform: record.platform, shop: record.shop, orderKey: record.key, operation: action.kind, httpStatus });
    holdCalls(record, holds, letter.id, reason);
    this.#o.logger.error({ order: record.key, operation: action.kind, deadLetter: letter.id, reason }, 'loyalty call dead-lettered');
    // The order's other calls go on.
    return this.#save(record, false);
  }

  /** Saves progress; on 'refolded' the order is read again, with its new facts, to be planned again. */
  async #save(record: OrderRecord, release: boolean): Promise<Step> {
    const result = await this.#o.store.saveProgress(record, { owner: this.#o.owner, release, leaseMs: this.#o.leaseMs });
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

  /** A dead-lettered call, retried by a person: released, and the order looked at now. */
  async retry(orderKey: string, deadLetterId: string): Promise<void> {
    await this.#o.store.updateProgress(orderKey, (record) => {
      const held = Object.entries(record.work.held).filter(([, id]) => id !== deadLetterId);
      record.work = { attempts: 0, firstFailureAt: null, retryAt: null, lastError: null, held: Object.fromEntries(held) };
      if (record.upstream.redemption === 'sending' && record.work.held.redeem === undefined) record.upstream.redemption = 'none';
    });
    this.#loop.wake();
  }
}
