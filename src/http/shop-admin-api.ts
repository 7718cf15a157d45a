// The admin API as a shop's own page sees it: who is signed in, that shop's orders, data requests, resyncs,
// test orders, attention and dead letters, and the loyalty account it earns on, within a merchant's reach
// (src/accounts/reach.ts; the routes: docs/accounts.md, "A merchant's reach"). Nothing of another shop (404,
// as if it did not exist), no other account, and nothing of the bridge as a whole: those stay with the
// operator's ADMIN_TOKEN, and answer 403 here. The handlers are in shop-*-routes.ts, one file per part.
import express from 'express';
import {
  changeAccount,
  changeSettings,
  makeAccount,
  readAccount,
  readSettings,
  readUsage,
} from './shop-account-routes.ts';
import { shopAdminContext, type ShopAdminApiParts } from './shop-admin-context.ts';
import { operatorsOnly, shopApiError } from './shop-admin-errors.ts';
import {
  listDeadLetters,
  listOrders,
  listShops,
  readAttention,
  readOrder,
  readSession,
  retryLetter,
} from './shop-order-routes.ts';
import { customerPoints, earnByHand, redeemByHand } from './shop-points-routes.ts';
import { closeDataRequest, exportDataRequest, listDataRequests } from './shop-privacy-routes.ts';
import { listResyncs, readResync, startResync } from './shop-resync-routes.ts';
import { shopStorefrontApi } from './shop-storefront-api.ts';
import { shopTestOrders } from './shop-test-orders.ts';

export type { ShopAdminApiParts } from './shop-admin-context.ts';

/** The routes, in the order Express tries them: the first that matches answers. */
export function shopAdminApi(parts: ShopAdminApiParts): express.Router {
  const { store, partsOf, accounts, ingest, storefrontTurnedOn, rewardsChanged, storefrontWidget, logger } = parts;
  const ctx = shopAdminContext(parts);
  const router = express.Router();
  router.use(express.json({ limit: '100kb' }));
  router.use(
    shopStorefrontApi({
      store,
      partsOf,
      accounts,
      ...(storefrontTurnedOn ? { turnedOn: storefrontTurnedOn } : {}),
      ...(rewardsChanged ? { rewardsChanged } : {}),
      widget: storefrontWidget,
    }),
  );
  router.get('/session', readSession(ctx));
  router.get('/orders', listOrders(ctx));
  router.get('/orders/:key', readOrder(ctx));
  router.get('/:platform/shops', listShops(ctx));
  router.get('/account', readAccount(ctx));
  router.post('/account', makeAccount(ctx));
  router.get('/account/settings', readSettings(ctx));
  router.patch('/account', changeAccount(ctx));
  router.patch('/account/settings', changeSettings(ctx));
  router.get('/account/usage', readUsage(ctx));
  router.get('/customers/points', customerPoints(ctx));
  router.post('/adjustments/earn', earnByHand(ctx));
  router.post('/adjustments/redeem', redeemByHand(ctx));
  router.get('/privacy/data-requests', listDataRequests(ctx));
  router.get('/privacy/data-requests/:id/export', exportDataRequest(ctx));
  router.delete('/privacy/data-requests/:id', closeDataRequest(ctx));
  router.post('/resync', startResync(ctx));
  router.get('/resync', listResyncs(ctx));
  router.get('/resync/:id', readResync(ctx));
  router.use(shopTestOrders({ store, ingest, logger, ownAccount: ctx.ownAccount, hourly: ctx.hourly }));
  router.get('/attention', readAttention(ctx));
  router.get('/dead-letters', listDeadLetters(ctx));
  router.post('/dead-letters/:id/retry', retryLetter(ctx));
  router.use(operatorsOnly);
  router.use(shopApiError(logger));
  return router;
}
