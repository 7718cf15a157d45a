// The order lifecycle of DESIGN.md as pure functions: where an order's points
// belong, given the union of its facts and the policy, and which single call
// moves the loyalty service one step closer. Nothing here does I/O or reads a
// clock of its own.
import { findReferral, pointsToRedeem, type Referral } from './attribution.ts';
import { compareDecimal } from './decimal.ts';
import type { Fact } from './order-event.ts';
import type { OrderRecord, OrderSnapshot, UpstreamPoints } from './order-record.ts';
import type { Policy } from './policy.ts';

export const SKIP_REASONS = ['test_order', 'excluded_source', 'below_minimum', 'missing_email', 'missing_mobile', 'protected_data_hidden', 'customer_erased'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export type Target =
  | { state: 'skipped'; reason: SkipReason }
  | { state: 'void' }
  | { state: 'cancelled' }
  | { state: 'approved' }
  | { state: 'earned' }
  | { state: 'new' };

export type TargetState = Target['state'];

/** Why an order earns nothing, or undefined when it is eligible. */
export function skipReason(snapshot: OrderSnapshot, policy: Policy, erased = false): SkipReason | undefined {
  if (snapshot.test && !policy.countTestOrders) return 'test_order';
  if (snapshot.source !== null && policy.excludedSources.includes(snapshot.source.toLowerCase())) return 'excluded_source';
  if (compareDecimal(snapshot.total.amount, policy.minimumTotal) < 0) return 'below_minimum';
  const missing = !snapshot.customer.email ? 'missing_email' : policy.requireMobile && !snapshot.customer.mobile ? 'missing_mobile' : undefined;
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
  return facts.has('cancelled') || facts.has('fullyRefunded') || (policy.partialRefund === 'cancel' && facts.has('partiallyRefunded'));
}

/** Has the order reached the point where it earns (paid, or placed where that is the trigger)? */
export function isTriggered(facts: ReadonlySet<Fact>, policy: Policy): boolean {
  return facts.has('paid') || facts.has('fulfilled') || (policy.earnTrigger === 'placed' && facts.has('placed'));
}

export function pointsTarget({ facts, snapshot, upstreamPoints, earnedAt, now, erased = false }: TargetInput, policy: Policy): Target {
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

/** When the pending period of an earned order ends, if it has one and it is still running. */
export function approvalDueAt(record: OrderRecord, policy: Policy): Date | undefined {
  if (policy.pendingDays <= 0 || record.upstream.points !== 'earned' || record.upstream.earnedAt === null) return undefined;
  return new Date(Date.parse(record.upstream.earnedAt) + policy.pendingDays * DAY_MS);
}

export type Action =
  | { kind: 'earn' }
  | { kind: 'approve' }
  | { kind: 'cancel' }
  | { kind: 'redeem'; points: number }
  | { kind: 'conversion'; referral: Referral };

export interface Plan {
  target: Target;
  /** The one call to make next, or undefined when the order is where it belongs. */
  next: Action | undefined;
}

/**
 * The next call for an order: points first (earn before approve, never the
 * other way), then a redemption, then a conversion. Redemptions and
 * conversions are sent at most once, for paid, eligible orders that were not
 * cancelled before they went out.
 */
export function plan(record: OrderRecord, policy: Policy, now: Date): Plan {
  const facts = new Set(record.facts);
  const { upstream, snapshot } = record;
  const target = pointsTarget({ facts, snapshot, upstreamPoints: upstream.points, earnedAt: upstream.earnedAt, now, erased: Boolean(record.erasedAt) }, policy);
  // A call held by a dead letter waits for a person; the others go on.
  const held = (action: Action | undefined) => (action && record.work.held[action.kind] === undefined ? action : undefined);
  const next = held(pointsAction(target.state, upstream.points)) ?? extraActions(record, target, facts, policy).find((action) => held(action));
  return { target, next };
}

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

function extraActions(record: OrderRecord, target: Target, facts: ReadonlySet<Fact>, policy: Policy): Action[] {
  const { snapshot, upstream } = record;
  // A conversion in doubt is finished whatever happened since: it may be recorded already.
  if (upstream.conversion === 'sending') {
    const referral = findReferral(snapshot, policy);
    if (referral) return [{ kind: 'conversion', referral }];
  }
  // A test order or one from an excluded source counts for nothing at all; a
  // referral or a redemption on an order that merely cannot earn points is still real.
  if (target.state === 'skipped' && (target.reason === 'test_order' || target.reason === 'excluded_source')) return [];
  if (!isTriggered(facts, policy) || isCancelled(facts, policy)) return [];
  const actions: Action[] = [];
  if (upstream.redemption === 'none' && (snapshot.customer.email || snapshot.customer.mobile)) {
    const points = pointsToRedeem(snapshot, policy);
    if (points > 0) actions.push({ kind: 'redeem', points });
  }
  if (upstream.conversion === 'none') {
    const referral = findReferral(snapshot, policy);
    if (referral) actions.push({ kind: 'conversion', referral });
  }
  return actions;
}
