// The points each activity gives, as an account declares them (LOYALTY_ACTIVITY_POINTS): the service's answers
// carry no points, so every number the bridge shows for an earn, and every activity it picks for points given by
// hand, comes from here. An order's points are its activity's (fixed at its first earn), under its account's list.
import type { UpstreamPoints } from './order-record.ts';

/** Activity id to the points it gives. */
export type ActivityPoints = Readonly<Record<string, number>>;

export interface OrderPoints {
  /** What the order's activity gives, once it earned; null before, or when its points are not declared. */
  earned: number | null;
  /** pending: earned, not yet approved (or the earn is in doubt). */
  state: 'none' | 'pending' | 'approved' | 'cancelled';
  /** Points the customer paid with on this order, once the redeem took them. */
  redeemed: number | null;
  /** The activity the order earns under, once fixed. */
  activityId: string | null;
  /** The order earned under an activity with no declared points: the fix, in words. */
  undeclared?: string;
}

const STATES: Record<UpstreamPoints, OrderPoints['state']> = {
  none: 'none',
  earning: 'pending',
  earned: 'pending',
  approved: 'approved',
  cancelled: 'cancelled',
};

/** The activity that gives exactly `points`, if one is declared (the first by id, for one answer every time). */
export function activityGiving(declared: ActivityPoints | undefined, points: number): string | undefined {
  // Object.keys gives own entries only, so an id such as "constructor" reads the list's own number.
  return Object.keys(declared ?? {})
    .sort()
    .find((id) => declared?.[id] === points);
}

/** The amounts that can be given by hand: one per declared activity, smallest first. */
export const givableAmounts = (declared: ActivityPoints | undefined): number[] =>
  [...new Set(Object.values(declared ?? {}))].filter((points) => points > 0).sort((a, b) => a - b);

/**
 * An order's points: its activity's under its account's list. `fix` says how the list is put right, for whoever
 * reads it (in Set up; in the account's settings; by the bridge's operator, on an account the merchant cannot change).
 */
export function orderPoints(
  order: { upstream: UpstreamPoints; earnActivityId?: string | undefined; redeemedPoints?: number | undefined },
  declared: ActivityPoints | undefined,
  fix: (activityId: string) => string,
): OrderPoints {
  const state = STATES[order.upstream] ?? 'none';
  const activityId = order.earnActivityId ?? null;
  // Own entries only: a list may be a plain {} (no list declared), and an activity id may be "constructor".
  const gives =
    activityId !== null && declared && Object.hasOwn(declared, activityId) ? declared[activityId] : undefined;
  const points: OrderPoints = {
    earned: state === 'none' || gives === undefined ? null : gives,
    state,
    redeemed: order.redeemedPoints ?? null,
    activityId,
  };
  if (state !== 'none' && activityId !== null && gives === undefined) points.undeclared = fix(activityId);
  return points;
}

/** The points in a few words, for a table cell or a status line: "earned 100 points, pending". */
export function pointsText(points: OrderPoints): string {
  const amount = points.earned === null ? 'points' : `${points.earned} points`;
  const earned =
    points.state === 'none'
      ? 'no points'
      : points.state === 'cancelled'
        ? `${amount} cancelled`
        : `earned ${amount}, ${points.state}`;
  const redeemed = points.redeemed ? `; ${points.redeemed} redeemed` : '';
  const undeclared = points.undeclared ? ` (how many is not known: ${points.undeclared})` : '';
  return `${earned}${redeemed}${undeclared}`;
}
