// The admin API's door for a BigCommerce store's own page: its bearer is the
// store-page token the load callback handed the page (bridge-shop-token.ts,
// lbb1.), naming the store and the control-panel user, for an hour. The store
// must still have the app installed. The caller then reaches only the shop
// routes (shop-admin-api.ts), for that store alone. Any other bearer goes on
// to the next door. A refused token gets 401 before the body is read, and
// leaves no record; no answer or log line quotes it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import type { Logger } from '../logger.ts';
import { BIGCOMMERCE_STORE_PAGE, isBridgeShopToken, type BridgeShopTokens } from './bridge-shop-token.ts';

export interface BigCommerceMerchantDoorParts {
  tokens: BridgeShopTokens;
  stores: Pick<BigCommerceStores, 'get'>;
  logger: Logger;
}

export function bigCommerceMerchantDoor(
  { tokens, stores, logger }: BigCommerceMerchantDoorParts,
  shopRoutes: RequestHandler,
): RequestHandler {
  const refuse = (res: Response, error: string) => {
    logger.warn({ platform: 'bigcommerce', reason: error }, 'a store page session was refused');
    res.status(401).set('www-authenticate', 'Bearer').json({ error });
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!isBridgeShopToken(given, BIGCOMMERCE_STORE_PAGE)) return next();
    const claims = tokens.read(given);
    if (!claims) return refuse(res, 'this sign-in has ended: open the app again from your BigCommerce control panel');
    stores.get(claims.shop).then((installed) => {
      if (!installed) return refuse(res, 'the app is not installed on this store any more');
      res.locals.platform = 'bigcommerce';
      res.locals.shop = claims.shop;
      res.locals.user = claims.user;
      shopRoutes(req, res, next);
    }, next);
  };
}
