// Points a customer redeemed on an order then cancelled or refunded in full. The service has no call that
// gives redeemed points back, and nothing says whether the merchant wants to: such orders are listed, and a
// person gives the points back with one click, a manual earn under the activity worth exactly those points
// (REDEEM_RETURN_ACTIVITIES, else the one LOYALTY_ACTIVITY_POINTS declares). A manual earn is not idempotent, so the order is marked before the call: a
// second click, or two operators at once, send nothing.
import { laneAfter } from './lanes.ts';
import { activityGiving } from './activity-points.ts';
import { randomUUID } from 'node:crypto';
import type { Adjustment, DeadLetter, OrderWorkRole, OperatorQueries } from './store/ledger-store.ts';
import type { Adjustments } from './adjustments.ts';
import { plan, type AttentionReason } from './lifecycle.ts';
import type { OrderRecord } from './order-record.ts';
import { redemptionSummary } from './redeems.ts';
import { DEFAULT_ACCOUNT, type AccountRuntime, type Accounts } from './accounts.ts';

export const REDEEMED_ON_CANCELLED: AttentionReason = 'points_redeemed_on_cancelled_order';

export type { ReturnActivities } from './accounts.ts';

export interface RedeemedOrder {
  key: string;
  platform: string;
  shop: string;
  orderId: string;
  orderName: string;
  points: number;
  /** The activity the one click would earn under; null when none gives exactly these points. */
  activityId: string | null;
  /** Why the one click cannot be offered, when it cannot. */
  blocked: string | null;
}

export type GiveBackResult =
  | { kind: 'given'; adjustment: Adjustment }
  | { kind: 'refused'; status: 404 | 409 | 422; reason: string }
  /** The service refused the earn: nothing was given, and the order is listed again. */
  | { kind: 'failed'; adjustment: Adjustment; error: Error | undefined }
  /** It may or may not have been applied: a dead letter says so; the order stays marked. */
  | { kind: 'unknown'; adjustment: Adjustment; deadLetter: DeadLetter | undefined };

export interface RedeemedPointsOptions {
  store: OrderWorkRole & OperatorQueries;
  adjustments: Adjustments;
  /** Each order's account gives its rules and its return activities (REDEEM_RETURN_ACTIVITIES). */
  accounts: Accounts;
  now?: () => Date;
}

export class RedeemedPoints {
  readonly #o: Required<RedeemedPointsOptions>;

  constructor(options: RedeemedPointsOptions) {
    this.#o = { now: () => new Date(), ...options };
  }

  /** The orders listed for their redeemed points, newest first. */
  async list(limit = 200): Promise<RedeemedOrder[]> {
    const { orders } = await this.#o.store.listOrders({ reason: REDEEMED_ON_CANCELLED, page: 1, limit });
    const listed: RedeemedOrder[] = [];
    for (const summary of orders) {
      const record = await this.#o.store.getOrder(summary.key);
      const account = record && (await this.#accountOf(record));
      if (record && account && this.#listed(record, account)) listed.push(this.#describe(record, account));
    }
    return listed;
  }

  /** The account the order's redeem went to (every order with redeemed points made that call). */
  #accountOf(record: OrderRecord): Promise<AccountRuntime | undefined> {
    return this.#o.accounts.runtime(record.upstream.account ?? DEFAULT_ACCOUNT);
  }

  /** Gives the order's redeemed points back by a manual earn, once. */
  async giveBack(
    key: string,
    request: { by: string; reason?: string | undefined; activityId?: string | undefined },
  ): Promise<GiveBackResult> {
    const record = await this.#o.store.getOrder(key);
    if (!record) return { kind: 'refused', status: 404, reason: `no order ${key}` };
    const account = await this.#accountOf(record);
    if (!account)
      return { kind: 'refused', status: 409, reason: `the loyalty account of order ${key} no longer exists` };
    const described = this.#describe(record, account);
    const activityId = request.activityId ?? described.activityId;
    if (!this.#listed(record, account))
      return { kind: 'refused', status: 409, reason: `order ${key} has no redeemed points waiting to be given back` };
    if (described.blocked && !(request.activityId && described.blocked.startsWith('no activity')))
      return { kind: 'refused', status: 422, reason: described.blocked };
    if (!activityId)
      return { kind: 'refused', status: 422, reason: described.blocked ?? 'name the activity to earn under' };

    const reason =
      request.reason?.trim() ||
      `points redeemed on cancelled order ${described.orderName || record.orderId} given back`;
    const adjustmentId = randomUUID();
    let marked = false;
    await this.#o.store.updateProgress(key, (current) => {
      // Checked again inside the store's step: of two clicks at once, one marks, the other finds the mark.
      if (!this.#listed(current, account)) return;
      current.upstream.redemptionReturn = {
        state: 'returning',
        points: described.points,
        activityId,
        by: request.by,
        reason,
        at: this.#o.now().toISOString(),
        adjustmentId,
      };
      // A person's action on one order: live.
      current.lane = laneAfter(current, 'live');
      current.target = plan(current, account.policy, this.#o.now()).target;
      marked = true;
    });
    if (!marked)
      return {
        kind: 'refused',
        status: 409,
        reason: `the redeemed points of order ${key} are already being given back`,
      };

    const { customer } = record.snapshot;
    const result = await this.#o.adjustments.earn(
      {
        activityId,
        name: customer.name ?? customer.email?.split('@')[0] ?? '',
        email: customer.email ?? '',
        mobile: customer.mobile ?? '',
        description: `${described.points} points redeemed on cancelled order ${described.orderName || record.orderId}, given back`,
        reason,
        account: account.id,
      },
      request.by,
    );
    const outcome = result.adjustment.outcome;
    if (outcome === 'unknown') return { kind: 'unknown', adjustment: result.adjustment, deadLetter: result.deadLetter };
    await this.#o.store.updateProgress(key, (current) => {
      const mark = current.upstream.redemptionReturn;
      if (mark?.adjustmentId !== adjustmentId) return;
      // Refused: nothing was given, so the order is listed again for another try.
      current.upstream.redemptionReturn = outcome === 'success' ? { ...mark, state: 'returned' } : null;
      current.target = plan(current, account.policy, this.#o.now()).target;
    });
    return outcome === 'success'
      ? { kind: 'given', adjustment: result.adjustment }
      : { kind: 'failed', adjustment: result.adjustment, error: result.error };
  }

  #listed(record: OrderRecord, account: AccountRuntime): boolean {
    return plan(record, account.policy, this.#o.now()).target.reason === REDEEMED_ON_CANCELLED;
  }

  #describe(record: OrderRecord, account: AccountRuntime): RedeemedOrder {
    const points = redemptionSummary(record.upstream).redeemedPoints ?? 0;
    const activityId =
      account.redeemReturnActivities[String(points)] ?? activityGiving(account.activityPoints, points) ?? null;
    const { customer } = record.snapshot;
    // A reward code's points were the code's customer's, on the account that made it: not the order's to give back.
    const codes = (record.upstream.redeemCodes ?? []).filter((each) => each.redemption === 'sent');
    const blocked =
      codes.length > 0
        ? `the points were spent with reward code ${codes.map((each) => each.code).join(' and ')}, for the customer it was made for: give them back to that customer with a manual earn (Give points by hand)`
        : points <= 0
          ? 'the ledger does not know how many points were redeemed (redeemed before this version kept it); give them back with a manual earn'
          : !customer.email || !customer.mobile
            ? "the loyalty service's earn needs the customer's e-mail and mobile, and the order lacks one"
            : activityId === null
              ? `no activity gives back ${points} points: set one up in the service's panel and declare it with the points it gives (LOYALTY_ACTIVITY_POINTS, in the account's settings), or name an activity`
              : null;
    return {
      key: record.key,
      platform: record.platform,
      shop: record.shop,
      orderId: record.orderId,
      orderName: record.snapshot.orderName,
      points,
      activityId,
      blocked,
    };
  }
}
