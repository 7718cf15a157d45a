// The order lifecycle of DESIGN.md as pure functions: where an order's points
// belong, given the union of its facts and the policy, and which single call
// moves the loyalty service one step closer. Nothing here does I/O or reads a
// clock of its own.
import { attribute, findReferral, pointsToRedeem, type Referral } from './attribution.ts';
import { compareDecimal } from './decimal.ts';
import type { Fact } from './order-event.ts';
import type { OrderRecord, OrderSnapshot, RedeemCode, UpstreamPoints } from './order-record.ts';
import { codeRedeemOf, redemptionSummary, withoutState } from './redeems.ts';
import type { Policy } from './policy.ts';
import { lowestBand } from './spend-bands.ts';

export const SKIP_REASONS = [
  'test_order',
  'excluded_source',
  'below_minimum',
  'missing_email',
  'missing_mobile',
  'protected_data_hidden',
  'customer_erased',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Orders that earn as usual but need the merchant's eye, listed by these reasons. */
export const ATTENTION_REASONS = ['referral_without_referrer', 'points_redeemed_on_cancelled_order'] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

/** Every reason an order can be listed by. */
export const ORDER_REASONS = [...SKIP_REASONS, ...ATTENTION_REASONS] as const;

/** Why the worker left an order waiting, with nothing sent: its shop has no account, or its account is gone. */
export const WAITING_REASONS = ['no_account', 'account_removed'] as const;
export type WaitingReason = (typeof WAITING_REASONS)[number];

export type Target =
  | { state: 'skipped'; reason: SkipReason }
  | { state: 'void' | 'cancelled' | 'approved' | 'earned' | 'new'; reason?: AttentionReason };

export type TargetState = Target['state'];

/** Why an order earns nothing, or undefined when it is eligible. */
export function skipReason(snapshot: OrderSnapshot, policy: Policy, erased = false): SkipReason | undefined {
  if (snapshot.test && !policy.countTestOrders) return 'test_order';
  if (snapshot.source !== null && policy.excludedSources.includes(snapshot.source.toLowerCase()))
    return 'excluded_source';
  if (compareDecimal(snapshot.total.amount, policy.minimumTotal) < 0) return 'below_minimum';
  // With points by spend, an order below the lowest band has no activity to earn under.
  const lowest = lowestBand(policy.earnBands);
  if (lowest !== undefined && compareDecimal(snapshot.total.amount, lowest) < 0) return 'below_minimum';
  const missing = !snapshot.customer.email
    ? 'missing_email'
    : policy.requireMobile && !snapshot.customer.mobile
      ? 'missing_mobile'
      : undefined;
  if (!missing) return undefined;
  if (erased) return 'customer_erased';
  // Withheld by the platform, not absent: the merchant can grant the access.
  return snapshot.protectedDataHidden ? 'protected_data_hidden' : missing;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TargetInput {
  facts: ReadonlySet<Fact>;
  snapshot: OrderSnapshot;
  upstreamPoints: UpstreamPoints;
  earnedAt: string | null;
  now: Date;
  /** The customer's personal data was erased from the order. */
  erased?: boolean | undefined;
}

export function isCancelled(facts: ReadonlySet<Fact>, policy: Policy): boolean {
  return (
    facts.has('cancelled') ||
    facts.has('fullyRefunded') ||
    (policy.partialRefund === 'cancel' && facts.has('partiallyRefunded'))
  );
}

/** Has the order reached the point where it earns (paid, or placed where that is the trigger)? */
export function isTriggered(facts: ReadonlySet<Fact>, policy: Policy): boolean {
  return facts.has('paid') || facts.has('fulfilled') || (policy.earnTrigger === 'placed' && facts.has('placed'));
}

export function pointsTarget(
  { facts, snapshot, upstreamPoints, earnedAt, now, erased = false }: TargetInput,
  policy: Policy,
): Target {
  // Eligibility is judged until points are earned; after that only a
  // cancellation or refund takes them back, not an edit of the order's details.
  if (upstreamPoints === 'none') {
    const reason = skipReason(snapshot, policy, erased);
    if (reason) return { state: 'skipped', reason };
  }
  if (isCancelled(facts, policy)) return upstreamPoints === 'none' ? { state: 'void' } : { state: 'cancelled' };
  const approvalDue =
    policy.pendingDays > 0
      ? earnedAt !== null && now.getTime() >= Date.parse(earnedAt) + policy.pendingDays * DAY_MS
      : facts.has('fulfilled');
  if (approvalDue) return { state: 'approved' };
  if (isTriggered(facts, policy)) return { state: 'earned' };
  return { state: 'new' };
}

/** When the pending period of an earned order (or of a conversion on an order that earns nothing) ends, if one is still running. */
export function approvalDueAt(record: OrderRecord, policy: Policy): Date | undefined {
  if (policy.pendingDays <= 0) return undefined;
  const { upstream } = record;
  if (upstream.points === 'earned' && upstream.earnedAt !== null)
    return new Date(Date.parse(upstream.earnedAt) + policy.pendingDays * DAY_MS);
  const conversionWaits =
    policy.conversion.confirm &&
    upstream.conversion === 'sent' &&
    (upstream.conversionStatus ?? 'pending') === 'pending';
  if (conversionWaits && record.target?.state === 'skipped' && upstream.conversionSentAt)
    return new Date(Date.parse(upstream.conversionSentAt) + policy.pendingDays * DAY_MS);
  return undefined;
}

export type Action =
  | { kind: 'earn' }
  | { kind: 'approve' }
  | { kind: 'cancel' }
  /** code: a reward code's redeem (RedeemCode), for its customer on its account; else the order's, by pattern. */
  | { kind: 'redeem'; points: number; code?: RedeemCode | undefined }
  | { kind: 'conversion'; referral: Referral }
  | { kind: 'approveConversion' }
  | { kind: 'rejectConversion'; remark: string };

export interface Plan {
  target: Target;
  /** The one call to make next, or undefined when the order is where it belongs. */
  next: Action | undefined;
}

/**
 * The next call for an order: points first (earn before approve, never the
 * other way), then a redemption, then the conversion and its confirmation.
 * Redemptions and conversions are sent at most once, for paid, eligible
 * orders that were not cancelled before they went out; a conversion then
 * follows the order: approved with its points, rejected with its cancellation.
 */
export function plan(record: OrderRecord, policy: Policy, now: Date): Plan {
  const facts = new Set(record.facts);
  const { upstream, snapshot } = record;
  const points = pointsTarget(
    {
      facts,
      snapshot,
      upstreamPoints: upstream.points,
      earnedAt: upstream.earnedAt,
      now,
      erased: Boolean(record.erasedAt),
    },
    policy,
  );
  // A call held by a dead letter waits for a person; the others go on.
  const held = (action: Action | undefined) =>
    action && record.work.held[action.kind] === undefined ? action : undefined;
  const next =
    held(pointsAction(points.state, upstream.points)) ??
    [
      ...redemptionActions(record, points, facts, policy),
      ...conversionActions(record, points, facts, policy, now),
    ].find((action) => held(action));
  return { target: withAttention(record, points, facts, policy), next };
}

/** The target as the merchant reads it: with the reason an order needs their eye, if it does. */
function withAttention(record: OrderRecord, target: Target, facts: ReadonlySet<Fact>, policy: Policy): Target {
  const { upstream, snapshot } = record;
  if (isCancelled(facts, policy) && redemptionSummary(upstream).redemption === 'sent' && !upstream.redemptionReturn) {
    // A cancelled order earns nothing whatever kept it from earning: what counts now is the points it took.
    return { state: target.state === 'skipped' ? 'void' : target.state, reason: 'points_redeemed_on_cancelled_order' };
  }
  if (
    target.state === 'skipped' ||
    countsForNothing(target) ||
    !isTriggered(facts, policy) ||
    upstream.conversion !== 'none'
  )
    return target;
  return attribute(snapshot, policy).kind === 'no_referrer'
    ? { ...target, reason: 'referral_without_referrer' }
    : target;
}

/** A test order or one from an excluded source counts for nothing at all; one that merely cannot earn points may still carry a referral or a redemption. */
const countsForNothing = (target: Target) =>
  target.state === 'skipped' && (target.reason === 'test_order' || target.reason === 'excluded_source');

function pointsAction(target: TargetState, upstream: UpstreamPoints): Action | undefined {
  switch (target) {
    case 'approved':
      if (upstream === 'none' || upstream === 'earning') return { kind: 'earn' };
      if (upstream === 'earned') return { kind: 'approve' };
      return undefined;
    case 'earned':
      return upstream === 'none' || upstream === 'earning' ? { kind: 'earn' } : undefined;
    case 'cancelled':
      // An earn in doubt is sent again first (it is an upsert), so that the
      // cancel finds the points, whether or not the first one arrived.
      if (upstream === 'earning') return { kind: 'earn' };
      return upstream === 'earned' || upstream === 'approved' ? { kind: 'cancel' } : undefined;
    default:
      return undefined;
  }
}

function redemptionActions(record: OrderRecord, target: Target, facts: ReadonlySet<Fact>, policy: Policy): Action[] {
  const { snapshot, upstream } = record;
  if (!isTriggered(facts, policy) || isCancelled(facts, policy)) return [];
  // Each reward code's points, for the code's customer, whoever's contact the order carries; and whatever the order
  // earns under the program's rules (a test order, an excluded source): the code gave its discount, so its points
  // are spent (docs/storefront.md, "Orders that earn nothing").
  const codes: Action[] = (upstream.redeemCodes ?? [])
    .filter((each) => each.redemption === 'none')
    .map((each) => ({ kind: 'redeem', points: each.points, code: withoutState(each) }));
  if (countsForNothing(target) || upstream.redemption !== 'none') return codes;
  if (!(snapshot.customer.email || snapshot.customer.mobile)) return codes;
  const points = pointsToRedeem(snapshot, policy);
  return points > 0 ? [...codes, { kind: 'redeem', points }] : codes;
}

/**
 * What becomes of the redeem of one of the order's reward codes (by its reservation): 'sent', 'wanted' (it will be,
 * once the order is paid and its turn comes), or 'never' (the order was cancelled before it went): the reservation
 * is then released (code-sweeper.ts). An order that earns nothing still redeems its codes.
 */
export function codeRedeemFate(record: OrderRecord, reservation: string, policy: Policy): 'sent' | 'wanted' | 'never' {
  const code = codeRedeemOf(record.upstream, reservation);
  if (code?.redemption === 'sent') return 'sent';
  if (code?.redemption === 'sending') return 'wanted';
  // Not taken yet (a crash between the claim and the order's save): the order takes it again on its next step.
  return isCancelled(new Set(record.facts), policy) ? 'never' : 'wanted';
}

function conversionActions(
  record: OrderRecord,
  target: Target,
  facts: ReadonlySet<Fact>,
  policy: Policy,
  now: Date,
): Action[] {
  const { snapshot, upstream } = record;
  const cancelled = isCancelled(facts, policy);
  const confirm = policy.conversion.confirm && upstream.conversionCampaignId !== undefined;
  switch (upstream.conversion) {
    case 'sending': {
      // In doubt. A cancelled order's conversion is never added again (an add
      // can reward the referrer at once): it is rejected, and "conversion does
      // not exist" then says it never landed; where the bridge confirms
      // nothing, it is left as it is, for the merchant who approves by hand
      // (as a cancelled order's conversion that was never sent is not sent).
      // A live order's add is finished.
      if (cancelled) return confirm ? [{ kind: 'rejectConversion', remark: rejectionRemark(facts) }] : [];
      const referral = findReferral(snapshot, policy);
      return referral
        ? [
            {
              kind: 'conversion',
              referral: { ...referral, campaignId: upstream.conversionCampaignId ?? referral.campaignId },
            },
          ]
        : [];
    }
    case 'sent': {
      if (!confirm) return [];
      const status = upstream.conversionStatus ?? 'pending';
      if (cancelled) return status === 'rejected' ? [] : [{ kind: 'rejectConversion', remark: rejectionRemark(facts) }];
      return status === 'pending' && conversionApprovalDue(record, target, facts, policy, now)
        ? [{ kind: 'approveConversion' }]
        : [];
    }
    case 'none': {
      if (countsForNothing(target) || !isTriggered(facts, policy) || cancelled) return [];
      const referral = findReferral(snapshot, policy);
      return referral ? [{ kind: 'conversion', referral }] : [];
    }
    default:
      return [];
  }
}

/**
 * The conversion is approved when the order's points are. An order that
 * earns no points (no mobile, below the minimum) follows the same rule from
 * the conversion's add: fulfilment, or the pending period.
 */
function conversionApprovalDue(
  record: OrderRecord,
  target: Target,
  facts: ReadonlySet<Fact>,
  policy: Policy,
  now: Date,
): boolean {
  const { upstream } = record;
  if (upstream.points === 'approved') return true;
  if (target.state !== 'skipped') return false;
  if (policy.pendingDays <= 0) return facts.has('fulfilled');
  return (
    upstream.conversionSentAt != null &&
    now.getTime() >= Date.parse(upstream.conversionSentAt) + policy.pendingDays * DAY_MS
  );
}

/** Why a conversion is rejected, for the service's record ("remark"). */
function rejectionRemark(facts: ReadonlySet<Fact>): string {
  if (facts.has('cancelled')) return 'order cancelled';
  if (facts.has('fullyRefunded')) return 'order refunded in full';
  return 'order partly refunded; its points were cancelled';
}
