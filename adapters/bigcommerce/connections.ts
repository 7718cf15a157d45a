// The BigCommerce stores as the operator's stores panel lists them: the configured one and every one that
// installed the app, by their store hash; never a token.
import type { StoreConnectionView } from '../../src/core/platform-module.ts';
import type { BigCommerceStores } from './stores.ts';

export const bigCommerceConnections = (stores: BigCommerceStores) => async (): Promise<StoreConnectionView[]> =>
  (await stores.list()).map((each) => ({
    shop: each.shop,
    url: null,
    via: each.via,
    connectedAt: each.installedAt,
    keyPermissions: null,
    authMode: null,
  }));
