// A shop's customers' data requests (a platform's compliance webhook): listed, exported and answered from its
// page, its own alone (another shop's is a 404). Each handler is a route of shop-admin-api.ts.
import type { RequestHandler, Response } from 'express';
import { sameShop } from '../accounts/reach.ts';
import type { DataRequestRecord, Privacy } from '../core/privacy.ts';
import type { ShopAdminContext } from './shop-admin-context.ts';
import { isLetterOfShop } from './shop-attention.ts';
import { byOf, shopRefOf } from './shop-ref.ts';
import { shopLetterView, shopOrderView } from './shop-views.ts';

function isOwn(res: Response, request: Pick<DataRequestRecord, 'platform' | 'shop'>): boolean {
  return sameShop({ platform: request.platform, shop: request.shop }, shopRefOf(res));
}

/** The shop's own data request by id; another shop's, or none, is undefined alike. */
async function ownRequest(privacy: Privacy, res: Response, id: string): Promise<DataRequestRecord | undefined> {
  const request = (await privacy.dataRequests()).find((each) => each.id === id);
  return request && isOwn(res, request) ? request : undefined;
}

// Customers' data requests (a platform's compliance webhook), which the merchant must answer within 30 days.
export const listDataRequests =
  ({ privacy }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
    const own = (await privacy.dataRequests()).filter((request) => isOwn(res, request));
    res.json({ dataRequests: own });
  };

/** GET /privacy/data-requests/:id/export: what the bridge keeps of the request's customer, in this shop. */
export const exportDataRequest =
  ({ privacy, logger }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const request = await ownRequest(privacy, res, String(req.params.id));
    if (!request) return void res.status(404).json({ error: `no data request ${req.params.id}` });
    const match = {
      platform: request.platform,
      shop: request.shop,
      emails: request.customer.email ? [request.customer.email] : [],
      phones: request.customer.phone ? [request.customer.phone] : [],
      orderIds: request.orderIds,
    };
    // Manual adjustments the operator made are the loyalty account's, for a customer by e-mail or phone in any shop:
    // not this shop's to read (a data request names whatever contact the merchant gave their customer). Those the
    // shop's own page made are its own.
    const { adjustments: all, orders, deadLetters, inbox, dataRequests } = await privacy.exportCustomer(match);
    const shop = shopRefOf(res);
    // Views, as every answer to a shop: an order's errors may name another store's order (an lp_orderid collision).
    const data = {
      orders: orders.filter((order) => sameShop(order, shop)).map((order) => shopOrderView(order, shop)),
      deadLetters: deadLetters
        .filter((letter) => isLetterOfShop(letter, shop))
        .map((letter) => ({ ...shopLetterView(letter, shop), delivery: letter.delivery ?? null })),
      inbox,
      adjustments: all.filter((each) => each.platform === request.platform && each.shop === request.shop),
      dataRequests,
    };
    await privacy.noteExport(match, 'shop');
    logger.info({ shop: request.shop, request: request.id, by: byOf(res) }, 'a shop exported a customer’s data');
    res.set('content-disposition', `attachment; filename="data-request-${request.requestId ?? request.id}.json"`).json({
      exportedAt: new Date().toISOString(),
      request: { id: request.id, requestId: request.requestId ?? null, platform: request.platform, shop: request.shop },
      ...data,
    });
  };

/** DELETE /privacy/data-requests/:id: the merchant answered it. */
export const closeDataRequest =
  ({ privacy, logger }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const request = await ownRequest(privacy, res, String(req.params.id));
    if (!request || !(await privacy.closeDataRequest(request.id)))
      return void res.status(404).json({ error: `no data request ${req.params.id}` });
    logger.info(
      { shop: request.shop, request: request.id, by: byOf(res) },
      'a shop answered a customer’s data request',
    );
    res.json({ closed: request.id });
  };
