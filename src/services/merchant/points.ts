// A customer's points and points by hand, from a shop's page, on an account of the shop's own only: another
// account's customers are not the shop's.
import type { ShopRef } from '../../accounts/account-records.ts';
import type { AdjustmentResult, EarnRequest, RedeemRequest } from '../../core/adjustments.ts';
import type { Adjustment } from '../../core/store/ledger-store.ts';
import { earnByPoints } from '../../core/order-points-view.ts';
import { ADJUSTMENT_KIND } from '../../core/store/roles/core-kinds.ts';
import type { TransactionType } from '../../loyalty/protocol.ts';
import { LoyaltyError } from '../../loyalty/errors.ts';
import { BadInput, Refused } from '../refused.ts';
import { NAMES_NO_ACCOUNT, type MerchantAsker, type MerchantContext, type ReadLater } from './parts.ts';

/**
 * Points a shop gives or takes back by hand in an hour, counted from the adjustments the
 * ledger keeps (so across instances and restarts). Each is a call with no
 * order id, and one whose outcome is unknown becomes a dead letter for a
 * person to check: a page must not make those by the thousand.
 */
const MANUAL_ADJUSTMENTS_PER_HOUR = 30;

/** Whose points to read: by e-mail or phone; an account is never the shop's to name. */
export type CustomerPointsQuery = {
  type: TransactionType;
  email?: string | undefined;
  mobile?: string | undefined;
  account?: string | undefined;
};
/** Points given by hand: the points (or, as before, the activity that gives them), to whom, and why. */
export type EarnByHand = Omit<EarnRequest, 'activityId' | 'shop'> & { activityId?: string | undefined };
/** Points taken back by hand. */
export type RedeemByHand = Omit<RedeemRequest, 'shop'>;

/** An adjustment made, refused by the service (its words), or whose outcome is unknown (a dead letter keeps it). */
export interface ByHandOutcome {
  adjustment: Adjustment;
  outcome: 'made' | 'refused' | 'unknown';
}

export async function customerPoints(
  ctx: MerchantContext,
  { shop }: MerchantAsker,
  input: ReadLater<CustomerPointsQuery>,
) {
  const account = await ctx.ownAccount(shop, 'read');
  const query = input();
  if (query.account !== undefined) throw new Refused(400, [NAMES_NO_ACCOUNT]);
  const runtime = await ctx.accounts.runtime(account);
  if (!runtime?.client.transactions) throw new Refused(404, [`no account ${account}`]);
  const result = await runtime.client.transactions({
    type: query.type,
    ...(query.email ? { email: query.email } : { mobile: query.mobile ?? '' }),
  });
  return { type: query.type, ...result.data };
}

// Points given or taken back by hand (a goodwill gesture, a lost order; points given in error), on an account of the
// shop's own, recorded with who and why.
export const earnByHand = (ctx: MerchantContext, asker: MerchantAsker, input: ReadLater<EarnByHand>) =>
  byHand(ctx, asker, input, async (request, by) => {
    const picked = await earnByPoints(request, ctx.accounts, request.account, 'merchant');
    if (!picked.ok) throw new BadInput('points', picked.why);
    return ctx.adjustments.earn(picked.request, by);
  });

export const redeemByHand = (ctx: MerchantContext, asker: MerchantAsker, input: ReadLater<RedeemByHand>) =>
  byHand(ctx, asker, input, (request, by) => ctx.adjustments.redeem(request, by));

/**
 * Points by hand, either way, under one cap: the call and its record are
 * inside the cap's step, so a burst cannot all pass one count of the
 * adjustments kept.
 */
async function byHand<Body extends { account?: string | undefined }>(
  { store, ownAccount, hourly }: MerchantContext,
  { shop, by }: MerchantAsker,
  input: ReadLater<Body>,
  send: (request: Body & { account: string; shop: ShopRef }, by: string) => Promise<AdjustmentResult>,
): Promise<ByHandOutcome> {
  const account = await ownAccount(shop, 'change');
  const body = input();
  if (body.account !== undefined) throw new Refused(400, [NAMES_NO_ACCOUNT]);
  const cap = {
    what: 'points by hand',
    limit: MANUAL_ADJUSTMENTS_PER_HOUR,
    madeSince: async (since: string) =>
      (await store.listRecords(ADJUSTMENT_KIND)).filter(
        ({ value }) => value.platform === shop.platform && value.shop === shop.shop && value.at > since,
      ).length,
    refusal: `a shop gives or takes points by hand at most ${MANUAL_ADJUSTMENTS_PER_HOUR} times an hour; ask the bridge's operator for more`,
  };
  return hourly(shop, cap, async () => {
    const { adjustment, error } = await send({ ...body, account, shop }, by);
    if (adjustment.outcome === 'success') return { adjustment, outcome: 'made' as const };
    const refused = error instanceof LoyaltyError && !error.retryable;
    return { adjustment, outcome: refused ? ('refused' as const) : ('unknown' as const) };
  });
}
