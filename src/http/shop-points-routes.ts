// A customer's points and points by hand, from a shop's page, on an account of the shop's own only. Each
// handler is a route of shop-admin-api.ts: it reads the request, calls the merchant's service
// (src/services/merchant.ts) and answers.
import type { RequestHandler, Response } from 'express';
import type { ByHandOutcome, MerchantService } from '../services/merchant.ts';
import { customerQuery, earnAdjustment, read, redeemAdjustment } from './admin-api.ts';
import { askerOf } from './shop-admin-context.ts';

/** GET /customers/points: a customer's points, on an account of the shop's own only. */
export const customerPoints =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    res.json(await merchant.customerPoints(askerOf(res), () => read(customerQuery, req.query)));
  };

/** Made: 201; refused by the service: 422 in its words; outcome unknown: 502 (a dead letter keeps it). */
function answerByHand(res: Response, { adjustment, outcome }: ByHandOutcome): void {
  if (outcome === 'made') return void res.status(201).json({ adjustment });
  res.status(outcome === 'refused' ? 422 : 502).json({ error: adjustment.message, adjustment });
}

/** POST /adjustments/earn: points given by hand. */
export const earnByHand =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) =>
    answerByHand(res, await merchant.earnByHand(askerOf(res), () => read(earnAdjustment, req.body)));

/** POST /adjustments/redeem: points taken back by hand. */
export const redeemByHand =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) =>
    answerByHand(res, await merchant.redeemByHand(askerOf(res), () => read(redeemAdjustment, req.body)));
