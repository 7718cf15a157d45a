// An order's redeems: its own (a code of the merchant's, REDEEM_CODE_PATTERN) and one per reward code of the
// bridge's it paid with, each with its own state, so that two codes on one order are each redeemed once. The worker
// notes, settles and undoes them here; pages and rules that look at them together read redemptionSummary.
import type { CodeRedeem, OrderRecord, RedeemCode, Redemption } from './order-record.ts';

type Upstream = OrderRecord['upstream'];

/** The reward code entry a redeem is for (by its reservation), or undefined for the order's own redeem. */
export const codeRedeemOf = (upstream: Pick<Upstream, 'redeemCodes'>, reservation: string): CodeRedeem | undefined =>
  upstream.redeemCodes?.find((each) => each.reservation === reservation);

/** The code an entry redeems, without where its redeem stands (what an action names). */
export const withoutState = ({ redemption: _state, ...code }: CodeRedeem): RedeemCode => code;

/** Where the redeem of `code` (or the order's own, without one) stands. */
export function redemptionOf(upstream: Upstream, code: RedeemCode | undefined): Redemption {
  if (code === undefined) return upstream.redemption;
  return codeRedeemOf(upstream, code.reservation)?.redemption ?? 'none';
}

/** Moves the redeem of `code` (or the order's own) to `state`; a sent own redeem keeps its points. */
export function setRedemption(
  upstream: Upstream,
  code: RedeemCode | undefined,
  state: Redemption,
  points?: number,
): void {
  if (code === undefined) {
    upstream.redemption = state;
    if (state === 'sent' && points !== undefined) upstream.redeemedPoints = points;
    return;
  }
  const entry = codeRedeemOf(upstream, code.reservation);
  if (entry) entry.redemption = state;
}

/** The first redeem left in doubt ('sending'), the order's own or a code's; undefined when none is. */
export function redeemInDoubt(upstream: Upstream): { code: CodeRedeem | undefined } | undefined {
  if (upstream.redemption === 'sending') return { code: undefined };
  const code = upstream.redeemCodes?.find((each) => each.redemption === 'sending');
  return code ? { code } : undefined;
}

/** Every redeem in doubt is let go: a person checked that none took effect, and retries. */
export function forgetRedeemsInDoubt(upstream: Upstream): void {
  if (upstream.redemption === 'sending') upstream.redemption = 'none';
  for (const code of upstream.redeemCodes ?? []) if (code.redemption === 'sending') code.redemption = 'none';
}

/**
 * Every redeem of the order at once, for people and for the rules that look at them together: sending while any
 * is in doubt, sent once any went (the points spent on it were taken), and the points of those that went.
 */
export function redemptionSummary(
  upstream: Pick<OrderRecord['upstream'], 'redemption' | 'redeemedPoints' | 'redeemCodes'>,
): { redemption: Redemption; redeemedPoints: number | undefined } {
  const codes = upstream.redeemCodes ?? [];
  const states = [upstream.redemption, ...codes.map((each) => each.redemption)];
  const redemption = states.includes('sending') ? 'sending' : states.includes('sent') ? 'sent' : 'none';
  const sentCodes = codes.filter((each) => each.redemption === 'sent');
  const ownSent = upstream.redemption === 'sent';
  // Unknown where nothing went, or where only the order's own went before its points were kept.
  if (sentCodes.length === 0 && (!ownSent || upstream.redeemedPoints === undefined))
    return { redemption, redeemedPoints: undefined };
  const own = ownSent ? (upstream.redeemedPoints ?? 0) : 0;
  return { redemption, redeemedPoints: sentCodes.reduce((total, each) => total + each.points, own) };
}
