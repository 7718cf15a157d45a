// Whether a shop's install can serve the storefront. It needs write_app_proxy, without which Shopify routes no
// request of the store's /apps/loyalty to the bridge ("Configuring an app proxy requires the write_app_proxy access
// scope": https://shopify.dev/apps/build/online-store/display-dynamic-data, "About app proxies and dynamic data").
// That is a required scope (shopify.app.toml's scopes), which an install made before it was may lack: Shopify asks
// the merchant for it when the app's version naming it is released (managed install) or the shop is installed again
// (OAuth). It is checked first and alone, so that the merchant is told that fix before any other.
// It needs read_customers, to read the signed-in customer's contact on the bridge's side. How an install gets it
// depends on how it was made (access.ts's modes), and Shopify tells the scopes granted now (scopes.ts;
// app/scopes_update forgets what was remembered):
// - installed by Shopify (managed install, token exchange): read_customers is an optional scope
//   (shopify.app.toml's optional_scopes), asked for with App Bridge's shopify.scopes.request when the
//   merchant turns the storefront on; no existing install approves anything again;
// - installed by OAuth: SHOPIFY_SCOPES names it, then the merchant authorises the app again;
// - the merchant's own store by client credentials: the token carries the app's configured scopes, so the
//   app's version in the Dev Dashboard (or shopify.app.toml's scopes) must name it;
// - a legacy custom app's admin token (SHOPIFY_ADMIN_TOKEN): refused, since such an app has no app proxy.
import type { ShopifyAccess } from './access.ts';
import type { ShopifyAdminApis } from './admin-api.ts';
import { lackingScopes } from './scopes.ts';

export const STOREFRONT_SCOPES = ['read_customers'] as const;
/** The app proxy's scope, required (not optional) in shopify.app.toml: new installs have it, older ones may not. */
export const PROXY_SCOPE = 'write_app_proxy';

export type StorefrontReadiness = { ready: true } | { ready: false; missingScopes: string[]; why: string };

/** How an install of each kind gets the scopes it lacks, in words for the merchant and the operator. */
const HOW: Readonly<Record<string, string>> = {
  token_exchange:
    'approve access to customers when you turn the storefront on: Shopify asks you in your admin, and your other settings stay as they are',
  oauth_expiring:
    'the bridge’s operator adds read_customers to SHOPIFY_SCOPES, then you open the app again and approve the new access',
  oauth:
    'the bridge’s operator adds read_customers to SHOPIFY_SCOPES, then you open the app again and approve the new access',
  client_credentials:
    'add read_customers to the app’s scopes in the Dev Dashboard (or shopify.app.toml) and release the new version: your own store’s token carries the app’s configured scopes',
};

/** How an install of each kind gets write_app_proxy, which no dialog of App Bridge can ask for. */
const PROXY_HOW: Readonly<Record<string, string>> = {
  token_exchange:
    'the bridge’s operator releases the app’s version that asks for write_app_proxy (shopify app deploy of this release’s shopify.app.toml, or the Dev Dashboard), then you open the app and approve the new access Shopify asks you for',
  oauth_expiring:
    'the bridge’s operator adds write_app_proxy to SHOPIFY_SCOPES and installs the app on your store again, then you approve the new access Shopify asks you for',
  oauth:
    'the bridge’s operator adds write_app_proxy to SHOPIFY_SCOPES and installs the app on your store again, then you approve the new access Shopify asks you for',
  client_credentials:
    'add write_app_proxy to the app’s scopes in the Dev Dashboard (or shopify.app.toml) and release the new version: your own store’s token carries the app’s configured scopes',
};

export async function storefrontReadiness(
  shop: string,
  { access, apis }: { access: ShopifyAccess; apis: ShopifyAdminApis },
): Promise<StorefrontReadiness> {
  const { mode } = await access.describe(shop);
  const missingScopes = [...STOREFRONT_SCOPES];
  if (mode === 'legacy')
    return {
      ready: false,
      missingScopes,
      why: 'this store is connected with a custom app’s admin token (SHOPIFY_ADMIN_TOKEN), which cannot have an app proxy: install the loyalty-bridge app from the Dev Dashboard to show points in the store',
    };
  if (mode === 'none')
    return { ready: false, missingScopes, why: 'the bridge has no access to this store: install the app first' };
  if ((await lackingScopes(apis.for(shop), [PROXY_SCOPE])).length > 0)
    return {
      ready: false,
      missingScopes: [PROXY_SCOPE],
      why: `your store cannot pass its customers’ requests to the bridge yet: its app proxy, which the points launcher and the “Earn points” block ask, needs access this install was not granted (write_app_proxy), so ${PROXY_HOW[mode] ?? PROXY_HOW.oauth}`,
    };
  const lacking = await lackingScopes(apis.for(shop), missingScopes);
  if (lacking.length === 0) return { ready: true };
  return {
    ready: false,
    missingScopes: lacking,
    why: `the app may not read your customers’ e-mail and phone yet, which the storefront needs to find their points: ${HOW[mode] ?? HOW.oauth}`,
  };
}
