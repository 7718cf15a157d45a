// The WooCommerce stores as the operator's stores panel lists them: the configured one and every one connected,
// with what their key may do and how it gets through; never the key itself.
import type { StoreConnectionView } from '../../src/core/platform-module.ts';
import type { WooStores } from './stores.ts';

export const wooConnections = (stores: WooStores) => async (): Promise<StoreConnectionView[]> =>
  (await stores.list()).map((each) => ({
    shop: each.shop,
    url: each.url,
    via: each.via,
    connectedAt: each.connectedAt,
    keyPermissions: each.keyPermissions ?? null,
    authMode: each.rest?.authMode ?? null,
  }));
