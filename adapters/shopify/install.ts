// Install by OAuth (the authorization code grant), under /shopify: GET /auth?shop=… sends the merchant to the
// shop's consent screen, GET /auth/callback comes back, where @shopify/shopify-api checks the query's HMAC and
// the state cookie and exchanges the code for an expiring offline token. The library reads the route's own Fetch
// Request and answers a Response (its web-api adapter, shopify-app.ts). Only shops the bridge serves get that far
// (allowed-shops.ts): any other is refused with a page that says why.
import { BotActivityDetected, CookieNotFound, InvalidOAuthError, InvalidShopError } from '@shopify/shopify-api';
import {
  merchantPageAnswer,
  plainPageAnswer,
  redirectAnswer,
  repeatsAName,
  routeQuery,
  textAnswer,
  withHeaders,
} from '../../src/core/platform-answers.ts';
import type { PlatformRoute } from '../../src/core/platform-module.ts';
import type { ShopifyFlowParts } from './flow-parts.ts';
import { SHOPIFY_CALLBACK_PATH } from './paths.ts';

/** A plain page of the install's, which the shop's admin never frames. */
const page = (status: number, title: string, paragraph: string): Response =>
  plainPageAnswer(status, { title, paragraphs: [paragraph], link: null, form: null }, { frameAncestors: null });

const whichShop = () =>
  page(400, 'Which shop?', 'Open /shopify/auth?shop=your-store.myshopify.com with your store’s myshopify.com address.');

/** The library's OAuth state cookie (with a .sig beside it), which begin keeps at the callback's path alone. */
const STATE_COOKIE = 'shopify_app_state';
const SPENT_STATE = [STATE_COOKIE, `${STATE_COOKIE}.sig`].map(
  (name) => `${name}=; Path=${SHOPIFY_CALLBACK_PATH}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; SameSite=Lax`,
);

export interface ShopifyInstall {
  /** Off to the shop's consent screen (a shop already checked as allowed). */
  begin(request: Request, shop: string): Promise<Response>;
  /** The shop named by the query if the bridge serves it, or the page saying why not. */
  allowedShopOf(request: Request): Promise<{ shop: string } | { refused: Response }>;
  routes: PlatformRoute[];
}

export function shopifyInstall(parts: ShopifyFlowParts): ShopifyInstall {
  const begin = (request: Request, shop: string) => beginInstall(parts, request, shop);
  const allowedShopOf = (request: Request) => allowedShop(parts, request);
  return {
    begin,
    allowedShopOf,
    routes: [
      {
        method: 'GET',
        path: '/auth',
        async handle(request) {
          const asked = await allowedShopOf(request);
          return 'refused' in asked ? asked.refused : begin(request, asked.shop);
        },
      },
      { method: 'GET', path: '/auth/callback', handle: (request) => callback(parts, request) },
    ],
  };
}

async function beginInstall(
  { shopify, app, logger }: ShopifyFlowParts,
  request: Request,
  shop: string,
): Promise<Response> {
  if (!shopify.appUrl)
    return page(
      503,
      'Installation is not set up',
      'Set SHOPIFY_APP_URL (or PUBLIC_URL) to this bridge’s public https address, restart it, and open this link again.',
    );
  try {
    const begun = (await app.auth.begin({
      shop,
      callbackPath: SHOPIFY_CALLBACK_PATH,
      isOnline: false,
      rawRequest: request,
    })) as Response;
    const location = begun.headers.get('location');
    // A bot is told 410, and never sent on.
    if (!location) return textAnswer(begun.status, '');
    return withHeaders(redirectAnswer(location), {}, begun.headers.getSetCookie());
  } catch (error) {
    if (error instanceof InvalidShopError) return whichShop();
    logger.error({ err: error }, 'could not start a Shopify install');
    return page(500, 'The install could not start', 'Try again in a minute; the bridge’s log says more.');
  }
}

async function allowedShop(
  { app, allowed, logger }: ShopifyFlowParts,
  request: Request,
): Promise<{ shop: string } | { refused: Response }> {
  // The library checks Shopify's signature over one copy of a name and may use the other: such a link is no install's.
  if (repeatsAName(request))
    return { refused: page(400, 'This install link is not valid', 'Open the app again from your Shopify admin.') };
  const shop = app.utils.sanitizeShop((routeQuery(request).shop ?? '').trim().toLowerCase());
  if (!shop) return { refused: whichShop() };
  const allowance = await allowed.check(shop);
  if (allowance.allowed) return { shop };
  logger.warn({ shop }, 'a Shopify install was refused: the shop is not one the bridge serves');
  return { refused: page(403, 'This bridge does not serve this shop', allowance.reason) };
}

async function callback(parts: ShopifyFlowParts, request: Request): Promise<Response> {
  const { shopify, app, installed, embedded, logger } = parts;
  const asked = await allowedShop(parts, request);
  if ('refused' in asked) return asked.refused;
  let session;
  let headers: Headers;
  try {
    ({ session, headers } = await app.auth.callback<Headers>({
      rawRequest: request,
      expiring: true,
    }));
  } catch (error) {
    return callbackFailure(logger, error);
  }
  await shopify.access.saveInstalled(session);
  await installed(session.shop, 'oauth');
  // The state cookie, spent: where begin kept it, the callback's path. The library clears it at / only, which leaves
  // the browser's cookie (one per name and path) and its signature good for the rest of their minute.
  const setCookies = [
    ...headers
      .getSetCookie()
      .filter((cookie) => !cookie.startsWith(`${STATE_COOKIE}=`) && !cookie.startsWith(`${STATE_COOKIE}.sig=`)),
    ...SPENT_STATE,
  ];
  // Outside the admin the merchant has no App Bridge: the bridge's own session signs them in, in this answer to
  // the browser whose state cookie the library just checked. Inside it, the dashboard: Shopify opens the app next.
  if (!embedded)
    return withHeaders(merchantPageAnswer({ shop: session.shop, user: null, mayConnectPlugin: null }), {}, setCookies);
  return withHeaders(redirectAnswer(`/admin/?installed=${encodeURIComponent(session.shop)}`, 303), {}, setCookies);
}

/** The answer to a callback the library refused or could not complete. */
function callbackFailure(logger: ShopifyFlowParts['logger'], error: unknown): Response {
  if (error instanceof BotActivityDetected) return textAnswer(410, '');
  if (error instanceof CookieNotFound || error instanceof InvalidOAuthError || error instanceof InvalidShopError) {
    logger.warn({ reason: (error as Error).name }, 'a Shopify install callback was refused');
    return page(
      400,
      'This install link is not valid any more',
      'It may have expired, or been opened in another browser. Start the install again from the beginning.',
    );
  }
  logger.error({ err: error }, 'a Shopify install could not be completed');
  return page(502, 'Shopify did not complete the install', 'Try again in a minute; the bridge’s log says more.');
}
