// Whether a BigCommerce store's install can serve the storefront, and make reward codes. Beyond the Orders
// read-only scope every install has, the storefront needs (BigCommerce's "API accounts and OAuth scopes"):
// - Content, modify (store_v2_content): the Scripts API, which puts the widget on the store;
// - Customers, read-only (store_v2_customers_read_only, or Customers modify): the customer's record, whose e-mail
//   and phone are who they are at the loyalty service (never the e-mail in the browser's token);
// - Channel Settings, read-only (store_channel_settings_read_only, or its modify): the store's channels, so that
//   the widget goes on each of its Stencil storefronts (storefront-channels.ts). Asked before the storefront is
//   turned on, so that a store with several storefronts does not show its customers points on one alone; an
//   install that turned it on before this was asked keeps the widget on its default storefront alone until the
//   merchant accepts it;
// and rewards need Marketing, modify (store_v2_marketing): the Promotions API, one promotion and code per reward.
// The current-customer token needs no scope: the app's client id and secret are enough ("Current Customer API"),
// so Customers Login (store_v2_customers_login), which signs customers in, is not asked for.
//
// How an installed store gets them: the operator adds them to the app's OAuth scopes in the Developer Portal; the
// next time the merchant opens the app in their control panel, BigCommerce asks them to accept the new scopes and
// calls the auth callback again, whose token and scope the bridge keeps (install.ts). Until then the storefront
// (and rewards) cannot be turned on, and the merchant's page says what to do. The store configured by hand (a store
// API account) has the scopes its account was given, which BigCommerce does not tell: it is taken as ready, and a
// call refused for a scope says so when it happens.
import type { BigCommerceStores } from './stores.ts';

export const STOREFRONT_SCOPES = [
  'store_v2_content',
  'store_v2_customers_read_only',
  'store_channel_settings_read_only',
] as const;
export const REWARD_SCOPES = ['store_v2_marketing'] as const;

export type BigCommerceReadiness = { ready: true } | { ready: false; missingScopes: string[]; why: string };

/** A modify scope grants its read-only one. */
const granted = (scopes: ReadonlySet<string>, wanted: string) =>
  scopes.has(wanted) || (wanted.endsWith('_read_only') && scopes.has(wanted.slice(0, -'_read_only'.length)));

const HOW =
  'the bridge’s operator adds these to the app’s OAuth scopes in the BigCommerce Developer Portal; then open the app again from your control panel (Apps, My Apps) and accept the new permissions';

/** What the store's install lacks of `wanted`, with what to do, in words; ready when it has them all. */
export async function bigCommerceReadiness(
  stores: Pick<BigCommerceStores, 'get' | 'existing'>,
  shop: string,
  wanted: readonly string[],
  what: string,
): Promise<BigCommerceReadiness> {
  const store = await stores.get(shop);
  if (!store)
    return {
      ready: false,
      missingScopes: [...wanted],
      why: 'the bridge has no access to this store: install the app first',
    };
  if (store.via === 'environment') return { ready: true };
  const install = await stores.existing(shop);
  const scopes = new Set((install?.scope ?? '').split(/[\s,]+/).filter(Boolean));
  const missingScopes = wanted.filter((scope) => !granted(scopes, scope));
  if (missingScopes.length === 0) return { ready: true };
  return { ready: false, missingScopes, why: `the app may not ${what} yet (${missingScopes.join(', ')}): ${HOW}` };
}
