// The bounce page, as Shopify's own libraries answer a document request inside the admin whose session token
// is missing, expired or invalid: a page that loads only App Bridge, which asks the admin for a fresh token
// and loads the address again with it. So a merchant who reloads the app after its link went stale sees the
// app, never an error page. It never loops: the address carries `bounced=<unix seconds>`, and a request back
// from a bounce within BOUNCE_WINDOW_S still without a good token gets a page that says what to do.
import {
  embeddedPageAnswer,
  redirectAnswer,
  routeQuery,
  textAnswer,
  type RouteQuery,
} from '../../src/core/platform-answers.ts';
import { MERCHANT_VIEW_NAME, type PlatformRoute } from '../../src/core/platform-module.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';
import { APP_BRIDGE_URL, SHOPIFY_APP_URL_PATH, SHOPIFY_BOUNCE_PATH, shopifyHead } from './paths.ts';

/** Marks a reload that comes back from the bounce page, with when it left (unix seconds). */
export const BOUNCED_PARAM = 'bounced';
/** A return from the bounce page takes a few seconds at most (App Bridge asks the admin for a token and reloads). */
export const BOUNCE_WINDOW_S = 30;

/** Where the bounce may send App Bridge back to: the App URL, and the merchant page's views under it. */
const returnsTo = (path: string) =>
  path === SHOPIFY_APP_URL_PATH ||
  (path.startsWith(`${SHOPIFY_APP_URL_PATH}/`) && MERCHANT_VIEW_NAME.test(path.slice(SHOPIFY_APP_URL_PATH.length + 1)));

/** Whether this request is the return of a bounce made moments ago (a little clock skew between bridges allowed). */
export function cameBackFromBounce(query: RouteQuery, nowS = Math.floor(Date.now() / 1000)): boolean {
  const value = query[BOUNCED_PARAM];
  if (typeof value !== 'string' || !/^\d{1,12}$/.test(value)) return false;
  const age = nowS - Number(value);
  return age >= -5 && age <= BOUNCE_WINDOW_S;
}

/** Sends a document request to the bounce page, to come back to the same address with a fresh session token. */
export function redirectToBounce(request: Request, appUrl: string): Response {
  const query = routeQuery(request);
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (name !== 'id_token') params.set(name, value);
  params.set(BOUNCED_PARAM, String(Math.floor(Date.now() / 1000)));
  // Back to the view the merchant reloaded (the address the admin keeps), or else the App URL.
  const asked = new URL(request.url).pathname;
  const path = returnsTo(asked) ? asked : SHOPIFY_APP_URL_PATH;
  const reload = `${trimTrailing(appUrl, '/')}${path}?${params.toString()}`;
  const bounce = new URLSearchParams({
    shop: query.shop ?? '',
    ...(typeof query.host === 'string' ? { host: query.host } : {}),
    'shopify-reload': reload,
  });
  return redirectAnswer(`${SHOPIFY_BOUNCE_PATH}?${bounce.toString()}`);
}

/** GET /shopify/session-token: App Bridge alone, framed by the shop's admin. */
export function bounceRoute({
  apiKey,
  appUrl,
  sanitizeShop,
}: {
  apiKey: string;
  /** The bridge's public address: where App Bridge is sent back to. */
  appUrl: string;
  /** A shop domain, or undefined when the text is not one (the library's sanitizeShop). */
  sanitizeShop: (shop: string) => string | undefined;
}): PlatformRoute {
  const appOrigin = new URL(appUrl).origin;
  return {
    method: 'GET',
    path: '/session-token',
    async handle(request) {
      const query = routeQuery(request);
      const shop = sanitizeShop(query.shop ?? '');
      let target: URL | undefined;
      try {
        target = new URL(query['shopify-reload'] ?? '');
      } catch {
        target = undefined;
      }
      // App Bridge goes back only to this bridge's App URL (or a view under it): never an address a link chose.
      if (!shop || !target || target.origin !== appOrigin || !returnsTo(target.pathname))
        return textAnswer(400, 'This page is only reached from the app inside the Shopify admin.');
      return embeddedPageAnswer({ ...shopifyHead(shop, apiKey, [APP_BRIDGE_URL]), merchantPage: false });
    },
  };
}
