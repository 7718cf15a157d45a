// Mounts a platform module's routes (src/core/platform-module.ts) at /<name>, and its merchant page's door on
// the admin API. A module answers in plain values; this file turns them into HTTP: JSON, text, a redirect,
// or the shared merchant page with a session of the module's own token family (one purpose per platform).
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { PlatformAnswer, PlatformModule, PlatformParts, PlatformRequest } from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';
import type { BridgeShopTokens, TokenPurpose } from './bridge-shop-token.ts';
import { sendStandaloneMerchantPage } from './merchant-page.ts';
import { storePageDoor } from './store-page-door.ts';

/** A callback or sign-in is small; nothing bigger is read. */
const MAX_ROUTE_BODY_BYTES = 64 * 1024;

/** The sessions of a module's merchant page: a prefix and a key label of the platform's own. */
export const modulePagePurpose = (name: string): TokenPurpose => ({
  prefix: `lbp1.${name}.`,
  label: `loyalty-bridge ${name} store page v1`,
});

export interface ModuleSurfaceParts {
  module: Pick<PlatformModule, 'name' | 'names'>;
  parts: Pick<PlatformParts, 'routes' | 'door'>;
  /** Keyed from the key the bridge keeps for the platform's pages. */
  tokens: BridgeShopTokens;
  /** The admin API as a shop's own page calls it (shop-admin-api.ts). */
  shopRoutes: RequestHandler;
  logger: Logger;
}

export function moduleSurface({ module, parts, tokens, shopRoutes, logger }: ModuleSurfaceParts): {
  routes: express.Router;
  door: RequestHandler | undefined;
} {
  const { name, names } = module;
  const pagePath = `/${name}/store`;
  const whereToSignIn = `open loyalty-bridge from ${names.admin}`;
  const frameAncestors = parts.door?.frameAncestors ?? "'none'";
  const router = express.Router();
  const answer = (res: Response, given: PlatformAnswer) => {
    if ('redirect' in given) return res.redirect(302, given.redirect);
    if ('merchantPage' in given) {
      // A session only where a door will take it back: a page that could never call the API is no page.
      if (!parts.door) throw new Error(`the ${name} module answered with its merchant page, but has no door`);
      const { shop, user } = given.merchantPage;
      if (typeof shop !== 'string' || shop === '')
        throw new Error(`the ${name} module answered with its merchant page for no shop`);
      return sendStandaloneMerchantPage(res, {
        session: tokens.mint(shop, user),
        frameAncestors,
        whereToSignIn,
        pagePath,
      });
    }
    res.status(given.status).set({ 'cache-control': 'no-store', ...given.headers });
    if ('json' in given) return res.json(given.json);
    return res.type('text/plain').send(given.text);
  };
  for (const route of parts.routes ?? []) {
    const handle = async (req: Request, res: Response) => {
      const request: PlatformRequest = {
        method: route.method,
        path: route.path,
        query: Object.fromEntries(
          Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        ),
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') : value]),
        ),
        body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      };
      try {
        answer(res, await route.handle(request));
      } catch (error) {
        logger.error({ err: error, platform: name, path: route.path }, 'a platform route failed');
        if (!res.headersSent) res.status(500).json({ error: 'something went wrong on the bridge; try again' });
      }
    };
    if (route.method === 'GET') router.get(route.path, handle);
    else router.post(route.path, express.raw({ type: () => true, limit: MAX_ROUTE_BODY_BYTES }), handle);
  }
  // The page itself again, as a reload asks for it: with the tab's own session, never a new one.
  if (parts.door)
    router.get('/store', (_req, res) => sendStandaloneMerchantPage(res, { frameAncestors, whereToSignIn, pagePath }));
  const door = parts.door
    ? storePageDoor(
        {
          platform: name,
          purpose: modulePagePurpose(name),
          tokens,
          ended: `this sign-in has ended: ${whereToSignIn} again`,
          logger,
          refusal: parts.door.refusal,
        },
        shopRoutes,
      )
    : undefined;
  return { routes: router, door };
}
