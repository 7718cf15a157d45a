// BigCommerce's flows wired by hand until they are routes of its module: the single-click app's callbacks
// under /bigcommerce (src/http/bigcommerce-app.ts), and the door of the page its load callback opens, whose
// sessions are keyed from the app's client secret.
import type { RequestHandler } from 'express';
import { RemovedUsers } from '../../adapters/bigcommerce/removed-users.ts';
import { bigCommerceApp, type BigCommerceApp } from '../http/bigcommerce-app.ts';
import { bigCommerceMerchantDoor } from '../http/bigcommerce-merchant-door.ts';
import { BIGCOMMERCE_STORE_PAGE, bridgeShopTokens } from '../http/bridge-shop-token.ts';
import { bigCommerceModule } from '../../adapters/bigcommerce/module.ts';
import type { FlowContext } from './flow-context.ts';

export interface BigCommerceFlows {
  door: RequestHandler | undefined;
  /** Its callbacks and its checks of pending uninstalls, with the app's client id and secret and PUBLIC_URL. */
  app: BigCommerceApp | undefined;
}

export function bigCommerceFlows(
  { config, store, platforms, logger, shopRoutes, storeAdded }: FlowContext,
  uninstallChecks?: { recheckDelaysMs?: readonly number[]; passMs?: number },
): BigCommerceFlows {
  const pageTokens = config.BIGCOMMERCE_CLIENT_SECRET
    ? bridgeShopTokens([config.BIGCOMMERCE_CLIENT_SECRET], Date.now, BIGCOMMERCE_STORE_PAGE)
    : undefined;
  if (!pageTokens) return { door: undefined, app: undefined };
  const removedUsers = new RemovedUsers(store);
  const door = bigCommerceMerchantDoor(
    {
      tokens: pageTokens,
      stores: platforms.bigcommerce,
      allowed: platforms.bigcommerceAllowed,
      removedUsers,
      logger,
    },
    shopRoutes,
  );
  const app =
    config.BIGCOMMERCE_CLIENT_ID && config.BIGCOMMERCE_CLIENT_SECRET && config.PUBLIC_URL
      ? bigCommerceApp({
          store,
          stores: platforms.bigcommerce,
          allowed: platforms.bigcommerceAllowed,
          clientId: config.BIGCOMMERCE_CLIENT_ID,
          clientSecret: config.BIGCOMMERCE_CLIENT_SECRET,
          loginUrl: config.BIGCOMMERCE_LOGIN_URL,
          publicUrl: config.PUBLIC_URL,
          logger,
          onInstalled: storeAdded(bigCommerceModule.name),
          uninstallChecks,
          pageTokens,
          removedUsers,
        })
      : undefined;
  return { door, app };
}
