// A BigCommerce store's name, for its merchant's page: `name` of GET /stores/{hash}/v2/store (Store Information),
// which needs the Information & settings scope (store_v2_information_read_only). The app asks Orders read-only
// alone, so the name is read only where the store granted more (an app registered with that scope, or an API
// account that has it); otherwise the page says the store's address on BigCommerce, which every store keeps.
import { asRecord } from '../shared/json.ts';
import type { BigCommerceStores } from './stores.ts';

export const INFORMATION_SCOPE = /(^|\s)store_v2_information(_read_only)?(\s|$)/;

/** The store's name as BigCommerce tells it; undefined where the app may not read it. */
export async function readBigCommerceStoreName(stores: BigCommerceStores, storeHash: string): Promise<unknown> {
  const install = await stores.existing(storeHash);
  if (install && !INFORMATION_SCOPE.test(install.scope)) return undefined;
  const known = await stores.get(storeHash);
  return known ? asRecord(await known.api.get('v2/store')).name : undefined;
}

/** The address BigCommerce gives every store (its control panel's too), as a person reads it. */
export const bigCommerceStoreLabel = (storeHash: string) => `store-${storeHash}.mybigcommerce.com`;
