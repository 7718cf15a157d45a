// The storefront's entrance for the customer account UI extension (extensions/loyalty-account/): GET
// /shopify/storefront/account-points with the extension's session token. Shopify runs UI extensions in a web
// worker whose origin it does not promise (it may be null, and may change without notice), and asks the app's
// server to answer CORS for any origin with `Access-Control-Allow-Origin: *` (shopify.dev, "Enable extension
// capabilities for customer accounts", Network access:
// https://shopify.dev/docs/apps/build/customer-accounts/capabilities#network-access). So the route answers any
// origin's preflight (the bearer header makes the request not simple) with "*", and never with credentials: the
// session token in the Authorization header is the one credential, no cookie is read. Who asks comes from the
// token alone (customer-account-token.ts), for a shop the bridge serves and holds an install of, as the proxy's
// route checks; a request without a good token is refused whatever its origin.
import type { Shopify } from '@shopify/shopify-api';
import type { StorefrontEntrance } from '../../src/core/platform-module.ts';
import { bearerToken, checkCustomerAccountToken, CUSTOMER_TOKEN_REFUSALS } from './customer-account-token.ts';

export interface CustomerAccountEntranceOptions {
  /** The app with the current client secret, then the previous one during a rotation. */
  apps: readonly Shopify[];
  /** Whether the bridge serves the shop and holds its install (the storefront part's `served`). */
  served(shop: string): Promise<boolean>;
  /** Why a request was refused, for the operator's log: never the token. */
  onRefused?: (reason: string) => void;
  now?: () => number;
}

export function customerAccountEntrance(options: CustomerAccountEntranceOptions): StorefrontEntrance {
  const { apps, served, onRefused, now } = options;
  return {
    path: '/account-points',
    cors: { origins: 'any', headers: ['authorization'] },
    async customer(request) {
      const token = bearerToken(request.headers.get('authorization') ?? undefined);
      const checked = token
        ? await checkCustomerAccountToken(apps, token, now)
        : ({ ok: false, refusal: 'no_bearer' } as const);
      if (!checked.ok) {
        onRefused?.(CUSTOMER_TOKEN_REFUSALS[checked.refusal]);
        return { kind: 'refused' };
      }
      const { shop, customerId } = checked;
      // Signed for this app, but the shop must be one the bridge serves and holds an install of.
      if (!(await served(shop))) {
        onRefused?.(`${shop} is not a shop this bridge serves`);
        return { kind: 'refused' };
      }
      return customerId ? { kind: 'customer', shop, customerId } : { kind: 'guest', shop };
    },
  };
}
