// A shop's test orders, from its own page, on an account of the shop's own only (src/services/merchant/
// test-orders.ts): each enters the ledger before the answer (202). Each handler is a route of shop-admin-api.ts:
// it calls the merchant's service and answers.
import type { RequestHandler } from 'express';
import type { MerchantService } from '../services/merchant.ts';
import { askerOf, notFound } from './shop-admin-context.ts';

/** POST /test-orders: a made-up paid order of the shop's, to see it earn. */
export const sendTestOrder =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.status(202).json(await merchant.sendTestOrder(askerOf(res)));
  };

/** POST /test-orders/:id/cancel: one of the shop's test orders cancelled. */
export const cancelTestOrder =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const id = String(req.params.id);
    const cancelled = await merchant.cancelTestOrder(askerOf(res), id);
    if (!cancelled) return notFound(res, `no test order ${id}`);
    res.status(202).json(cancelled);
  };
