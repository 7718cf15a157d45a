// The admin API as a shop's own page sees it (the embedded app, or the app
// opened outside the admin): who is signed in, that shop's orders and one
// order, and that shop's Admin API access. Nothing of another shop, and
// nothing of the loyalty account as a whole (points of any customer,
// adjustments, privacy requests, the other platforms): those stay with the
// operator's ADMIN_TOKEN, and answer 403 here.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { ShopifyParts } from '../platforms.ts';
import { BadInput, orderQuery, read } from './admin-api.ts';

export interface ShopAdminApiParts {
  store: LedgerStore;
  shopify: ShopifyParts;
  logger: Logger;
}

/** A shop's query may narrow its own orders, never name a platform or shop. */
const shopOrderQuery = orderQuery.omit({ platform: true, shop: true });

const shopOf = (res: Response): string => String(res.locals.shop);

export function shopAdminApi({ store, shopify, logger }: ShopAdminApiParts): express.Router {
  const router = express.Router();

  router.get('/session', (_req, res) => {
    res.json({ caller: 'shop', platform: 'shopify', shop: shopOf(res) });
  });

  router.get('/orders', async (req, res) => {
    const query = read(shopOrderQuery, req.query);
    const { total, orders } = await store.listOrders({ ...query, platform: 'shopify', shop: shopOf(res) });
    res.json({ total, page: query.page, limit: query.limit, orders });
  });

  router.get('/orders/:key', async (req, res) => {
    const order = await store.getOrder(String(req.params.key));
    // Another shop's order is answered as if it did not exist.
    if (!order || order.platform !== 'shopify' || order.shop !== shopOf(res))
      return void res.status(404).json({ error: `no order ${req.params.key}` });
    res.json({ order });
  });

  router.get('/shopify/shops', async (_req, res) => {
    res.json({ canInstall: false, shops: [await shopify.access.describe(shopOf(res))] });
  });

  router.use((_req, res) => {
    res.status(403).json({
      error: "a shop's sign-in shows that shop's orders; the rest is for the bridge's operator (ADMIN_TOKEN)",
    });
  });
  router.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof BadInput) return void res.status(400).json({ error: error.message, field: error.field });
    logger.error({ err: error }, 'admin API error (shop)');
    res.status(500).json({ error: 'internal error' });
  });
  return router;
}
