// Mounts a platform module's routes (src/core/platform-module.ts) at /<name>, and its merchant page's door on
// the admin API. A module answers in plain values; this file turns them into HTTP: JSON, text, a redirect,
// or the shared merchant page with a session of the module's own token family (one purpose per platform).
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { PlatformAnswer, PlatformModule, PlatformParts, PlatformRequest } from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';
import { answerOnceDropped, type BodyLimits, type BodyRead } from './body-reader.ts';
import type { BridgeShopTokens, TokenPurpose } from './bridge-shop-token.ts';
import { sendEmbeddedPage, sendStandaloneMerchantPage } from './merchant-page.ts';
import { platformSessionDoor } from './platform-session-door.ts';
import { plainPage } from './plain-page.ts';
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

export function moduleSurface({
  module,
  parts,
  tokens,
  shopRoutes,
  readBody,
  logger,
  pageOff,
  adminToken,
}: ModuleSurfaceParts): {
  routes: express.Router;
  door: RequestHandler | undefined;
} {
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
  const lookFile = module.look ? fileURLToPath(module.look) : undefined;
  if (lookFile)
    router.get('/look.css', (_req, res) => {
      res.set('x-content-type-options', 'nosniff');
      res.type('text/css').sendFile(lookFile, { maxAge: 0 });
    });
  const pageOf = { frameAncestors, signInAgain, whereToSignIn, pagePath, ...(look ? { look } : {}) };
  const answer = (res: Response, given: PlatformAnswer) => {
    for (const cookie of given.setCookies ?? []) res.append('set-cookie', cookie);
    if (given.headers) res.set(given.headers);
    if ('redirect' in given) return res.redirect(given.status ?? 302, given.redirect);
    if ('merchantPage' in given) {
      const opened = given.merchantPage;
      if (opened === 'no-session') return sendStandaloneMerchantPage(res, pageOf);
      if (pageOff) return plainPage(res, 503, 'Not available yet', pageOff, { frameAncestors });
      // A session only where a door will take it back: a page that could never call the API is no page.
      if (!parts.door) throw new Error(`the ${name} module answered with its merchant page, but has no door`);
      const { shop, user, mayConnectPlugin } = opened;
      if (typeof shop !== 'string' || shop === '')
        throw new Error(`the ${name} module answered with its merchant page for no shop`);
      return sendStandaloneMerchantPage(res, { ...pageOf, session: tokens.mint(shop, user, mayConnectPlugin) });
    }
    // Signed in by the platform's own scripts, whose tokens only its door takes.
    if ('embeddedPage' in given) {
      if (!parts.door?.platformSessions)
        throw new Error(`the ${name} module answered with an embedded page, but its door takes no session of its own`);
      const { merchantPage, ...head } = given.embeddedPage;
      return sendEmbeddedPage(res, head, merchantPage);
    }
    if ('page' in given) {
      const { title, paragraphs, link, form } = given.page;
      return plainPage(res, given.status, title, paragraphs, {
        frameAncestors: given.frameAncestors ?? frameAncestors,
        ...(link ? { link } : {}),
        ...(form ? { form } : {}),
      });
    }
    if ('download' in given)
      return res
        .status(given.status)
        .set({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
        .type(given.download.contentType)
        .attachment(given.download.fileName)
        .send(Buffer.from(given.download.bytes));
    if ('script' in given)
      return res
        .status(given.status)
        .set({ 'cache-control': `public, max-age=${given.maxAgeSeconds}`, 'x-content-type-options': 'nosniff' })
        .type('application/javascript; charset=utf-8')
        .send(given.script);
    res.status(given.status).set('cache-control', 'no-store');
    // The answer's kind is its type, whatever headers the module added: nothing it echoes is ever read as a page.
    res.set('x-content-type-options', 'nosniff');
    if ('json' in given) return res.type('application/json').json(given.json);
    return res.type('text/plain').send(given.text);
  };
  for (const route of parts.routes ?? []) {
    const { cors } = route;
    const handle = async (req: Request, res: Response) => {
      if (cors) setCorsHeaders(cors, req, res);
      let body: Buffer = Buffer.alloc(0);
      if (route.method === 'POST') {
        const read = await readBody(req, Math.min(route.maxBodyBytes ?? Infinity, ROUTE_BODY_LIMITS.maxBytes));
        if (!read.ok) {
          if (req.destroyed || res.destroyed) return;
          // Whatever of the body is still on its way is not read: the connection closes after the answer. A body too
          // large is read and dropped for a moment, so that a proxy in front is not reset before it reads the answer.
          const error = { error: BODY_REFUSED[read.reason] };
          if (read.reason === 'too_large')
            return answerOnceDropped(req, (close) =>
              res
                .set(close ? { connection: 'close' } : {})
                .status(413)
                .json(error),
            );
          res.set(read.status === 503 ? { 'retry-after': '5' } : { connection: 'close' });
          res.status(read.status).json(error);
          return;
        }
        body = read.body;
      }
      const request: PlatformRequest = {
        method: route.method,
        path: route.path,
        query: Object.fromEntries(
          Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        ),
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') : value]),
        ),
        body,
      };
      try {
        answer(res, await route.handle(request));
      } catch (error) {
        logger.error({ err: error, platform: name, path: route.path }, 'a platform route failed');
        if (!res.headersSent) res.status(500).json({ error: 'something went wrong on the bridge; try again' });
      }
    };
    if (route.method === 'GET') router.get(route.path, handle);
    else router.post(route.path, handle);
    if (cors) router.options(route.path, (req, res) => answerPreflight(cors, route.method, req, res));
  }
  // The page itself again, as a reload asks for it: with the tab's own session, never a new one.
  if ((parts.door || pageOff) && pagePath && !parts.door?.noTabPage)
    router.get('/store', (_req, res) => sendStandaloneMerchantPage(res, pageOf));
  const pageDoor = parts.door
    ? storePageDoor(
        {
          platform: name,
          purpose: modulePagePurpose(name),
          tokens,
          ended: signIn
            ? `this sign-in has ended: sign in again at ${signInAgain}`
            : `this sign-in has ended: ${whereToSignIn} again`,
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
  // The bridge's own sessions first, then the platform's: each passes on what is not of its family.
  const door: RequestHandler | undefined =
    pageDoor && ownDoor
      ? (req, res, next) => pageDoor(req, res, (error?: unknown) => (error ? next(error) : ownDoor(req, res, next)))
      : (pageDoor ?? ownDoor);
  return { routes: router, door };
}
