// The admin API's door for a merchant's page that the platform's own admin signs in: its bearer is a token the
// platform signed (a session token its admin's script hands the page), which the module checks (MerchantDoor.platformSessions).
// The caller reaches only the shop routes, for that shop alone; any other bearer, the operator's token among
// them, goes on to the next door. A refused token gets the module's status and leaves no record; no answer or
// log line quotes it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MerchantDoor } from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';
import { sameSecret } from '../same-secret.ts';

export interface PlatformSessionDoorParts {
  platform: string;
  sessions: NonNullable<MerchantDoor['platformSessions']>;
  /** ADMIN_TOKEN, which is the operator's whatever its shape. */
  adminToken: string | undefined;
  logger: Logger;
}

export function platformSessionDoor(parts: PlatformSessionDoorParts, shopRoutes: RequestHandler): RequestHandler {
  const { platform, sessions, adminToken, logger } = parts;
  return (req: Request, res: Response, next: NextFunction) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!given || !sessions.recognises(given) || (adminToken !== undefined && sameSecret(given, adminToken)))
      return next();
    sessions.identify(given).then((identified) => {
      if (!identified.ok) {
        logger.warn({ platform, reason: identified.error }, 'a shop session was refused');
        if (identified.status === 401) res.set('www-authenticate', 'Bearer');
        if (identified.headers) res.set(identified.headers);
        return void res.status(identified.status).json({ error: identified.error });
      }
      res.locals.platform = platform;
      res.locals.shop = identified.shop;
      // Who, in an audit record of a change the shop's page makes (the platform's staff id, when its token names one).
      res.locals.user = identified.user;
      shopRoutes(req, res, next);
    }, next);
  };
}
