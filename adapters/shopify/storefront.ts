// Shopify's storefront capabilities (src/core/capabilities/storefront.ts and codes.ts): who is asking, from the app
// proxy's signature alone (app-proxy.ts), for a shop the bridge serves and has installed; the customer's
// contact from the shop's customer record (storefront-contact.ts); whether the install can serve the
// storefront (storefront-readiness.ts); and a reward's discount codes (discount-codes.ts, discount-readiness.ts).
// No other parameter, header or cookie decides anything. Its other entrance is the customer account
// extension's (customer-account-entrance.ts), with a session token instead of the proxy's signature.
import type { Shopify } from '@shopify/shopify-api';
import type { PlatformParts, Storefront } from '../../src/core/platform-module.ts';
import type { ShopifyAccess } from './access.ts';
import type { ShopifyAdminApis } from './admin-api.ts';
import type { AllowedShops } from './allowed-shops.ts';
import { routeQuery } from '../../src/core/platform-answers.ts';
import { checkAppProxy } from './app-proxy.ts';
import { customerAccountEntrance } from './customer-account-entrance.ts';
import { shopifyDiscountCodes } from './discount-codes.ts';
import { discountReadiness } from './discount-readiness.ts';
import { customerContact } from './storefront-contact.ts';
import { storefrontReadiness } from './storefront-readiness.ts';

export interface ShopifyStorefrontOptions {
  /** The app with the current client secret, then the previous one during a rotation: the proxy signs with it. */
  apps: readonly Shopify[];
  allowed: Pick<AllowedShops, 'check'>;
  access: ShopifyAccess;
  apis: ShopifyAdminApis;
  /** Why a request was refused, for the operator's log: never a parameter's value or a token. */
  onRefused?: (reason: string, entrance: 'app proxy' | 'customer account') => void;
}

export function shopifyStorefront(
  options: ShopifyStorefrontOptions,
): Required<Pick<PlatformParts, 'storefront' | 'codes'>> {
  const { apps, allowed, access, apis } = options;
  // A shop the bridge serves and holds an install of. An uninstall forgets the install before it turns the
  // storefront off (intake.ts), so the switch's check after its write (Storefront.served) sees it.
  const served = async (shop: string) => (await allowed.check(shop)).allowed && (await access.hasAccess(shop));
  const storefront: Storefront = {
    cors: null,
    served,
    async customer(request: Request) {
      const checked = await checkAppProxy(apps, routeQuery(request));
      if (!checked.ok) {
        options.onRefused?.(checked.reason, 'app proxy');
        return { kind: 'refused' };
      }
      const { shop, customerId } = checked;
      // Signed for this app, but the shop must be one the bridge serves and holds an install of.
      if (!(await served(shop))) {
        options.onRefused?.(`${shop} is not a shop this bridge serves`, 'app proxy');
        return { kind: 'refused' };
      }
      return customerId ? { kind: 'customer', shop, customerId } : { kind: 'guest', shop };
    },
    contact: (shop, customerId) => customerContact(apis.for(shop), customerId),
    readiness: (shop) => storefrontReadiness(shop, { access, apis }),
    // In the customer's account: the customer account extension's calls, with its session token.
    entrances: [
      customerAccountEntrance({ apps, served, onRefused: (reason) => options.onRefused?.(reason, 'customer account') }),
    ],
  };
  return {
    storefront,
    codes: {
      // A make refused for want of write_discounts says how this install gets it, as readiness does.
      ...shopifyDiscountCodes(apis, async (shop) => {
        const ready = await discountReadiness(shop, { access, apis });
        return ready.ready ? undefined : ready.why;
      }),
      readiness: (shop) => discountReadiness(shop, { access, apis }),
      // context.customers: Shopify refuses the code at checkout to anyone else.
      forOneCustomer: true,
      // asyncUsageCount, of DiscountCodeBasic and DiscountCodeFreeShipping alike: "This value is updated
      // asynchronously. As a result, it might be lower than the actual usage count until the asynchronous process is
      // completed." (shopify.dev, Admin GraphQL, 2026-01)
      usesCountedLate: true,
      // Every kind: an amount or a percentage off as a basic code, free shipping as a free shipping code.
      notMade: {},
      setUpFirst: {},
      whyKindFails: async () => undefined,
    },
  };
}
