// One loyalty call for one order, and what a success changes in the record.
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
import type { ConversionInput, EarnInput, LoyaltyResult, RedeemInput, UpdatePointsInput } from '../../loyalty/client.ts';
import type { Action } from '../lifecycle.ts';
import { recordCall, type OrderRecord } from '../order-record.ts';

/** The part of the loyalty client the worker uses. */
export interface LoyaltyOperations {
  earn(input: EarnInput): Promise<LoyaltyResult>;
  updatePoints(input: UpdatePointsInput): Promise<LoyaltyResult>;
  redeem(input: RedeemInput): Promise<LoyaltyResult>;
  addConversion(input: ConversionInput): Promise<LoyaltyResult>;
}

/**
 * Notes the intent before a call whose crash would otherwise leave the ledger
 * believing nothing was sent. Returns whether there was one to save.
 */
export function noteIntent(record: OrderRecord, action: Action): boolean {
  if (action.kind === 'earn' && record.upstream.points === 'none') record.upstream.points = 'earning';
  else if (action.kind === 'conversion' && record.upstream.conversion === 'none') record.upstream.conversion = 'sending';
  else if (action.kind === 'redeem') record.upstream.redemption = 'sending';
  else return false;
  return true;
}

export function makeCall(client: LoyaltyOperations, record: OrderRecord, action: Action, earnActivityId: string, lpOrderId: string): Promise<LoyaltyResult> {
  const { snapshot, orderId } = record;
  const customer = snapshot.customer;
  switch (action.kind) {
    case 'earn':
      return client.earn({
        activityId: earnActivityId,
        name: customer.name ?? (customer.email ?? '').split('@')[0] ?? '',
        email: customer.email ?? '',
        mobile: customer.mobile ?? '',
        description: `Order ${snapshot.orderName || orderId}`,
        orderId: lpOrderId,
      });
    case 'approve':
    case 'cancel':
      return client.updatePoints({ status: action.kind, orderId: lpOrderId });
    case 'redeem':
      return client.redeem({ ...(customer.email ? { email: customer.email } : { mobile: customer.mobile ?? '' }), points: action.points });
    case 'conversion':
      return client.addConversion({
        orderId: lpOrderId,
        campaignId: action.referral.campaignId,
        ...(customer.name ? { refereeName: customer.name } : {}),
        ...(customer.email ? { refereeEmail: customer.email } : {}),
      });
  }
}

/** What a successful call changes: the upstream state, a clean retry state, the call history. */
export function recordSuccess(record: OrderRecord, action: Action, result: LoyaltyResult, now: string): void {
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
}
