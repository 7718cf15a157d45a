// The App URL (GET /shopify/app). Shopify opens it each time the merchant
// opens the app: with shop, host, timestamp and hmac, and inside the admin
// embedded=1 and id_token (a session token). That includes the first open
// after Shopify installed the app by itself (managed installation), when the
// bridge has no Admin API access to the shop yet: this is where it gets it.
//   not signed by Shopify for this app, or stale    401 page, no redirect
//   a shop the bridge does not serve                403 page saying why
//   embedded (SHOPIFY_EMBEDDED=true)
//     opened outside the admin                      redirect into the admin
//     no working access                             token exchange, with id_token
//     then                                          the dashboard with App Bridge
//   not embedded
//     no working access                             the authorization code grant
//     then                                          the dashboard, signed in as the shop
import type { Request, RequestHandler, Response } from 'express';
import { InvalidHostError } from '@shopify/shopify-api';
import { ShopifyAccessError } from '../../adapters/shopify/access.ts';
import type { ShopifyAuthParts } from './shopify-auth.ts';
import { sendEmbeddedPage } from './dashboard.ts';
import { plainPage } from './plain-page.ts';

export interface AppUrlParts extends ShopifyAuthParts {
  beginInstall: (req: Request, res: Response, shop: string) => Promise<void>;
}

export function shopifyAppUrl({ shopify, allowed, signatures, bridgeTokens, installed, embedded, apiKey, logger, beginInstall }: AppUrlParts): RequestHandler {
  const { access } = shopify;
  const app = shopify.app!;

  return async (req, res) => {
    const checked = await signatures.appUrl(req.query as Record<string, unknown>);
    if (!checked.ok) {
      logger.warn({ reason: checked.reason }, 'the App URL was opened without a valid Shopify signature');
      return plainPage(res, 401, 'Open this app from your Shopify admin', `This address works only as Shopify opens it: ${checked.reason}.`);
    }
    const { shop } = checked;
    const framedBy = embedded ? shop : undefined;
    const allowance = await allowed.check(shop);
    if (!allowance.allowed) {
      logger.warn({ shop }, 'the App URL was opened for a shop the bridge does not serve');
      return plainPage(res, 403, 'This bridge does not serve this shop', allowance.reason, { framedBy });
    }

    if (!embedded) {
      if (!(await access.hasWorkingAccess(shop))) return beginInstall(req, res, shop);
      // Shopify has just said who opened the app: the dashboard, signed in as that shop.
      return void res.redirect(303, `/admin/#shop-token=${bridgeTokens.mint(shop)}`);
    }

    if (!checked.embedded) {
      // Opened outside the admin (a bookmark, say): the app lives inside it.
      try {
        return void res.redirect(302, app.auth.buildEmbeddedAppUrl(checked.host ?? ''));
      } catch (error) {
        if (error instanceof InvalidHostError) return plainPage(res, 400, 'Open this app from your Shopify admin', 'The link does not say which Shopify admin it came from.');
        throw error;
      }
    }
    if (checked.idToken) {
      const token = await signatures.sessionToken(checked.idToken);
      if (!token.ok || token.shop !== shop) {
        logger.warn({ shop, reason: token.ok ? 'the session token is for another shop' : token.reason }, 'the App URL carried a session token that was refused');
        return plainPage(res, 401, 'Open this app from your Shopify admin', 'The session Shopify handed over was not valid: reload the app.', { framedBy });
      }
      if (!(await access.hasWorkingAccess(shop))) {
        try {
          await access.exchange(shop, checked.idToken);
        } catch (error) {
          logger.warn({ shop, reason: (error as Error).message }, 'token exchange failed at the App URL');
          const refused = error instanceof ShopifyAccessError && error.code !== 'unavailable';
          return plainPage(res, refused ? 401 : 502, 'Shopify did not give access to this shop', refused ? 'Reload the app from your Shopify admin; if it persists, reinstall it.' : 'Shopify did not answer; reload the app in a minute.', { framedBy });
        }
        await installed(shop, 'token_exchange');
      }
    }
    // Without an id_token (Shopify always sends one inside the admin), the page's first call brings one, and access with it.
    sendEmbeddedPage(res, { shop, apiKey });
  };
}
