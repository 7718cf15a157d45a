// WooCommerce as the bridge needs it (src/core/platform-module.ts): its settings, its adapter, its order
// source, which stores the operator chose, its key callback and store pages (routes at /woocommerce), the
// stores panel's list and the operator's connect. `own`: its stores, which the CLI's first run still reads.
import type { PlatformModule } from '../../src/core/platform-module.ts';
import { createWooAdapter } from './adapter.ts';
import { wooConnections } from './connections.ts';
import { wooDemo } from './demo.ts';
import { WooIdentityMigration } from './identity-migration.ts';
import { keyCallbackRoute } from './key-callback.ts';
import { operatorConnect } from './operator-connect.ts';
import { wooOrderSource } from './order-source.ts';
import { wooRecords } from './records.ts';
import { wooShopNamed } from './shop-identity.ts';
import { wooSettings } from './settings.ts';
import { wooStorePages } from './store-pages.ts';
import { WooStores } from './stores.ts';
import { StoreNames, storeNameType } from '../shared/store-names.ts';
import { readWooSiteName, wooStoreLabel } from './site-name.ts';
import { wooConnectProblem } from './connect-problem.ts';
import { pluginConnectRoute } from './plugin-connect.ts';
import { pluginDoorRoutes } from './plugin-door.ts';
import { wooStorefront } from './storefront.ts';
import { wooWidgetRoute } from './storefront-widget.ts';
import { pluginDownloadRoute, zipPlugin } from './plugin-download.ts';
import { pluginDisconnectRoute } from './plugin-disconnect.ts';

export const wooModule = {
  name: 'woocommerce' as const,
  names: { platform: 'WooCommerce', shop: 'store', admin: 'your store’s WordPress, as its administrator' },
  // The WordPress admin's look for its merchant page (generated: scripts/platform-looks.ts).
  look: new URL('./look.css', import.meta.url),
  settings: wooSettings,
  // Each key alone says all: no check across them.
  checkSettings: () => [],
  build(settings, parts) {
    const { store, logger, publicUrl, apiUrl, storeAddresses, storeConnected } = parts;
    const stores = new WooStores({
      store,
      env: {
        url: settings.WOOCOMMERCE_URL,
        consumerKey: settings.WOOCOMMERCE_CONSUMER_KEY,
        consumerSecret: settings.WOOCOMMERCE_CONSUMER_SECRET,
        webhookSecret: settings.WOOCOMMERCE_WEBHOOK_SECRET,
      },
      requestUrl: apiUrl,
      storeAddresses,
    });
    // Deliveries can come once a store can be connected (PUBLIC_URL), not only when a secret is configured.
    const webhooks = Boolean(settings.WOOCOMMERCE_WEBHOOK_SECRET || publicUrl);
    const appName = settings.WOOCOMMERCE_APP_NAME;
    const pages = wooStorePages({ store, stores, publicUrl, appName, addresses: storeAddresses, logger });
    const names = wooStoreNames(store, stores);
    const callback = keyCallbackRoute({
      store,
      stores,
      logger,
      addresses: storeAddresses,
      onConnected(shop) {
        storeConnected(shop);
        // Read again at each connect: the store may have been renamed, or moved to another address.
        void names.learn(shop);
      },
    });
    const plugin = pluginParts(stores, parts);
    return {
      own: stores,
      ...(webhooks ? { webhooks: wooWebhooks(settings, stores) } : {}),
      orders: {
        source: wooOrderSource(stores, publicUrl),
        storesToRead: {
          // The configured store has a key: its orders can be read.
          configured: Boolean(
            settings.WOOCOMMERCE_URL && settings.WOOCOMMERCE_CONSUMER_KEY && settings.WOOCOMMERCE_CONSUMER_SECRET,
          ),
          connected: async () => (await stores.list()).some((each) => each.rest),
        },
      },
      shops: wooShops(settings, stores, names, parts),
      routes: [callback, ...pages.routes, ...(plugin?.routes ?? [])],
      ...plugin?.storefront,
      door: pages.door,
      connections: { list: wooConnections(stores) },
      connect: operatorConnect({ store, publicUrl, appName, addresses: storeAddresses, logger }),
    };
  },
  configured: (settings) => Boolean(settings.WOOCOMMERCE_WEBHOOK_SECRET || settings.WOOCOMMERCE_URL),
  records: wooRecords,
  needs: {
    orders: 'set WOOCOMMERCE_URL, WOOCOMMERCE_CONSUMER_KEY and WOOCOMMERCE_CONSUMER_SECRET',
    // The bridge makes a connected store's webhooks itself, and keeps them on.
    subscriptions: {
      instead:
        'connect the store instead (`loyalty-bridge connect --platform woocommerce --store <address>`, or the dashboard): the bridge then creates its webhooks and keeps them on; docs/connect-woocommerce.md says how',
    },
  },
  demo: wooDemo,
  shopName: wooShopNamed,
  unconfirmedWhy: null,
  sharedRecords: ['session', 'shop', 'shop-link', 'reconciliation', 'migration'],
} satisfies PlatformModule<typeof wooSettings, WooStores>;

type BuildParts = Parameters<PlatformModule<typeof wooSettings, WooStores>['build']>[1];
type WooSettings = Parameters<PlatformModule<typeof wooSettings, WooStores>['build']>[0];

/** A store's name as its WordPress gives it, read again at each connect. */
function wooStoreNames(store: BuildParts['store'], stores: WooStores): StoreNames {
  return new StoreNames({
    store,
    type: storeNameType('woocommerce-store-name'),
    platform: 'woocommerce',
    read: async (shop) => {
      const site = await stores.site(shop);
      return site ? readWooSiteName(site) : undefined;
    },
    served: async (shop) => (await stores.site(shop)) !== undefined,
  });
}

function wooWebhooks(settings: WooSettings, stores: WooStores) {
  return {
    adapter: createWooAdapter({ secrets: (shop) => stores.secretsFor(shop), url: settings.WOOCOMMERCE_URL }),
    // A delivery signed by a store's own secret is that store's: every one is served.
    admitShop: async () => undefined,
    onStored: async () => {},
  };
}

// The storefront, through the store's WordPress plugin (docs/wordpress-plugin.md): it needs the bridge's https
// address, which the plugin's connection code carries and its pages load the widget from.
function pluginParts(stores: WooStores, { store, publicUrl, logger, storefrontClosed }: BuildParts) {
  const zip = publicUrl && !wooConnectProblem(publicUrl) ? zipPlugin() : undefined;
  if (!publicUrl || !zip) return undefined;
  return {
    storefront: wooStorefront({
      store,
      stores,
      publicUrl,
      pluginDownload: {
        path: `/woocommerce/plugin/${zip.fileName}`,
        fileName: zip.fileName,
        version: zip.version,
        howTo:
          'Your store shows points through the Loyalty points plugin for WordPress. Download it with the link after this, add it in WordPress (Plugins, Add New, Upload Plugin), then connect it with a code from here (WooCommerce › Loyalty points, paste the code, Connect).',
        pasteWhere: 'in WordPress (WooCommerce › Loyalty points)',
      },
      onRefused: (reason) => logger.info({ reason }, 'a storefront request from a WooCommerce store page was refused'),
    }),
    routes: [
      pluginConnectRoute({ store, logger }),
      pluginDisconnectRoute({ store, logger, storefrontClosed }),
      ...pluginDoorRoutes({ store, publicUrl, logger }),
      wooWidgetRoute(publicUrl),
      pluginDownloadRoute(zip),
    ],
  };
}

// Only the operator connects a store (the dashboard, the CLI, or a link made for its merchant). The store of
// WOOCOMMERCE_URL is theirs too; without one, the webhook secret alone names no store, and any store it signs for is
// the one merchant's (a single-merchant bridge configured by hand). With a URL, the secret opens that store alone.
function wooShops(settings: WooSettings, stores: WooStores, names: StoreNames, { store, logger }: BuildParts) {
  return {
    async chosenByOperator(shop: string) {
      const connected = await stores.get(shop);
      // Unless they connected it for its merchant, who sets up their own account (store-pages.ts).
      if (connected !== undefined) return !connected.forMerchant;
      return settings.WOOCOMMERCE_WEBHOOK_SECRET !== undefined && stores.environmentShop === undefined;
    },
    list: async () => (await stores.list()).map((each) => each.shop),
    storeName: async (shop: string) => (await names.name(shop)) ?? wooStoreLabel(shop),
    // Old shop names moved to the one name, after what the inbox still holds under them is folded.
    async prepare(foldInbox: () => Promise<void>) {
      const known = new Set((await stores.list()).map((each) => each.shop));
      if (stores.environmentShop) known.add(stores.environmentShop);
      await new WooIdentityMigration(store, logger).run([...known], foldInbox);
    },
  };
}
