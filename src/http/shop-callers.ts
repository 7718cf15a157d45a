// The admin API's second door: a merchant's page calling for its own shop, without ADMIN_TOKEN, by an App
// Bridge session token (embedded) or the bridge's shop token (bridge-shop-token.ts). The shop must be one the
// bridge serves; an embedded shop with no working access yet gets it here, by token exchange. The caller
// reaches only shop-admin-api.ts; any other bearer goes on to the operator's door. A refused token gets 401
// and leaves no record; no answer or log line quotes it.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { shopifyModule } from '../../adapters/shopify/module.ts';
import { ShopifyAccessError, type ShopifyAccess } from '../../adapters/shopify/access.ts';
import type { ShopifyAppSignatures } from '../../adapters/shopify/app-signatures.ts';
import { SecretsKeyMissingError } from '../core/store/record-secrets.ts';
import type { Logger } from '../logger.ts';
import { sameSecret } from '../same-secret.ts';
import { isBridgeShopToken, type BridgeShopTokens } from './bridge-shop-token.ts';
import type { ShopifyInstalled } from './shopify-installed.ts';

export interface ShopCallerParts {
  adminToken: string | undefined;
  signatures: ShopifyAppSignatures;
  bridgeTokens: BridgeShopTokens;
  allowed: AllowedShops;
  access: ShopifyAccess;
  installed: ShopifyInstalled;
  logger: Logger;
}

type Identified =
  | { ok: true; shop: string; user?: string }
  | { ok: false; status: 401 | 403 | 502 | 503; error: string; retryWithNewToken?: true };

/** Shopify's signal, on a 401 for a session token: App Bridge (and the page) tries once more with a fresh one. */
export const RETRY_INVALID_SESSION_HEADER = 'x-shopify-retry-invalid-session-request';

/** A JWT (three base64url parts) or the bridge's own shop token: anything else is the operator's to judge. */
const looksLikeShopSession = (token: string) => isBridgeShopToken(token) || /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

/** What the merchant is told when the bridge may not keep a token (no SECRETS_KEY outside sandbox mode). */
export const KEY_MISSING =
  'loyalty-bridge cannot keep access to this shop yet: its operator has to set SECRETS_KEY (the bridge’s log says how)';

export function shopCallers(parts: ShopCallerParts, shopRoutes: RequestHandler): RequestHandler {
  const { adminToken, signatures, bridgeTokens, allowed, access, installed, logger } = parts;

  async function identify(token: string): Promise<Identified> {
    if (isBridgeShopToken(token)) {
      const shop = bridgeTokens.verify(token);
      if (!shop)
        return { ok: false, status: 401, error: 'this sign-in has ended: open the app again from your Shopify admin' };
      return (await allowed.check(shop)).allowed
        ? { ok: true, shop }
        : { ok: false, status: 403, error: 'this shop is not one this bridge serves' };
    }
    const checked = await signatures.sessionToken(token);
    if (!checked.ok) return { ok: false, status: 401, error: checked.reason, retryWithNewToken: true };
    const allowance = await allowed.check(checked.shop);
    if (!allowance.allowed) return { ok: false, status: 403, error: allowance.reason };
    if (!(await access.hasWorkingAccess(checked.shop))) {
      try {
        await access.exchange(checked.shop, token);
      } catch (error) {
        logger.warn({ shop: checked.shop, reason: (error as Error).message }, 'token exchange failed');
        // As shopify-app-js: a session token Shopify does not take at token exchange is an invalid session; the page asks App Bridge for a fresh one and tries again.
        if (error instanceof ShopifyAccessError && error.code === 'invalid_session')
          return {
            ok: false,
            status: 401,
            error: 'Shopify did not accept this session token',
            retryWithNewToken: true,
          };
        // The token came, and the bridge may not keep it: the operator's to put right (the log says how).
        if (error instanceof SecretsKeyMissingError) return { ok: false, status: 503, error: KEY_MISSING };
        const refused = error instanceof ShopifyAccessError && error.code !== 'unavailable';
        return {
          ok: false,
          status: refused ? 401 : 502,
          error: refused
            ? 'Shopify did not give access to this shop for this session: reload the app from your Shopify admin'
            : 'Shopify did not answer; try again in a minute',
        };
      }
      await installed(checked.shop, 'token_exchange');
    }
    return { ok: true, shop: checked.shop, ...(checked.user ? { user: checked.user } : {}) };
  }

  return (req: Request, res: Response, next: NextFunction) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
    if (!given || !looksLikeShopSession(given) || (adminToken !== undefined && sameSecret(given, adminToken)))
      return next();
    identify(given).then(
      (identified) => {
        if (!identified.ok) {
          logger.warn({ reason: identified.error }, 'a shop session was refused');
          if (identified.status === 401) res.set('www-authenticate', 'Bearer');
          if (identified.retryWithNewToken) res.set(RETRY_INVALID_SESSION_HEADER, '1');
          res.status(identified.status).json({ error: identified.error });
          return;
        }
        res.locals.platform = shopifyModule.name;
        res.locals.shop = identified.shop;
        // Who, in an audit record of a change the shop's page makes (Shopify's staff id, when its session token names one).
        res.locals.user = identified.user;
        shopRoutes(req, res, next);
      },
      (error: unknown) => next(error),
    );
  };
}
