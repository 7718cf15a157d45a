// A shop's customers' data requests (a platform's compliance webhook): listed, exported and answered from its
// page, its own alone (another shop's is a 404). Each handler is a route of shop-admin-api.ts: it reads the
// request, calls the merchant's service (src/services/merchant.ts) and answers.
import type { RequestHandler } from 'express';
import type { MerchantService } from '../services/merchant.ts';
import { askerOf, notFound } from './shop-admin-context.ts';

/** GET /privacy/data-requests: the shop's customers' requests. */
export const listDataRequests =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.dataRequests(askerOf(res)));
  };

/** GET /privacy/data-requests/:id/export: what the bridge keeps of the request's customer, in this shop, as a file. */
export const exportDataRequest =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const exported = await merchant.exportDataRequest(askerOf(res), String(req.params.id));
    if (!exported) return notFound(res, `no data request ${req.params.id}`);
    res.set('content-disposition', `attachment; filename="${exported.fileName}"`).json(exported.data);
  };

/** DELETE /privacy/data-requests/:id: the merchant answered it. */
export const closeDataRequest =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const closed = await merchant.closeDataRequest(askerOf(res), String(req.params.id));
    if (!closed) return notFound(res, `no data request ${req.params.id}`);
    res.json(closed);
  };
