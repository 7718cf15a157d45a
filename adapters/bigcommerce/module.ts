// BigCommerce as the bridge needs it (src/core/platform-module.ts): its settings, its adapter, its order
// source, which stores it serves, and its single-click app (flows.ts): the app's callbacks, the door of the
// page it opens, and its checks of pending uninstalls.
import type { PlatformModule, PlatformWiring, Shops } from '../../src/core/platform-module.ts';
import { createBigCommerceAdapter } from './adapter.ts';
import { AllowedStores } from './allowed-shops.ts';
import { bigCommerceApp } from './flows.ts';
import { bigCommerceConnections } from './connections.ts';
import { bigCommerceDemo } from './demo.ts';
import { allowEarlierInstalls } from './earlier-installs.ts';
import { bigCommerceOrderSource } from './order-source.ts';
import { bigCommerceSubscriptions } from './register.ts';
import { bigCommerceSettingProblems, bigCommerceSettings } from './settings.ts';
import { BigCommerceStores } from './stores.ts';
import { StoreNames, storeNameType } from '../shared/store-names.ts';
import { bigCommerceStoreLabel, readBigCommerceStoreName } from './store-name.ts';
import { bigCommerceStorefront } from './storefront.ts';
import { bigCommerceWidgetRoute } from './storefront-widget.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

declare module '../../src/core/store/roles/records.ts' {
  interface PlatformRecordKinds {
    /** A store's name as BigCommerce tells it (shared/store-names.ts); names the shop, so erased with it. */
    'bigcommerce-store-name': true;
  }
}

export interface BigCommerceOwn {
  stores: BigCommerceStores;
  /** Which stores may install the app, and whose orders earn. */
  allowed: AllowedStores;
}

export const bigCommerceModule = {
  name: 'bigcommerce' as const,
  names: { platform: 'BigCommerce', shop: 'store', admin: 'your BigCommerce control panel, under Apps' },
  // BigDesign's look for its merchant page (generated: scripts/platform-looks.ts).
  look: new URL('./look.css', import.meta.url),
  settings: bigCommerceSettings,
  checkSettings: bigCommerceSettingProblems,
  build(settings, wiring) {
    const { store, logger, publicUrl } = wiring;
    const stores = new BigCommerceStores({
      store,
      env: {
        storeHash: settings.BIGCOMMERCE_STORE_HASH,
        accessToken: settings.BIGCOMMERCE_ACCESS_TOKEN,
        headerSecret: settings.BIGCOMMERCE_WEBHOOK_SECRET,
      },
      apiUrl: settings.BIGCOMMERCE_API_URL,
    });
    const allowed = new AllowedStores({
      store,
      ownStore: settings.BIGCOMMERCE_STORE_HASH,
      listed: settings.BIGCOMMERCE_STORES,
      openInstalls: settings.BIGCOMMERCE_OPEN_INSTALLS,
    });
    const names = new StoreNames({
      store,
      type: storeNameType('bigcommerce-store-name'),
      platform: 'bigcommerce',
      read: (shop) => readBigCommerceStoreName(stores, shop),
      served: async (shop) => (await stores.get(shop)) !== undefined,
    });
    const storeConnected = (shop: string) => {
      wiring.storeConnected(shop);
      // Read again at each install: the store may have been renamed, or granted the scope that reads it since.
      void names.learn(shop);
    };
    const webhooks = Boolean(settings.BIGCOMMERCE_CLIENT_SECRET || settings.BIGCOMMERCE_WEBHOOK_SECRET);
    const app = bigCommerceApp(settings, { ...wiring, storeConnected }, { stores, allowed });
    // The storefront needs the app (its client id and secret sign who the customer is) and the bridge's address
    // (where the store's pages load the widget and ask for points).
    const { BIGCOMMERCE_CLIENT_ID: clientId, BIGCOMMERCE_CLIENT_SECRET: clientSecret } = settings;
    const storefront =
      clientId && clientSecret && publicUrl
        ? {
            capabilities: bigCommerceStorefront({
              clientId,
              clientSecret,
              stores,
              allowed,
              onRefused: (reason) =>
                logger.info({ reason }, 'a storefront request from a BigCommerce store page was refused'),
            }),
            route: bigCommerceWidgetRoute({ clientId, bridgeUrl: trimTrailing(publicUrl, '/') }),
          }
        : undefined;
    return {
      own: { stores, allowed },
      ...app,
      ...(storefront ? { ...storefront.capabilities, routes: [...(app.routes ?? []), storefront.route] } : {}),
      ...(webhooks
        ? {
            webhooks: {
              adapter: createBigCommerceAdapter({
                clientSecret: settings.BIGCOMMERCE_CLIENT_SECRET,
                headerSecretsFor: (storeHash) => stores.headerSecretsFor(storeHash),
                apiFor: async (storeHash) => (await stores.get(storeHash))?.api,
                defaultShop: settings.BIGCOMMERCE_STORE_HASH,
              }),
              admitShop: allowed.admit,
              onStored: async () => {},
            },
          }
        : {}),
      orders: {
        source: bigCommerceOrderSource(stores, publicUrl, allowed),
        storesToRead: {
          configured: Boolean(stores.environmentShop),
          connected: async () => (await stores.list()).length > 0,
        },
      },
      shops: bigCommerceShops({ store, stores, allowed, names, logger }),
      connections: { list: bigCommerceConnections(stores) },
      subscriptions: bigCommerceSubscriptions(stores, publicUrl, settings.BIGCOMMERCE_WEBHOOK_SECRET),
    };
  },
  configured: (settings) =>
    Boolean(
      settings.BIGCOMMERCE_CLIENT_ID ||
      settings.BIGCOMMERCE_CLIENT_SECRET ||
      settings.BIGCOMMERCE_WEBHOOK_SECRET ||
      settings.BIGCOMMERCE_STORE_HASH,
    ),
  records: { 'bigcommerce-store-name': [], 'removed-user': [] },
  sharedRecords: [
    'session',
    'shop',
    'allowed-shop',
    'callback-payload',
    'migration',
    'platform-health',
    'reconciliation',
  ],
  needs: { orders: 'set BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN', subscriptions: null },
  demo: bigCommerceDemo,
  shopName: null,
  unconfirmedWhy: null,
} satisfies PlatformModule<typeof bigCommerceSettings, BigCommerceOwn>;

/** The stores it serves: those installed or configured, each by the name BigCommerce gives it. */
function bigCommerceShops({
  store,
  stores,
  allowed,
  names,
  logger,
}: {
  store: PlatformWiring['store'];
  stores: BigCommerceStores;
  allowed: AllowedStores;
  names: StoreNames;
  logger: PlatformWiring['logger'];
}): Shops {
  return {
    chosenByOperator: (shop) => allowed.chosenByOperator(shop),
    list: async () => (await stores.list()).map((each) => each.shop),
    storeName: async (shop) => (await names.name(shop)) ?? bigCommerceStoreLabel(shop),
    // The stores that installed the app before stores had to be allowed, allowed once (earlier-installs.ts).
    async prepare() {
      const appInstalls = async () =>
        (await stores.list()).filter((each) => each.via === 'app').map((each) => each.shop);
      await allowEarlierInstalls(store, allowed, appInstalls, logger);
    },
  };
}
