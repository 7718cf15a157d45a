// WooCommerce's storefront capabilities (src/core/capabilities/: storefront, codes, the plugin). Nothing of the bridge's can be put
// on a WooCommerce store from outside: the merchant installs our WordPress plugin (wordpress/loyalty-bridge/,
// docs/wordpress-plugin.md) and connects it with a one-time code from their page (plugin-connect.ts). The plugin
// prints the widget's script (storefront-widget.ts), so there is no `widget` part to put, and signs who the
// signed-in customer is, with their e-mail and phone (plugin-identity.ts): the contact comes with the token, and
// `contact` reads nothing. The widget asks the bridge directly from the store's own domain (cors 'any-page'), with
// that token as its one credential.
import type { PlatformParts, StorePlugin } from '../../src/core/platform-module.ts';
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import { issuePluginCode } from './plugin-connect.ts';
import { wooCustomerAsker } from './plugin-identity.ts';
import { pluginKeyOf, type KeyOf } from './plugin-keys.ts';
import type { WooStores } from './stores.ts';
import { wooCouponCodes } from './coupon-codes.ts';

/** What a key that may only read cannot do, and the fix. */
export const READ_ONLY_KEY =
  'the bridge’s key to your store may only read, and rewards are paid with coupons it makes: connect the store again from this page and approve Read/Write access';

export const PLUGIN_NOT_CONNECTED =
  'install and connect the Loyalty points plugin in WordPress (WooCommerce › Loyalty points › Connect, with a code from this page)';

/** Why a connection code is not given (pluginCode), each with who may have one and how. */
export const PLUGIN_CODE_REFUSALS = {
  notAdministrator:
    'Only the site’s administrator can connect the Loyalty points plugin: ask them to open your loyalty program from WordPress (WooCommerce › Open your loyalty program) and make the code there.',
  connectedAlready:
    'The Loyalty points plugin is connected. To connect it again, open your loyalty program from WordPress as the site’s administrator (WooCommerce › Open your loyalty program) and make the code there.',
} as const;

export interface WooStorefrontOptions {
  store: RecordRole;
  stores: Pick<WooStores, 'get'>;
  /** The bridge's public https address, which a connection code carries. */
  publicUrl: string;
  /** Why a request was refused, for the operator's log: never the token. */
  onRefused?: (reason: string) => void;
  /** Where the merchant downloads the plugin (plugin-download.ts). */
  pluginDownload: StorePlugin['download'];
}

export function wooStorefront(
  options: WooStorefrontOptions,
): Required<Pick<PlatformParts, 'storefront' | 'codes' | 'plugin'>> {
  const { store, stores } = options;
  const keyOf: KeyOf = (shop) => pluginKeyOf(store, shop);
  const restFor = async (shop: string) => (await stores.get(shop))?.rest;
  // A store the bridge holds (connected, or the configured one): its "install". A disconnect forgets the store before
  // the storefront is turned off, so the switch's check after its write sees it. Not the plugin's key: turning the
  // storefront off must work whatever the plugin's state.
  const served = async (shop: string) => (await stores.get(shop)) !== undefined;
  // Who may ask: a customer or guest of a served store whose plugin is connected (a customer's token is checked
  // under that key besides).
  const asked = async (shop: string) => (await served(shop)) && (await keyOf(shop)) !== undefined;
  const storefront = {
    served,
    cors: { origins: 'any-page', headers: ['authorization'] },
    entrances: [],
    customer: wooCustomerAsker({
      keyOf,
      served: asked,
      ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    }),
    // The identity token carries the contact (the store's server signs it): never asked.
    contact: () => Promise.resolve(undefined),
    async readiness(shop) {
      if ((await stores.get(shop)) === undefined)
        return { ready: false, missingScopes: [], why: 'the bridge is not connected to this store' };
      if ((await keyOf(shop)) === undefined) return { ready: false, missingScopes: [], why: PLUGIN_NOT_CONNECTED };
      return { ready: true };
    },
  } satisfies PlatformParts['storefront'];
  // A code gets whoever holds it the store's plugin key (they can sign any customer in): only for an administrator
  // of the site, as the plugin signs at its door (`mayConnect`, manage_options and unfiltered_html), or, before any
  // plugin is connected, for whoever signed in as the store's manager (the first connection has no door yet).
  const plugin: StorePlugin = {
    async code(shop, { mayConnect }) {
      if (mayConnect === false) return { refused: PLUGIN_CODE_REFUSALS.notAdministrator };
      if (mayConnect === undefined && (await keyOf(shop)) !== undefined)
        return { refused: PLUGIN_CODE_REFUSALS.connectedAlready };
      return issuePluginCode(store, shop, options.publicUrl);
    },
    download: options.pluginDownload,
  };
  return {
    storefront,
    plugin,
    codes: {
      ...wooCouponCodes(restFor, async (shop) => {
        const ready = await rewardsReadiness(shop);
        return ready.ready ? undefined : ready.why;
      }),
      readiness: rewardsReadiness,
      // WooCommerce's usage_count is counted with the order.
      usesCountedLate: false,
    },
  };

  /** Whether the bridge's key may make coupons: a read key may not (WooCommerce says so when it is made). */
  async function rewardsReadiness(shop: string) {
    const held = await stores.get(shop);
    if (!held?.rest)
      return { ready: false as const, missingScopes: [], why: 'the bridge is not connected to this store' };
    if (held.keyPermissions === 'read') return { ready: false as const, missingScopes: [], why: READ_ONLY_KEY };
    return { ready: true as const };
  }
}
