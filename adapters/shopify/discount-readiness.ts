// Whether a shop's install may make reward codes: discountCodeBasicCreate and discountCodeFreeShippingCreate need
// write_discounts (which implies read_discounts, for finding a code and reading its uses). As with the storefront's
// read_customers (storefront-readiness.ts), how an install gets it depends on how it was made (access.ts's modes),
// and Shopify tells the scopes granted now (scopes.ts; app/scopes_update forgets what was remembered):
// - installed by Shopify (managed install, token exchange): write_discounts is an optional scope
//   (shopify.app.toml's optional_scopes), asked for with App Bridge's shopify.scopes.request when the merchant
//   turns rewards on; no existing install approves anything again;
// - installed by OAuth: SHOPIFY_SCOPES names it, then the merchant authorises the app again;
// - the merchant's own store by client credentials: the token carries the app's configured scopes;
// - a legacy custom app's admin token (SHOPIFY_ADMIN_TOKEN): its scopes are set in the shop's admin.
import type { ShopifyAccess } from './access.ts';
import type { ShopifyAdminApis } from './admin-api.ts';
import { lackingScopes } from './scopes.ts';

export const DISCOUNT_SCOPES = ['write_discounts'] as const;

export type DiscountReadiness = { ready: true } | { ready: false; missingScopes: string[]; why: string };

/** How an install of each kind gets write_discounts, in words for the merchant and the operator. */
const HOW: Readonly<Record<string, string>> = {
  token_exchange:
    'approve access to discounts when you turn rewards on: Shopify asks you in your admin, and your other settings stay as they are',
  oauth_expiring:
    'the bridge’s operator adds write_discounts to SHOPIFY_SCOPES, then you open the app again and approve the new access',
  oauth:
    'the bridge’s operator adds write_discounts to SHOPIFY_SCOPES, then you open the app again and approve the new access',
  client_credentials:
    'add write_discounts to the app’s scopes in the Dev Dashboard (or shopify.app.toml) and release the new version: your own store’s token carries the app’s configured scopes',
  legacy:
    'give the custom app the write_discounts scope in your Shopify admin (Settings, Apps, Develop apps, its Admin API configuration)',
};

export async function discountReadiness(
  shop: string,
  { access, apis }: { access: ShopifyAccess; apis: ShopifyAdminApis },
): Promise<DiscountReadiness> {
  const { mode } = await access.describe(shop);
  const missingScopes = [...DISCOUNT_SCOPES];
  if (mode === 'none')
    return { ready: false, missingScopes, why: 'the bridge has no access to this store: install the app first' };
  const lacking = await lackingScopes(apis.for(shop), missingScopes);
  if (lacking.length === 0) return { ready: true };
  return {
    ready: false,
    missingScopes: lacking,
    why: `the app may not make discount codes in your store yet, which rewards are paid with: ${HOW[mode] ?? HOW.oauth}`,
  };
}
