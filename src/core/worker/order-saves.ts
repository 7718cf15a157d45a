// How a step of the worker ends: its order saved under the claim's lease (kept, or let go with when it is
// due next), or its calls held by a dead letter. Each returns the Step that says whether the order goes on.
import { randomUUID } from 'node:crypto';
import type { AccountRuntime } from '../accounts.ts';
import type { Lease } from '../leases.ts';
import { approvalDueAt, type Action } from '../lifecycle.ts';
import type { OrderRecord } from '../order-record.ts';
import { holdCalls } from './failures.ts';
import type { OrderSchedule } from './order-schedule.ts';
import { pauseOf, type WorkerSettings } from './worker-options.ts';

export type Step = { kind: 'continue'; record: OrderRecord } | { kind: 'done' };

export class OrderSaves {
  readonly #o: WorkerSettings;
  readonly #schedule: OrderSchedule;

  constructor(o: WorkerSettings, schedule: OrderSchedule) {
    this.#o = o;
    this.#schedule = schedule;
  }

  /**
   * Saves progress under the claim's own token: the store refuses ('lost') a
   * save by a claim another has replaced. On 'refolded' the order is read
   * again, with its new facts, to be planned again.
   */
  async save(record: OrderRecord, release: boolean, lease: Lease): Promise<Step> {
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

  async deadLetter(
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
    return this.save(record, false, lease);
  }

  /** Let go, due when the budget returns: waiting in the limiter would hold a slot another account could use. */
  async budgetSpent(record: OrderRecord, account: AccountRuntime, until: number, lease: Lease): Promise<Step> {
    this.#schedule.budgetSpent(record, account, until);
    return this.save(record, true, lease);
  }

  /** Nothing to send now: the order is saved and let go, due when its next step is. */
  async letGo(
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
    await this.save(record, true, lease);
    return { kind: 'done' };
  }
}
