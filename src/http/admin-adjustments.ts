// The admin API's manual adjustments: points given (earn) or taken (redeem) by the operator, each with who asked and
// why, and the list of them.
import type { Router } from 'express';
import { answerAdjusted, read, type AdminApiParts } from './admin-parts.ts';
import { earnAdjustment, redeemAdjustment } from './admin-input.ts';

export function adminAdjustmentRoutes(router: Router, { operator: { adjustments }, tokenLabel }: AdminApiParts): void {
  router.get('/adjustments', async (_req, res) => {
    res.json(await adjustments.adjustments());
  });
  router.post('/adjustments/earn', async (req, res) => {
    answerAdjusted(res, await adjustments.earn(read(earnAdjustment, req.body), tokenLabel));
  });
  router.post('/adjustments/redeem', async (req, res) => {
    answerAdjusted(res, await adjustments.redeem(read(redeemAdjustment, req.body), tokenLabel));
  });
}
