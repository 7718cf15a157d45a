// BigCommerce's storefront capabilities (src/core/capabilities/: storefront, codes, widget). The widget is a script the bridge
// registers with the Scripts API (storefront-script.ts) and serves itself (storefront-widget.ts); it asks the
// bridge directly from the store's own domain, so its route takes calls from any page (cors 'any-page'), with the
// current-customer token BigCommerce signs for the app as its one credential (current-customer.ts). The
// customer's contact comes from their record (storefront-contact.ts); each reward is its own promotion with one
// code (promotion-codes.ts). What the install must approve first: storefront-readiness.ts.
import type { PlatformParts } from '../../src/core/platform-module.ts';
import type { AllowedStores } from './allowed-shops.ts';
import { bigCommerceCustomerAsker } from './current-customer.ts';
import { bigCommercePromotionCodes } from './promotion-codes.ts';
import { bigCommerceContact } from './storefront-contact.ts';
import { bigCommerceReadiness, REWARD_SCOPES, STOREFRONT_SCOPES } from './storefront-readiness.ts';
import { bigCommerceWidget } from './storefront-script.ts';
import { readBigCommerceStoreCurrency } from './store-currency.ts';
import type { BigCommerceStores } from './stores.ts';

export interface BigCommerceStorefrontOptions {
  clientId: string;
  /** The app's client secret: BigCommerce signs the current-customer token with it. */
  clientSecret: string;
  stores: BigCommerceStores;
  allowed: Pick<AllowedStores, 'check'>;
  /** Why a request was refused, for the operator's log: never the token. */
  onRefused?: (reason: string) => void;
}

export function bigCommerceStorefront(
  options: BigCommerceStorefrontOptions,
): Required<Pick<PlatformParts, 'storefront' | 'codes' | 'widget'>> {
  const { stores, allowed } = options;
  // A store the bridge serves and holds access to. A confirmed uninstall forgets the app's token before it turns
  // the storefront off (uninstall-checks.ts), so the switch's check after its write sees it.
  const served = async (shop: string) => (await allowed.check(shop)).allowed && (await stores.get(shop)) !== undefined;
  const apiFor = async (shop: string) => (await stores.get(shop))?.api;
  const rewardsReadiness = (shop: string) =>
    bigCommerceReadiness(stores, shop, REWARD_SCOPES, 'make the promotions that rewards are paid with');
  const storefront = {
    served,
    cors: { origins: 'any-page', headers: ['authorization'] },
    entrances: [],
    customer: bigCommerceCustomerAsker({
      clientId: options.clientId,
      clientSecrets: [options.clientSecret],
      served,
      ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    }),
    async contact(shop, customerId) {
      const api = await apiFor(shop);
      return api ? bigCommerceContact(api, customerId) : undefined;
    },
    readiness: (shop) =>
      bigCommerceReadiness(
        stores,
        shop,
        STOREFRONT_SCOPES,
        'put the points launcher on each of your storefronts and read who your signed-in customers are',
      ),
  } satisfies PlatformParts['storefront'];
  return {
    storefront,
    codes: {
      ...bigCommercePromotionCodes(
        apiFor,
        async (shop) => {
          const ready = await rewardsReadiness(shop);
          return ready.ready ? undefined : ready.why;
        },
        (shop) => readBigCommerceStoreCurrency(stores, shop),
      ),
      readiness: rewardsReadiness,
      // BigCommerce documents no way to keep a code to one customer (promotion-codes.ts).
      forOneCustomer: false,
      // BigCommerce counts a coupon's uses with the order.
      usesCountedLate: false,
    },
    widget: bigCommerceWidget(apiFor),
  };
}
