// One loyalty call for one order, and what a success changes in the record. A call's result is recorded
// after the call, so a crash in between makes the call again on restart: safe for earns, approvals,
// cancellations and conversions, which the service takes as repeats (docs/ledger.md, "What exactly once
// rests on"). A redeem is not idempotent: its intent is saved before the call, and one that may have taken
// effect goes to dead letters for a person to check, never sent again.
import type {
  CallOptions,
  ConfirmConversionInput,
  ConversionInput,
  EarnInput,
  LoyaltyResult,
  RedeemInput,
  UpdatePointsInput,
} from '../../loyalty/client.ts';
import type { Place } from '../../loyalty/places.ts';
import type { Action } from '../lifecycle.ts';
import { sumDecimal } from '../decimal.ts';
import { recordCall, type OrderRecord } from '../order-record.ts';
import { setRedemption } from '../redeems.ts';
import type { Policy } from '../policy.ts';
import { activityForTotal } from '../spend-bands.ts';

/** The part of the loyalty client the worker uses. */
export interface LoyaltyOperations {
  earn(input: EarnInput, options?: CallOptions): Promise<LoyaltyResult>;
  updatePoints(input: UpdatePointsInput, options?: CallOptions): Promise<LoyaltyResult>;
  redeem(input: RedeemInput, options?: CallOptions): Promise<LoyaltyResult>;
  addConversion(input: ConversionInput, options?: CallOptions): Promise<LoyaltyResult>;
  confirmConversion(input: ConfirmConversionInput, options?: CallOptions): Promise<LoyaltyResult>;
}

/**
 * Whether each kind of call carries the order's lp_orderid, which is then registered to the order before it
 * leaves (lp-order-ids.ts). A record, not a list, so that a new kind of call does not compile until it says.
 */
export const CARRIES_LP_ORDER_ID: Readonly<Record<Action['kind'], boolean>> = {
  earn: true,
  approve: true,
  cancel: true,
  // A redeem is sent for the customer, not the order.
  redeem: false,
  conversion: true,
  approveConversion: true,
  rejectConversion: true,
};

export const carriesLpOrderId = (kind: Action['kind']): boolean => CARRIES_LP_ORDER_ID[kind];

export interface CallContext {
  policy: Policy;
  /** LOYALTY_EARN_ACTIVITY_ID: the activity without spend bands, and of orders earned before an activity was kept. */
  earnActivityId: string;
  lpOrderId: string;
  /** Checked right before each attempt leaves (the worker's lease): see CallOptions. */
  fence?: () => void;
  /** The call's place in its account's rate budget (reserve()). */
  place?: Place;
  /** Told when a try fails in a way that may have taken effect: see CallOptions. */
  onTryInDoubt?: () => void;
  /** A reward code's redeem: the code's customer, whoever the order's is. */
  customer?: { email: string } | { mobile: string };
}

/**
 * Notes the intent before a call whose crash would otherwise leave the ledger
 * believing nothing was sent, with what the call must keep however the order
 * changes after (its activity, its campaign). Returns whether there was one to save.
 */
export function noteIntent(
  record: OrderRecord,
  action: Action,
  context: Pick<CallContext, 'policy' | 'earnActivityId'> & { account: string },
): boolean {
  const { upstream } = record;
  // The first call of any kind (earn, conversion or redeem: the others follow one of them) fixes the order's account.
  // A reward code's redeem goes to the code's account and fixes nothing of the order's (DESIGN.md, Accounts).
  const codeRedeem = action.kind === 'redeem' && action.code !== undefined;
  if (upstream.account === undefined && !codeRedeem && ['earn', 'conversion', 'redeem'].includes(action.kind))
    upstream.account = context.account;
  if (action.kind === 'earn' && upstream.points === 'none') {
    upstream.points = 'earning';
    upstream.earnActivityId ??=
      activityForTotal(record.snapshot.total.amount, context.policy.earnBands, context.earnActivityId) ??
      context.earnActivityId;
  } else if (action.kind === 'conversion' && upstream.conversion === 'none') {
    upstream.conversion = 'sending';
    upstream.conversionCampaignId = action.referral.campaignId;
  } else if (action.kind === 'redeem') {
    setRedemption(upstream, action.code, 'sending');
  } else {
    return false;
  }
  return true;
}

export function makeCall(
  client: LoyaltyOperations,
  record: OrderRecord,
  action: Action,
  context: CallContext,
): Promise<LoyaltyResult> {
  const { snapshot, upstream } = record;
  const { lpOrderId } = context;
  const customer = snapshot.customer;
  const options: CallOptions = {
    ...(context.fence ? { fence: context.fence } : {}),
    ...(context.place ? { place: context.place } : {}),
    ...(context.onTryInDoubt ? { onTryInDoubt: context.onTryInDoubt } : {}),
  };
  switch (action.kind) {
    case 'earn':
      return client.earn(
        {
          activityId: upstream.earnActivityId ?? context.earnActivityId,
          name: customer.name ?? (customer.email ?? '').split('@')[0] ?? '',
          email: customer.email ?? '',
          mobile: customer.mobile ?? '',
          description: `Order ${snapshot.orderName || record.orderId}`,
          orderId: lpOrderId,
        },
        options,
      );
    case 'approve':
    case 'cancel':
      return client.updatePoints({ status: action.kind, orderId: lpOrderId }, options);
    case 'redeem':
      return client.redeem(
        {
          ...(context.customer ?? (customer.email ? { email: customer.email } : { mobile: customer.mobile ?? '' })),
          points: action.points,
        },
        options,
      );
    case 'conversion':
      return client.addConversion(
        {
          orderId: lpOrderId,
          campaignId: action.referral.campaignId,
          event: 'sale',
          referrer: { kind: action.referral.referrer.kind, value: action.referral.referrer.value },
          refereeName: customer.name ?? undefined,
          refereeEmail: customer.email ?? undefined,
          refereeMobile: customer.mobile ?? undefined,
          purchaseAmount: purchaseAmount(record, context.policy),
          // Which order of which shop this was, for whoever reads the conversion in the service's panel.
          customValue: record.key,
        },
        options,
      );
    case 'approveConversion':
    case 'rejectConversion':
      return client.confirmConversion(
        {
          orderId: lpOrderId,
          campaignId: upstream.conversionCampaignId ?? 0,
          event: 'sale',
          decision: action.kind === 'approveConversion' ? 'approve' : 'reject',
          remark: action.kind === 'rejectConversion' ? action.remark : undefined,
        },
        options,
      );
  }
}

/**
 * The order's total or subtotal in the shop's currency (the total where the
 * platform gave no subtotal), as plain decimal text: 140.0000 goes as 140.
 */
function purchaseAmount(record: OrderRecord, policy: Policy): string {
  const { subtotal, total } = record.snapshot;
  return sumDecimal([policy.conversion.purchaseAmount === 'subtotal' ? (subtotal ?? total.amount) : total.amount]);
}

/** What a successful call changes: the upstream state, a clean retry state, the call history. */
export function recordSuccess(record: OrderRecord, action: Action, result: LoyaltyResult, now: string): void {
  const { upstream } = record;
  switch (action.kind) {
    case 'earn':
      upstream.points = 'earned';
      upstream.earnedAt = now;
      break;
    case 'approve':
      upstream.points = 'approved';
      break;
    case 'cancel':
      upstream.points = 'cancelled';
      break;
    case 'redeem':
      setRedemption(upstream, action.code, 'sent', action.points);
      break;
    case 'conversion':
      upstream.conversion = 'sent';
      upstream.conversionSentAt = now;
      upstream.conversionStatus = 'pending';
      break;
    case 'approveConversion':
      upstream.conversionStatus = 'approved';
      break;
    case 'rejectConversion':
      // A reject of an add in doubt that finds the conversion: the add had landed.
      if (upstream.conversion === 'sending') {
        upstream.conversion = 'sent';
        upstream.conversionSentAt = now;
      }
      upstream.conversionStatus = 'rejected';
      break;
  }
  const { unknownFailures: _counted, ...work } = record.work;
  record.work = { ...work, attempts: 0, firstFailureAt: null, retryAt: null, lastError: null };
  recordCall(record, {
    operation: action.kind,
    at: now,
    attempts: result.attempts,
    outcome: 'success',
    message: result.message,
  });
  record.updatedAt = now;
}
