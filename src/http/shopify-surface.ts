// The Shopify app's part of the bridge's HTTP surface, put together once
// for the composition root: the routes under /shopify (App URL, install by
// OAuth) and the admin API's door for a shop's own page.
import { forgetScopes } from '../../adapters/shopify/scopes.ts';
import express, { type RequestHandler } from 'express';
import type { Reconciler } from '../core/reconciler.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from '../composition/platforms.ts';
import { bridgeShopTokens } from './bridge-shop-token.ts';
import { shopCallers } from './shop-callers.ts';
import { shopifyAuthRoutes } from './shopify-auth.ts';
import { shopifyInstalled } from './shopify-installed.ts';

export interface ShopifySurfaceParts {
  platforms: Platforms;
  store: LedgerStore;
  reconciler: Reconciler;
  logger: Logger;
  adminToken: string | undefined;
  apiKey: string | undefined;
  /** The client secret, then the previous one during a rotation. */
  secrets: readonly string[];
  /** The admin API's routes for a shop's own page (shop-admin-api.ts), behind Shopify's door. */
  shopRoutes: RequestHandler;
}

export interface ShopifySurface {
  /** Mounted at /shopify, when the app (client id and secret) is configured. */
  routes: express.Router | undefined;
  /** The admin API, with a shop's own page let in before the operator's door. */
  admin(operator: express.Router): express.Router;
}

export function shopifySurface(parts: ShopifySurfaceParts): ShopifySurface {
  const { platforms, store, reconciler, logger, adminToken, apiKey, secrets, shopRoutes } = parts;
  const shopify = platforms.shopify;
  const allowed = platforms.shopifyAllowed;
  if (!shopify?.app || !shopify.signatures || !allowed || !apiKey || secrets.length === 0)
    return { routes: undefined, admin: (operator) => operator };

  const bridgeTokens = bridgeShopTokens(secrets);
  // A new install may grant other scopes than the ones remembered.
  const installed = shopifyInstalled({
    store,
    reconciler,
    logger,
    forgetScopes: (shop) => forgetScopes(shopify.apis.for(shop)),
  });
  const routes = shopifyAuthRoutes({
    shopify,
    allowed,
    signatures: shopify.signatures,
    bridgeTokens,
    installed,
    embedded: shopify.embedded,
    apiKey,
    usedLinks: store,
    logger,
  });
  const door: RequestHandler = shopCallers(
    { adminToken, signatures: shopify.signatures, bridgeTokens, allowed, access: shopify.access, installed, logger },
    shopRoutes,
  );
  return {
    routes,
    admin: (operator) => express.Router().use(door, operator),
  };
}
