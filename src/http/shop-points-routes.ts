// A customer's points and points by hand, from a shop's page, on an account of the shop's own only. Each
// handler is a route of shop-admin-api.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { ShopRef } from '../accounts/account-records.ts';
import type { AdjustmentResult } from '../core/adjustments.ts';
import { ADJUSTMENT_KIND } from '../core/store/roles/core-kinds.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import { refuse } from './admin-accounts.ts';
import { BadInput, customerQuery, earnAdjustment, read, redeemAdjustment } from './admin-api.ts';
import { earnByPoints } from '../core/order-points-view.ts';
import { NAMES_NO_ACCOUNT, type ShopAdminContext } from './shop-admin-context.ts';
import { byOf, shopRefOf } from './shop-ref.ts';

/**
 * Points a shop gives or takes back by hand in an hour, counted from the adjustments the
 * ledger keeps (so across instances and restarts). Each is a call with no
 * order id, and one whose outcome is unknown becomes a dead letter for a
 * person to check: a page must not make those by the thousand.
 */
const MANUAL_ADJUSTMENTS_PER_HOUR = 30;

// A customer's points, on an account of the shop's own only: another account's customers are not the shop's.
export const customerPoints =
  ({ accounts, ownAccount }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const account = await ownAccount(res, 'read');
    if (!account) return;
    const query = read(customerQuery, req.query);
    if (query.account !== undefined) return refuse(res, 400, [NAMES_NO_ACCOUNT]);
    const runtime = await accounts.runtime(account);
    if (!runtime?.client.transactions) return refuse(res, 404, [`no account ${account}`]);
    const result = await runtime.client.transactions({
      type: query.type,
      ...(query.email ? { email: query.email } : { mobile: query.mobile ?? '' }),
    });
    res.json({ type: query.type, ...result.data });
  };

// Points given or taken back by hand (a goodwill gesture, a lost order; points given in error), on an account of the
// shop's own, recorded with who and why.
export const earnByHand =
  (ctx: ShopAdminContext): RequestHandler =>
  (req, res) =>
    byHand(ctx, req, res, earnAdjustment, async (request, by) => {
      const picked = await earnByPoints(request, ctx.accounts, request.account, 'merchant');
      if (!picked.ok) throw new BadInput('points', picked.why);
      return ctx.adjustments.earn(picked.request, by);
    });

export const redeemByHand =
  (ctx: ShopAdminContext): RequestHandler =>
  (req, res) =>
    byHand(ctx, req, res, redeemAdjustment, ctx.adjustments.redeem.bind(ctx.adjustments));

/**
 * Points by hand, either way, under one cap: the call and its record are
 * inside the cap's step, so a burst cannot all pass one count of the
 * adjustments kept.
 */
async function byHand<Body extends { account?: string | undefined }>(
  { store, ownAccount, hourly }: ShopAdminContext,
  req: Request,
  res: Response,
  schema: z.ZodType<Body>,
  send: (request: Body & { account: string; shop: ShopRef }, by: string) => Promise<AdjustmentResult>,
): Promise<void> {
  const account = await ownAccount(res, 'change');
  if (!account) return;
  const body = read(schema, req.body);
  if (body.account !== undefined) return refuse(res, 400, [NAMES_NO_ACCOUNT]);
  const shop = shopRefOf(res);
  const cap = {
    what: 'points by hand',
    limit: MANUAL_ADJUSTMENTS_PER_HOUR,
    madeSince: async (since: string) =>
      (await store.listRecords(ADJUSTMENT_KIND)).filter(
        ({ value }) => value.platform === shop.platform && value.shop === shop.shop && value.at > since,
      ).length,
    refusal: `a shop gives or takes points by hand at most ${MANUAL_ADJUSTMENTS_PER_HOUR} times an hour; ask the bridge's operator for more`,
  };
  await hourly(res, cap, async () => {
    const { adjustment, error } = await send({ ...body, account, shop }, byOf(res));
    if (adjustment.outcome === 'success') return void res.status(201).json({ adjustment });
    const refused = error instanceof LoyaltyError && !error.retryable;
    res.status(refused ? 422 : 502).json({ error: adjustment.message, adjustment });
  });
}
