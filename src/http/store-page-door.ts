// The admin API's door for a store's own page outside a platform's admin: its bearer is the session the bridge
// handed the page (bridge-shop-token.ts), naming the store (and the user, where the platform says), for an
// hour. Each platform says when a session opens nothing any more. The caller reaches only the shop routes, for
// that store alone; any other bearer goes on to the next door. A refused session gets 401 before the body is
// read and leaves no record; no answer or log line quotes it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.ts';
import { sameSecret } from '../same-secret.ts';
import { isBridgeShopToken, type BridgeShopTokens, type TokenPurpose } from './bridge-shop-token.ts';

export interface SessionClaims {
  shop: string;
  user?: string;
  mayConnectPlugin?: boolean;
  issuedAt: number;
}

export interface StorePageDoorParts {
  platform: string;
  purpose: TokenPurpose;
  tokens: BridgeShopTokens;
  /** Why a session for this store (and user) opens nothing now, if it does not. */
  refusal(claims: SessionClaims): Promise<{ status: 401 | 403; error: string } | undefined>;
  /** What an expired or forged session is told: where to open the page again. */
  ended: string;
  logger: Logger;
  /** ADMIN_TOKEN, which is the operator's whatever its shape: it goes on to the operator's door. */
  adminToken?: string | undefined;
}

export function storePageDoor(parts: StorePageDoorParts, shopRoutes: RequestHandler): RequestHandler {
  const { platform, purpose, tokens, refusal, ended, logger, adminToken } = parts;
  const refuse = (res: Response, error: string, status: 401 | 403 = 401) => {
    logger.warn({ platform, reason: error }, 'a store page session was refused');
    if (status === 401) res.set('www-authenticate', 'Bearer');
    res.status(status).json({ error });
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!isBridgeShopToken(given, purpose) || (adminToken !== undefined && sameSecret(given, adminToken)))
      return next();
    const claims = tokens.read(given);
    if (!claims) return refuse(res, ended);
    refusal(claims).then((refused) => {
      if (refused) return refuse(res, refused.error, refused.status);
      res.locals.platform = platform;
      res.locals.shop = claims.shop;
      res.locals.user = claims.user;
      res.locals.mayConnectPlugin = claims.mayConnectPlugin;
      shopRoutes(req, res, next);
    }, next);
  };
}
