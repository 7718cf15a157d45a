// The admin API's door for a BigCommerce store's own page: its bearer is the
// store-page token the load callback handed the page (bridge-shop-token.ts,
// lbb1.), naming the store and the control-panel user, for an hour. The store
// must still have the app installed and be one the bridge serves
// (allowed-stores.ts), and the user not removed by the store's owner since the
// token was made (removed-users.ts). The caller then reaches only the shop
// routes (shop-admin-api.ts), for that store alone. Any other bearer goes on
// to the next door. A refused token gets 401 before the body is read, and
// leaves no record; no answer or log line quotes it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AllowedStores } from '../../adapters/bigcommerce/allowed-stores.ts';
import type { RemovedUsers } from '../../adapters/bigcommerce/removed-users.ts';
import type { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import type { Logger } from '../logger.ts';
import { BIGCOMMERCE_STORE_PAGE, isBridgeShopToken, type BridgeShopTokens } from './bridge-shop-token.ts';

export interface BigCommerceMerchantDoorParts {
  tokens: BridgeShopTokens;
  /** The app's installs: a store served only through BIGCOMMERCE_ACCESS_TOKEN has no app, and no page. */
  stores: Pick<BigCommerceStores, 'existing'>;
  allowed: Pick<AllowedStores, 'check'>;
  removedUsers: RemovedUsers;
  logger: Logger;
}

export function bigCommerceMerchantDoor(
  { tokens, stores, allowed, removedUsers, logger }: BigCommerceMerchantDoorParts,
  shopRoutes: RequestHandler,
): RequestHandler {
  const refuse = (res: Response, error: string, status: 401 | 403 = 401) => {
    logger.warn({ platform: 'bigcommerce', reason: error }, 'a store page session was refused');
    if (status === 401) res.set('www-authenticate', 'Bearer');
    res.status(status).json({ error });
  };
  /** Why a session for this store and user opens nothing now, if it does not. */
  const refusal = async (claims: { shop: string; user?: string; issuedAt: number }) => {
    if (!(await stores.existing(claims.shop)))
      return { status: 401 as const, error: 'the app is not installed on this store any more' };
    const allowance = await allowed.check(claims.shop);
    if (!allowance.allowed) return { status: 403 as const, error: allowance.reason };
    if (claims.user !== undefined && (await removedUsers.removedSince(claims.shop, claims.user, claims.issuedAt)))
      return { status: 401 as const, error: 'the store’s owner removed this user’s access' };
    return undefined;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!isBridgeShopToken(given, BIGCOMMERCE_STORE_PAGE)) return next();
    const claims = tokens.read(given);
    if (!claims) return refuse(res, 'this sign-in has ended: open the app again from your BigCommerce control panel');
    refusal(claims).then((refused) => {
      if (refused) return refuse(res, refused.error, refused.status);
      res.locals.platform = 'bigcommerce';
      res.locals.shop = claims.shop;
      res.locals.user = claims.user;
      shopRoutes(req, res, next);
    }, next);
  };
}
