// Shopify's ways in, under /shopify: GET /app, the App URL (shopify-app-url.ts); GET /store, the address of
// the merchant's page outside the admin, so that a reload keeps the tab's session; GET /auth?shop=… and
// /auth/callback, install by OAuth (the authorization code grant), where @shopify/shopify-api checks the
// query's HMAC and the state cookie and exchanges the code for an expiring offline token. Only shops the
// bridge serves get that far (allowed-shops.ts): any other is refused with a page that says why.
import express, { type Request, type Response } from 'express';
import { BotActivityDetected, CookieNotFound, InvalidOAuthError, InvalidShopError } from '@shopify/shopify-api';
import { plainPage } from './plain-page.ts';
import type { ShopifyAuthParts } from './shopify-auth-parts.ts';
import { MERCHANT_VIEWS, sendShopifyStorePage } from './merchant-page.ts';
import { shopifyAppUrl } from './shopify-app-url.ts';
import { bouncePage } from './shopify-bounce.ts';

export const SHOPIFY_CALLBACK_PATH = '/shopify/auth/callback';
/** The App URL: shopify.app.toml's application_url, the Dev Dashboard's App URL. */
export const SHOPIFY_APP_URL_PATH = '/shopify/app';

export function shopifyAuthRoutes(parts: ShopifyAuthParts): express.Router {
  const { shopify, allowed, bridgeTokens, installed, logger } = parts;
  const router = express.Router();
  const app = shopify.app;
  if (!app) return router;

  /** Off to the shop's consent screen (a shop already checked as allowed). */
  const beginInstall = async (req: Request, res: Response, shop: string) => {
    if (!shopify.appUrl)
      return plainPage(
        res,
        503,
        'Installation is not set up',
        'Set SHOPIFY_APP_URL (or PUBLIC_URL) to this bridge’s public https address, restart it, and open this link again.',
      );
    try {
      await app.auth.begin({
        shop,
        callbackPath: SHOPIFY_CALLBACK_PATH,
        isOnline: false,
        rawRequest: req,
        rawResponse: res,
      });
    } catch (error) {
      if (error instanceof InvalidShopError)
        return plainPage(
          res,
          400,
          'Which shop?',
          'Open /shopify/auth?shop=your-store.myshopify.com with your store’s myshopify.com address.',
        );
      logger.error({ err: error }, 'could not start a Shopify install');
      if (!res.headersSent)
        plainPage(res, 500, 'The install could not start', 'Try again in a minute; the bridge’s log says more.');
    }
  };

  /** The shop named by the query, if it is one the bridge serves; otherwise the page saying why has been sent. */
  const allowedShopOf = async (req: Request, res: Response): Promise<string | undefined> => {
    const shop = app.utils.sanitizeShop(
      String(req.query.shop ?? '')
        .trim()
        .toLowerCase(),
    );
    if (!shop)
      return void plainPage(
        res,
        400,
        'Which shop?',
        'Open /shopify/auth?shop=your-store.myshopify.com with your store’s myshopify.com address.',
      );
    const allowance = await allowed.check(shop);
    if (allowance.allowed) return shop;
    logger.warn({ shop }, 'a Shopify install was refused: the shop is not one the bridge serves');
    plainPage(res, 403, 'This bridge does not serve this shop', allowance.reason);
    return undefined;
  };

  const appUrl = shopify.appUrl ?? '';
  const appUrlHandler = shopifyAppUrl({ ...parts, beginInstall, appUrl, appPath: SHOPIFY_APP_URL_PATH });
  router.get('/app', appUrlHandler);
  // The merchant page's views: App Bridge's nav keeps them in the admin's address, so a reload opens them here.
  router.get(
    MERCHANT_VIEWS.map((view) => `/app/${view}`),
    appUrlHandler,
  );
  if (appUrl)
    router.get(
      '/session-token',
      bouncePage({
        apiKey: parts.apiKey,
        appUrl,
        appPath: SHOPIFY_APP_URL_PATH,
        sanitizeShop: (shop) => app.utils.sanitizeShop(shop) ?? undefined,
      }),
    );

  // Outside the admin, the page's own address once the App URL or an install has signed the merchant in: a reload
  // here keeps the tab's session, and no other way in brings one. Inside the admin there is no such page.
  if (!parts.embedded) router.get('/store', (_req, res) => sendShopifyStorePage(res));

  router.get('/auth', async (req: Request, res: Response) => {
    const shop = await allowedShopOf(req, res);
    if (shop) await beginInstall(req, res, shop);
  });

  router.get('/auth/callback', async (req: Request, res: Response) => {
    if (!(await allowedShopOf(req, res))) return;
    let session;
    try {
      ({ session } = await app.auth.callback({ rawRequest: req, rawResponse: res, expiring: true }));
    } catch (error) {
      if (error instanceof BotActivityDetected) return void res.status(410).end();
      if (error instanceof CookieNotFound || error instanceof InvalidOAuthError || error instanceof InvalidShopError) {
        logger.warn({ reason: (error as Error).name }, 'a Shopify install callback was refused');
        return plainPage(
          res,
          400,
          'This install link is not valid any more',
          'It may have expired, or been opened in another browser. Start the install again from the beginning.',
        );
      }
      logger.error({ err: error }, 'a Shopify install could not be completed');
      return plainPage(
        res,
        502,
        'Shopify did not complete the install',
        'Try again in a minute; the bridge’s log says more.',
      );
    }
    await shopify.access.saveInstalled(session);
    await installed(session.shop, 'oauth');
    // Outside the admin the merchant has no App Bridge: the bridge's own shop token signs them in, in this answer to
    // the browser whose state cookie the library just checked. Inside it, the dashboard: Shopify opens the app next.
    if (!parts.embedded) return sendShopifyStorePage(res, bridgeTokens.mint(session.shop));
    res.redirect(303, `/admin/?installed=${encodeURIComponent(session.shop)}`);
  });

  return router;
}
