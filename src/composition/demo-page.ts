// The demo shops' own pages, on a first run: what a merchant sees, without a real platform to sign in through.
// A real merchant proves who they are to their platform (its admin, its signed link); the demo shop has no
// platform, so the proof is a link printed at the terminal where the bridge runs, as the dashboard's sign-in
// is: a random ticket made for this run, one for each demo shop, kept in memory only, that works once (each use
// makes the next link, printed again). It opens the shared merchant page with a session for that demo shop alone:
// the demo's own token family, keyed with a key of this run that is never kept, taken by a door that names the
// session's demo shop (none other), and refused as soon as the demo stops (a store of the merchant's connected).
// The ticket is in the link's query, which no log line carries; the page moves its address off it at once.
import { randomBytes } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { bridgeShopTokens, type TokenPurpose } from '../http/bridge-shop-token.ts';
import { sendStandaloneMerchantPage } from '../http/merchant-page.ts';
import { plainPage } from '../http/plain-page.ts';
import { storePageDoor } from '../http/store-page-door.ts';
import type { Logger } from '../logger.ts';
import { sameSecret } from '../same-secret.ts';

/** Where the demo's page lives, below the bridge's address. */
export const DEMO_PAGE_PREFIX = '/demo';
const OPEN_PATH = '/shop';
const PAGE_PATH = '/store';
/** The demo's sessions: a family of their own, which no platform's door takes, and none of theirs passes here. */
const PURPOSE: TokenPurpose = { prefix: 'lbdemo1.', label: 'loyalty-bridge demo store page v1' };
const WHERE_TO_SIGN_IN =
  'open the demo shop’s link printed where loyalty-bridge runs (it works once; each use prints a new one)';

export interface DemoPageParts {
  /**
   * The demo shops whose pages these are: each platform and the bridge's name for its shop. The first's link is
   * /demo/shop, each other's /demo/shop/<platform>.
   */
  shops: ReadonlyArray<{ platform: string; shop: string }>;
  /** The admin API as a shop's own page calls it (shop-admin-api.ts). */
  shopRoutes: RequestHandler;
  /** Whether the demo still plays: its page opens nothing once it stopped. */
  playing(): boolean;
  /** Told once a shop's link was used: path(platform) is the next one's now (printed for the person at the terminal). */
  used(platform: string): void;
  logger: Logger;
  /** ADMIN_TOKEN, or this run's: never taken for a demo session. */
  adminToken: string | undefined;
  now?: () => number;
}

export interface DemoPage {
  /** The link's path for now to a demo shop's page (the first's, unless `platform` names another), with its ticket: one use. */
  path(platform?: string): string | undefined;
  /** Mounted at DEMO_PAGE_PREFIX. */
  routes: express.Router;
  /** The page's door on the admin API. */
  door: RequestHandler;
  /** Mounted at the bridge's root: what a demo store page's widget asks of its store's own origin, if any. */
  origin: express.Router | undefined;
}

const newTicket = () => randomBytes(24).toString('base64url');

export function demoPage(parts: DemoPageParts): DemoPage {
  const tokens = bridgeShopTokens([randomBytes(32).toString('base64url')], parts.now ?? Date.now, PURPOSE);
  const routes = express.Router();
  const pages = parts.shops.map((each, i) => {
    const suffix = i === 0 ? '' : `/${each.platform}`;
    return { ...each, ...shopPage(parts, { ...each, suffix, tokens, routes }) };
  });
  // The door of the session's own demo shop; a session of none of them meets the first's, which refuses it.
  const door: RequestHandler = (req, res, next) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const claims = given.startsWith(PURPOSE.prefix) ? tokens.read(given) : undefined;
    const page = pages.find(({ shop }) => shop === claims?.shop) ?? pages[0];
    if (!page) return next();
    page.door(req, res, next);
  };
  return {
    path: (platform) => (platform ? pages.find((page) => page.platform === platform) : pages[0])?.path(),
    routes,
    door,
    origin: undefined,
  };
}

/** One demo shop's link, its page and its door, its routes on `routes`. */
function shopPage(
  parts: DemoPageParts,
  at: {
    platform: string;
    shop: string;
    suffix: string;
    tokens: ReturnType<typeof bridgeShopTokens>;
    routes: express.Router;
  },
): { path(): string; door: RequestHandler } {
  const { logger } = parts;
  const { platform, shop, suffix, tokens, routes } = at;
  let ticket = newTicket();
  const path = () => `${DEMO_PAGE_PREFIX}${OPEN_PATH}${suffix}?ticket=${ticket}`;
  const stopped = 'the demo has stopped: a store of yours is connected, and its own page is where you sign in';
  const pagePath = `${DEMO_PAGE_PREFIX}${PAGE_PATH}${suffix}`;
  routes.get(`${OPEN_PATH}${suffix}`, (req, res) => {
    if (!parts.playing())
      return plainPage(
        res,
        410,
        'The demo has stopped',
        'A store of yours is connected: its own page is where you sign in.',
      );
    const given = typeof req.query.ticket === 'string' ? req.query.ticket : '';
    if (!sameSecret(given, ticket))
      return plainPage(
        res,
        401,
        'This link has been used',
        'It opens the demo shop’s page once. A new link is printed where loyalty-bridge runs.',
      );
    ticket = newTicket();
    parts.used(platform);
    logger.info({ platform, shop }, 'the demo shop’s page was opened with the link printed at the terminal');
    sendStandaloneMerchantPage(res, {
      session: tokens.mint(shop),
      frameAncestors: "'none'",
      whereToSignIn: WHERE_TO_SIGN_IN,
      pagePath,
    });
  });
  // The page again, as a reload asks for it: with the tab's own session, never a new one.
  routes.get(`${PAGE_PATH}${suffix}`, (_req, res) =>
    sendStandaloneMerchantPage(res, { frameAncestors: "'none'", whereToSignIn: WHERE_TO_SIGN_IN, pagePath }),
  );
  const door = storePageDoor(
    {
      platform,
      purpose: PURPOSE,
      tokens,
      // Only the demo shop, and only while the demo plays: a session names nothing else, whatever it says.
      refusal: async (claims) =>
        !parts.playing()
          ? { status: 401, error: stopped }
          : claims.shop !== shop
            ? { status: 403, error: 'this session opens the demo shop only' }
            : undefined,
      ended: `this sign-in has ended: ${WHERE_TO_SIGN_IN}`,
      logger,
      adminToken: parts.adminToken,
    },
    parts.shopRoutes,
  );
  return { path, door };
}
