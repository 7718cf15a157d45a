// The admin API's door for a BigCommerce store's own page (store-page-door.ts): its bearer is the lbb1. token
// the load callback handed the page (bridge-shop-token.ts), naming the store and the control-panel user. It
// opens only while the store has the app installed and is one the bridge serves, and while the user has not
// been removed by the store's owner since the token was made (removed-users.ts).
import { bigCommerceModule } from '../../adapters/bigcommerce/module.ts';
import type { RequestHandler } from 'express';
import type { AllowedStores } from '../../adapters/bigcommerce/allowed-stores.ts';
import type { RemovedUsers } from '../../adapters/bigcommerce/removed-users.ts';
import type { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import type { Logger } from '../logger.ts';
import { BIGCOMMERCE_STORE_PAGE, type BridgeShopTokens } from './bridge-shop-token.ts';
import { storePageDoor } from './store-page-door.ts';

export interface BigCommerceMerchantDoorParts {
  tokens: BridgeShopTokens;
  /** The app's installs: a store served only through BIGCOMMERCE_ACCESS_TOKEN has no app, and no page. */
  stores: Pick<BigCommerceStores, 'existing'>;
  allowed: Pick<AllowedStores, 'check'>;
  removedUsers: RemovedUsers;
  logger: Logger;
}

export function bigCommerceMerchantDoor(
  { tokens, stores, allowed, removedUsers, logger }: BigCommerceMerchantDoorParts,
  shopRoutes: RequestHandler,
): RequestHandler {
  return storePageDoor(
    {
      platform: bigCommerceModule.name,
      purpose: BIGCOMMERCE_STORE_PAGE,
      tokens,
      ended: 'this sign-in has ended: open the app again from your BigCommerce control panel',
      logger,
      async refusal(claims) {
        if (!(await stores.existing(claims.shop)))
          return { status: 401, error: 'the app is not installed on this store any more' };
        const allowance = await allowed.check(claims.shop);
        if (!allowance.allowed) return { status: 403, error: allowance.reason };
        if (claims.user !== undefined && (await removedUsers.removedSince(claims.shop, claims.user, claims.issuedAt)))
          return { status: 401, error: 'the store’s owner removed this user’s access' };
        return undefined;
      },
    },
    shopRoutes,
  );
}
