// A BigCommerce store's default currency, for the promotions that pay rewards: `currency` of GET /stores/{hash}/v2/store
// ("Default currency code": Store Information), which needs Information & settings read-only, as the store's name
// does (store-name.ts). A promotion applies only to orders in its currency_code, which "defaults to the store
// default currency if not supplied" (BigCommerce's docs, store-operations/promotions, "Currency code"), and a reward's
// amount is in that currency: so the bridge names it where it may read it, and elsewhere leaves it to that default.
import { asRecord } from '../shared/json.ts';
import type { BigCommerceStores } from './stores.ts';
import { INFORMATION_SCOPE } from './store-name.ts';

/** The store's default currency (ISO 4217, upper case); undefined where the install may not read it, or it failed. */
export async function readBigCommerceStoreCurrency(
  stores: Pick<BigCommerceStores, 'existing' | 'get'>,
  storeHash: string,
): Promise<string | undefined> {
  const install = await stores.existing(storeHash);
  if (install && !INFORMATION_SCOPE.test(install.scope)) return undefined;
  const known = await stores.get(storeHash);
  // Read for each code (a merchant may change the default currency); a failed read leaves BigCommerce's default.
  const currency = known ? asRecord(await known.api.get('v2/store').catch(() => undefined)).currency : undefined;
  return typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : undefined;
}
