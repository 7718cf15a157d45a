// Install by OAuth (Shopify's authorization code grant), for any number of
// shops: GET /shopify/auth?shop=<shop>.myshopify.com sends the merchant to
// the shop's consent screen; Shopify sends them back to
// GET /shopify/auth/callback, where @shopify/shopify-api checks the HMAC of
// the query and the state cookie and exchanges the code for an expiring
// offline token (60 minutes, with a refresh token). The tokens are kept for
// that shop, an earlier uninstall is cleared, the webhooks are put right, and
// the merchant lands on the dashboard.
import express, { type Request, type Response } from 'express';
import { BotActivityDetected, CookieNotFound, InvalidOAuthError, InvalidShopError } from '@shopify/shopify-api';
import type { Reconciler } from '../core/reconciler.ts';
import type { LedgerStore, ShopState } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { ShopifyParts } from '../platforms.ts';

export const SHOPIFY_CALLBACK_PATH = '/shopify/auth/callback';

export interface ShopifyAuthParts {
  shopify: ShopifyParts;
  store: LedgerStore;
  reconciler: Reconciler;
  logger: Logger;
}

const page = (res: Response, status: number, title: string, text: string) => {
  res.status(status).type('html').set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  const escape = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  res.send(`<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><body style="font-family:system-ui;max-width:40em;margin:3em auto"><h1>${escape(title)}</h1><p>${escape(text)}</p></body>`);
};

export function shopifyAuthRoutes({ shopify, store, reconciler, logger }: ShopifyAuthParts): express.Router {
  const router = express.Router();
  const app = shopify.app;
  if (!app) return router;

  router.get('/auth', async (req: Request, res: Response) => {
    const shop = String(req.query.shop ?? '').trim().toLowerCase();
    if (!shopify.appUrl) return page(res, 503, 'Installation is not set up', 'Set SHOPIFY_APP_URL (or PUBLIC_URL) to this bridge’s public https address, restart it, and open this link again.');
    try {
      await app.auth.begin({ shop, callbackPath: SHOPIFY_CALLBACK_PATH, isOnline: false, rawRequest: req, rawResponse: res });
    } catch (error) {
      if (error instanceof InvalidShopError) return page(res, 400, 'Which shop?', 'Open /shopify/auth?shop=your-store.myshopify.com with your store’s myshopify.com address.');
      logger.error({ err: error }, 'could not start a Shopify install');
      if (!res.headersSent) page(res, 500, 'The install could not start', 'Try again in a minute; the bridge’s log says more.');
    }
  });

  router.get('/auth/callback', async (req: Request, res: Response) => {
    let session;
    try {
      ({ session } = await app.auth.callback({ rawRequest: req, rawResponse: res, expiring: true }));
    } catch (error) {
      if (error instanceof BotActivityDetected) return void res.status(410).end();
      if (error instanceof CookieNotFound || error instanceof InvalidOAuthError || error instanceof InvalidShopError) {
        logger.warn({ reason: (error as Error).name }, 'a Shopify install callback was refused');
        return page(res, 400, 'This install link is not valid any more', 'It may have expired, or been opened in another browser. Start the install again from the beginning.');
      }
      logger.error({ err: error }, 'a Shopify install could not be completed');
      return page(res, 502, 'Shopify did not complete the install', 'Try again in a minute; the bridge’s log says more.');
    }
    const shop = session.shop;
    await shopify.access.saveInstalled(session);
    // An install clears an earlier uninstall: the shop's deliveries count again.
    await store.putRecord<ShopState>('shop', `shopify:${shop}`, { platform: 'shopify', shop, uninstalledAt: null, installedAt: new Date().toISOString() });
    logger.info({ shop, expiring: Boolean(session.refreshToken) }, 'Shopify app installed');
    try {
      await reconciler.checkAllSubscriptions('shopify', shop);
    } catch (error) {
      logger.warn({ err: error, shop }, 'could not put the webhook subscriptions right after the install; the next reconciliation tries again');
    }
    res.redirect(303, `/admin/?installed=${encodeURIComponent(shop)}`);
  });

  return router;
}
