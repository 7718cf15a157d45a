// The admin API's manual adjustments: points given (earn) or taken (redeem) by the operator, each with who asked and
// why, and the list of them.
import type { Request, Response, Router } from 'express';
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import { earnByPoints } from '../core/order-points-view.ts';
import type { Engine } from '../core/engine.ts';
import { adjusted, BadInput, read, type AdminApiParts } from './admin-parts.ts';
import { earnAdjustment, redeemAdjustment } from './admin-input.ts';

export function adminAdjustmentRoutes(router: Router, parts: AdminApiParts): void {
  router.get('/adjustments', adjustmentList(parts));
  router.post('/adjustments/earn', earn(parts));
  router.post('/adjustments/redeem', redeem(parts));
}

const adjustmentList =
  ({ engine: { adjustments } }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    res.json({ adjustments: await adjustments.list() });
  };

// An adjustment names its account: one no bridge knows is refused, never sent (it would be a dead letter in doubt).
const knownAccount = async (engine: Engine, res: Response, account: string | undefined) => {
  if (account === undefined || (await engine.accounts.runtime(account))) return true;
  res.status(404).json({ error: `no account ${account}` });
  return false;
};

const earn =
  ({ engine, tokenLabel }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const body = read(earnAdjustment, req.body);
    if (!(await knownAccount(engine, res, body.account))) return;
    const picked = await earnByPoints(body, engine.accounts, body.account ?? DEFAULT_ACCOUNT, 'operator');
    if (!picked.ok) throw new BadInput('points', picked.why);
    adjusted(res, await engine.adjustments.earn(picked.request, tokenLabel));
  };

const redeem =
  ({ engine, tokenLabel }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const body = read(redeemAdjustment, req.body);
    if (await knownAccount(engine, res, body.account)) adjusted(res, await engine.adjustments.redeem(body, tokenLabel));
  };
