// The admin API as a shop's own page sees it: who is signed in, that shop's orders, data requests, resyncs,
// test orders, attention and dead letters, and the loyalty account it earns on, within a merchant's reach
// (src/accounts/reach.ts; the routes: docs/accounts.md, "A merchant's reach"). Nothing of another shop (404,
// as if it did not exist), no other account, and nothing of the bridge as a whole: those stay with the
// operator's ADMIN_TOKEN, and answer 403 here. The handlers are in shop-*-routes.ts, one file per part, each
// over a use case of the merchant's service (src/services/merchant.ts).
import express from 'express';
import {
  changeAccount,
  changeSettings,
  makeAccount,
  readAccount,
  readSettings,
  readUsage,
} from './shop-account-routes.ts';
import type { ShopAdminApiParts } from './shop-admin-context.ts';
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
import { cancelTestOrder, sendTestOrder } from './shop-test-orders.ts';

export type { ShopAdminApiParts } from './shop-admin-context.ts';

/** The routes, in the order Express tries them: the first that matches answers. */
export function shopAdminApi(parts: ShopAdminApiParts): express.Router {
  const { merchant, store, partsOf, accounts, storefrontTurnedOn, rewardsChanged, storefrontWidget, logger } = parts;
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
  router.get('/session', readSession(merchant));
  router.get('/orders', listOrders(merchant));
  router.get('/orders/:key', readOrder(merchant));
  router.get('/:platform/shops', listShops(merchant));
  router.get('/account', readAccount(merchant));
  router.post('/account', makeAccount(merchant));
  router.get('/account/settings', readSettings(merchant));
  router.patch('/account', changeAccount(merchant));
  router.patch('/account/settings', changeSettings(merchant));
  router.get('/account/usage', readUsage(merchant));
  router.get('/customers/points', customerPoints(merchant));
  router.post('/adjustments/earn', earnByHand(merchant));
  router.post('/adjustments/redeem', redeemByHand(merchant));
  router.get('/privacy/data-requests', listDataRequests(merchant));
  router.get('/privacy/data-requests/:id/export', exportDataRequest(merchant));
  router.delete('/privacy/data-requests/:id', closeDataRequest(merchant));
  router.post('/resync', startResync(merchant));
  router.get('/resync', listResyncs(merchant));
  router.get('/resync/:id', readResync(merchant));
  router.post('/test-orders', sendTestOrder(merchant));
  router.post('/test-orders/:id/cancel', cancelTestOrder(merchant));
  router.get('/attention', readAttention(merchant));
  router.get('/dead-letters', listDeadLetters(merchant));
  router.post('/dead-letters/:id/retry', retryLetter(merchant));
  router.use(operatorsOnly);
  router.use(shopApiError(logger));
  return router;
}
