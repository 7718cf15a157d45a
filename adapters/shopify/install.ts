// Install by OAuth (the authorization code grant), under /shopify: GET /auth?shop=… sends the merchant to the
// shop's consent screen, GET /auth/callback comes back, where @shopify/shopify-api checks the query's HMAC and
// the state cookie and exchanges the code for an expiring offline token. The library reads a Fetch Request and
// answers a Response (its web-api adapter, shopify-app.ts). Only shops the bridge serves get that far
// (allowed-shops.ts): any other is refused with a page that says why.
import { BotActivityDetected, CookieNotFound, InvalidOAuthError, InvalidShopError } from '@shopify/shopify-api';
import type { PlatformAnswer, PlatformRequest, PlatformRoute } from '../../src/core/platform-module.ts';
import type { ShopifyFlowParts } from './flow-parts.ts';
import { SHOPIFY_CALLBACK_PATH } from './paths.ts';

const WHICH_SHOP: PlatformAnswer = {
  status: 400,
  page: {
    title: 'Which shop?',
    paragraphs: ['Open /shopify/auth?shop=your-store.myshopify.com with your store’s myshopify.com address.'],
  },
};

/** The library's OAuth state cookie (with a .sig beside it), which begin keeps at the callback's path alone. */
const STATE_COOKIE = 'shopify_app_state';
const SPENT_STATE = [STATE_COOKIE, `${STATE_COOKIE}.sig`].map(
  (name) => `${name}=; Path=${SHOPIFY_CALLBACK_PATH}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; SameSite=Lax`,
);

/** The request as the library reads it: its address (the query is what it checks) and the headers it looks at. */
function fetchRequest({ query, headers }: PlatformRequest, path: string): Request {
  const url = new URL(path, 'https://bridge.invalid');
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const kept: Record<string, string> = {};
  for (const name of ['user-agent', 'cookie']) if (headers[name] !== undefined) kept[name] = headers[name];
  return new Request(url, { headers: kept });
}

export interface ShopifyInstall {
  /** Off to the shop's consent screen (a shop already checked as allowed). */
  begin(request: PlatformRequest, shop: string): Promise<PlatformAnswer>;
  /** The shop named by the query if the bridge serves it, or the page saying why not. */
  allowedShopOf(request: PlatformRequest): Promise<{ shop: string } | { refused: PlatformAnswer }>;
  routes: PlatformRoute[];
}

export function shopifyInstall(parts: ShopifyFlowParts): ShopifyInstall {
  const begin = (request: PlatformRequest, shop: string) => beginInstall(parts, request, shop);
  const allowedShopOf = (request: PlatformRequest) => allowedShop(parts, request);
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
  request: PlatformRequest,
  shop: string,
): Promise<PlatformAnswer> {
  if (!shopify.appUrl)
    return {
      status: 503,
      page: {
        title: 'Installation is not set up',
        paragraphs: [
          'Set SHOPIFY_APP_URL (or PUBLIC_URL) to this bridge’s public https address, restart it, and open this link again.',
        ],
      },
    };
  try {
    const begun = (await app.auth.begin({
      shop,
      callbackPath: SHOPIFY_CALLBACK_PATH,
      isOnline: false,
      rawRequest: fetchRequest(request, '/shopify/auth'),
    })) as Response;
    const location = begun.headers.get('location');
    // A bot is told 410, and never sent on.
    if (!location) return { status: begun.status, text: '' };
    return { redirect: location, setCookies: begun.headers.getSetCookie() };
  } catch (error) {
    if (error instanceof InvalidShopError) return WHICH_SHOP;
    logger.error({ err: error }, 'could not start a Shopify install');
    return {
      status: 500,
      page: {
        title: 'The install could not start',
        paragraphs: ['Try again in a minute; the bridge’s log says more.'],
      },
    };
  }
}

async function allowedShop(
  { app, allowed, logger }: ShopifyFlowParts,
  request: PlatformRequest,
): Promise<{ shop: string } | { refused: PlatformAnswer }> {
  const shop = app.utils.sanitizeShop((request.query.shop ?? '').trim().toLowerCase());
  if (!shop) return { refused: WHICH_SHOP };
  const allowance = await allowed.check(shop);
  if (allowance.allowed) return { shop };
  logger.warn({ shop }, 'a Shopify install was refused: the shop is not one the bridge serves');
  return {
    refused: {
      status: 403,
      page: { title: 'This bridge does not serve this shop', paragraphs: [allowance.reason] },
    },
  };
}

async function callback(parts: ShopifyFlowParts, request: PlatformRequest): Promise<PlatformAnswer> {
  const { shopify, app, installed, embedded, logger } = parts;
  const asked = await allowedShop(parts, request);
  if ('refused' in asked) return asked.refused;
  let session;
  let headers: Headers;
  try {
    ({ session, headers } = await app.auth.callback<Headers>({
      rawRequest: fetchRequest(request, SHOPIFY_CALLBACK_PATH),
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
  if (!embedded) return { merchantPage: { shop: session.shop }, setCookies };
  return { redirect: `/admin/?installed=${encodeURIComponent(session.shop)}`, status: 303, setCookies };
}

/** The answer to a callback the library refused or could not complete. */
function callbackFailure(logger: ShopifyFlowParts['logger'], error: unknown): PlatformAnswer {
  if (error instanceof BotActivityDetected) return { status: 410, text: '' };
  if (error instanceof CookieNotFound || error instanceof InvalidOAuthError || error instanceof InvalidShopError) {
    logger.warn({ reason: (error as Error).name }, 'a Shopify install callback was refused');
    return {
      status: 400,
      page: {
        title: 'This install link is not valid any more',
        paragraphs: [
          'It may have expired, or been opened in another browser. Start the install again from the beginning.',
        ],
      },
    };
  }
  logger.error({ err: error }, 'a Shopify install could not be completed');
  return {
    status: 502,
    page: {
      title: 'Shopify did not complete the install',
      paragraphs: ['Try again in a minute; the bridge’s log says more.'],
    },
  };
}
