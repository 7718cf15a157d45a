// Mounts a platform module's routes (src/core/platform-module.ts) at /<name>, and its merchant page's door on
// the admin API. Each route's body is read here within the limits; a route is a Fetch handler, whose Request and
// Response module-answer.ts makes and serves, and whose merchant page carries a session of the module's own token
// family (one purpose per platform).
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type Request, type RequestHandler, type Response } from 'express';
import {
  MERCHANT_VIEW_NAME,
  MERCHANT_VIEW_SEGMENT,
  type PlatformModule,
  type PlatformParts,
  type PlatformRoute,
} from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';
import { answerOnceDropped, type BodyLimits, type BodyRead } from './body-reader.ts';
import type { BridgeShopTokens, TokenPurpose } from './bridge-shop-token.ts';
import { sendStandaloneMerchantPage } from './merchant-page.ts';
import { moduleRequest, sendModuleAnswer, type ModulePages } from './module-answer.ts';
import { platformSessionDoor } from './platform-session-door.ts';
import { answerPreflight, setCorsHeaders } from './route-cors.ts';
import { storePageDoor } from './store-page-door.ts';

/**
 * A callback or sign-in is small and comes at once: nothing bigger or slower is read, a few at a time across every
 * module's routes (body-reader.ts), and one declared bigger is refused before a byte of it is read.
 */
export const ROUTE_BODY_LIMITS: BodyLimits = { maxBytes: 64 * 1024, deadlineMs: 10_000, concurrentReads: 8 };

const BODY_REFUSED: Readonly<Record<Exclude<BodyRead, { ok: true }>['reason'], string>> = {
  too_large: 'the body is too large',
  too_slow: 'the body did not arrive in time',
  busy: 'too many requests at once; try again',
  unreadable: 'the body could not be read',
};

/** The sessions of a module's merchant page: a prefix and a key label of the platform's own. */
export const modulePagePurpose = (name: string): TokenPurpose => ({
  prefix: `lbp1.${name}.`,
  label: `loyalty-bridge ${name} store page v1`,
});

export interface ModuleSurfaceParts {
  module: Pick<PlatformModule, 'name' | 'names' | 'look'>;
  parts: Pick<PlatformParts, 'routes' | 'door'>;
  /** Keyed from the key the bridge keeps for the platform's pages. */
  tokens: BridgeShopTokens;
  /** The admin API as a shop's own page calls it (shop-admin-api.ts). */
  shopRoutes: RequestHandler;
  /** Reads a POST's body within ROUTE_BODY_LIMITS: one reader for every module's routes, so the limits hold across them. */
  readBody: (req: IncomingMessage, maxBytes?: number) => Promise<BodyRead>;
  logger: Logger;
  /** Why its page is off though it has a door (no key can be kept for its sessions): a sign-in answers this, 503. */
  pageOff?: string;
  /** ADMIN_TOKEN: never taken for a platform's own session, whatever its shape. */
  adminToken?: string | undefined;
}

export function moduleSurface(surface: ModuleSurfaceParts): {
  routes: express.Router;
  door: RequestHandler | undefined;
} {
  const { module, parts, tokens, pageOff } = surface;
  const { name, names } = module;
  const pagePath = parts.door?.reloadsSignIn ? undefined : `/${name}/store`;
  const signIn = parts.door?.signIn;
  const whereToSignIn = signIn?.words ?? `open loyalty-bridge from ${names.admin}`;
  // Where no admin opens the page, the page links to the module's own sign-in; else to the admin its door names.
  const signInAgain = signIn ? `/${name}${signIn.path}` : (parts.door?.signInAgain ?? undefined);
  const frameAncestors = parts.door?.frameAncestors ?? "'none'";
  const router = express.Router();
  // The platform's look, linked by its merchant page outside its admin: a path of the bridge's, as the CSP allows.
  const look = module.look ? `/${name}/look.css` : undefined;
  if (module.look) serveLook(router, fileURLToPath(module.look));
  const pageOf = { frameAncestors, signInAgain, whereToSignIn, pagePath, ...(look ? { look } : {}) };
  const pages: ModulePages = { name, door: parts.door, tokens, pageOf, pageOff, frameAncestors };
  for (const route of parts.routes ?? []) mountRoute(router, route, pages, surface);
  // The page itself again, as a reload asks for it: with the tab's own session, never a new one.
  if ((parts.door || pageOff) && pagePath && !parts.door?.noTabPage)
    router.get('/store', (_req, res) => sendStandaloneMerchantPage(res, pageOf));
  const ended = signIn
    ? `this sign-in has ended: sign in again at ${signInAgain}`
    : `this sign-in has ended: ${whereToSignIn} again`;
  return { routes: router, door: moduleDoor(surface, ended) };
}

function serveLook(router: express.Router, lookFile: string): void {
  router.get('/look.css', (_req, res) => {
    res.set('x-content-type-options', 'nosniff');
    res.type('text/css').sendFile(lookFile, { maxAge: 0 });
  });
}

/** One route of the module's: its body read within the limits, its answer served, its preflight where it has CORS. */
function mountRoute(
  router: express.Router,
  route: PlatformRoute,
  pages: ModulePages,
  { readBody, logger }: Pick<ModuleSurfaceParts, 'readBody' | 'logger'>,
): void {
  const { cors } = route;
  const { name } = pages;
  const handle = async (req: Request, res: Response) => {
    if (route.path.endsWith(MERCHANT_VIEW_SEGMENT) && !MERCHANT_VIEW_NAME.test(String(req.params.view)))
      return void res.status(404).json({ error: 'not found' });
    if (cors) setCorsHeaders(cors, req, res);
    let body: Buffer = Buffer.alloc(0);
    if (route.method === 'POST') {
      const read = await readBody(req, Math.min(route.maxBodyBytes ?? Infinity, ROUTE_BODY_LIMITS.maxBytes));
      if (!read.ok) return refuseBody(req, res, read);
      body = read.body;
    }
    try {
      await sendModuleAnswer(res, await route.handle(moduleRequest(req, name, route, body)), pages);
    } catch (error) {
      logger.error({ err: error, platform: name, path: route.path }, 'a platform route failed');
      if (!res.headersSent) res.status(500).json({ error: 'something went wrong on the bridge; try again' });
    }
  };
  if (route.method === 'GET') router.get(route.path, handle);
  else router.post(route.path, handle);
  if (cors) router.options(route.path, (req, res) => answerPreflight(cors, route.method, req, res));
}

/**
 * A body not read: whatever of it is still on its way is not read, and the connection closes after the answer. A
 * body too large is read and dropped for a moment, so that a proxy in front is not reset before it reads the answer.
 */
function refuseBody(req: Request, res: Response, read: Exclude<BodyRead, { ok: true }>): void {
  if (req.destroyed || res.destroyed) return;
  const error = { error: BODY_REFUSED[read.reason] };
  if (read.reason === 'too_large') {
    answerOnceDropped(req, (close) =>
      res
        .set(close ? { connection: 'close' } : {})
        .status(413)
        .json(error),
    );
    return;
  }
  res.set(read.status === 503 ? { 'retry-after': '5' } : { connection: 'close' });
  res.status(read.status).json(error);
}

/** The door of the module's merchant page on the admin API: the bridge's own sessions first, then the platform's. */
function moduleDoor(
  { module, parts, tokens, shopRoutes, logger, adminToken }: ModuleSurfaceParts,
  ended: string,
): RequestHandler | undefined {
  const { name } = module;
  const pageDoor = parts.door
    ? storePageDoor(
        {
          platform: name,
          purpose: modulePagePurpose(name),
          tokens,
          ended,
          logger,
          refusal: parts.door.refusal,
          adminToken,
        },
        shopRoutes,
      )
    : undefined;
  const sessions = parts.door?.platformSessions;
  const ownDoor = sessions
    ? platformSessionDoor({ platform: name, sessions, adminToken, logger }, shopRoutes)
    : undefined;
  // Each passes on what is not of its family.
  return pageDoor && ownDoor
    ? (req, res, next) => pageDoor(req, res, (error?: unknown) => (error ? next(error) : ownDoor(req, res, next)))
    : (pageDoor ?? ownDoor);
}
