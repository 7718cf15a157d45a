// Which platforms the configuration enables, built once for the bridge and
// the CLI alike: their webhook adapters, their stores (configured by
// environment, or connected: WooCommerce's app authentication, BigCommerce's
// single-click app, Shopify's OAuth install), their APIs (shared by every
// caller, so that each store's rate limit is honoured by all of them
// together), and the order sources that resync and reconciliation read.
import type { PlatformAdapter } from '../core/platform-adapter.ts';
import { createBigCommerceAdapter, type BigCommerceAdapter } from '../../adapters/bigcommerce/adapter.ts';
import { AllowedStores } from '../../adapters/bigcommerce/allowed-stores.ts';
import { allowEarlierInstalls } from '../../adapters/bigcommerce/earlier-installs.ts';
import { bigCommerceOrderSource } from '../../adapters/bigcommerce/order-source.ts';
import { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import { ShopifyAccess } from '../../adapters/shopify/access.ts';
import { AllowedShops } from '../../adapters/shopify/allowed-shops.ts';
import { DeclaredDeliveries } from '../../adapters/shopify/declared-deliveries.ts';
import { ShopifyAppSignatures } from '../../adapters/shopify/app-signatures.ts';
import { createShopifyAdapter, type ShopifyAdapter } from '../../adapters/shopify/adapter.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { shopifyOrderSource } from '../../adapters/shopify/order-source.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import { createWooAdapter, type WooAdapter } from '../../adapters/woocommerce/adapter.ts';
import { WooIdentityMigration } from '../../adapters/woocommerce/identity-migration.ts';
import { wooOrderSource } from '../../adapters/woocommerce/order-source.ts';
import { WooStores } from '../../adapters/woocommerce/stores.ts';
import type { Shopify } from '@shopify/shopify-api';
import type { LookupFunction } from 'node:net';
import { readModuleSettings, type Config } from '../config.ts';
import type { AnyPlatformModule, PlatformNames, PlatformParts } from '../core/platform-module.ts';
import { platformDirectory, registrationProblems } from './platform-registry.ts';
import type { OrderSource } from '../core/order-source.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { UserAddressPolicy } from '../net/user-address.ts';

export { PLATFORMS, type Platform } from './platform-registry.ts';

/** A platform registered as a module, built: its parts, and a way to tell it a store was connected. */
export interface BuiltModule {
  module: AnyPlatformModule;
  parts: PlatformParts;
}

export interface ShopifyParts {
  access: ShopifyAccess;
  apis: ShopifyAdminApis;
  /** The library's app, when OAuth or the client credentials grant is configured. */
  app: Shopify | undefined;
  /** Where subscriptions point; undefined without SHOPIFY_APP_URL. */
  appUrl: string | undefined;
  /** What Shopify signs for the app (the App URL, session tokens), checked with the current and previous secret; with the app only. */
  signatures: ShopifyAppSignatures | undefined;
  /** SHOPIFY_EMBEDDED. */
  embedded: boolean;
  /** Which topics Shopify is seen delivering to each shop through the app's configuration. */
  declared: DeclaredDeliveries;
}

export interface Platforms {
  adapters: { shopify?: ShopifyAdapter; woocommerce?: WooAdapter; bigcommerce?: BigCommerceAdapter };
  adapterFor(platform: string): PlatformAdapter<unknown> | undefined;
  shopify: ShopifyParts | undefined;
  /** The Shopify shops the bridge serves, whenever Shopify is configured at all. */
  shopifyAllowed: AllowedShops | undefined;
  /** The WooCommerce stores: configured, and connected through the dashboard or the CLI. */
  woocommerce: WooStores;
  /** The BigCommerce stores: configured, and installed as a single-click app. */
  bigcommerce: BigCommerceStores;
  /** The BigCommerce stores the bridge serves: which may install the app, and whose orders earn. */
  bigcommerceAllowed: AllowedStores;
  /** The bridge's public https address, where platforms send webhooks and merchants back. */
  publicUrl: string | undefined;
  /** Which store addresses a user may connect, and how they resolve (ALLOW_PRIVATE_STORE_ADDRESSES). */
  storeAddresses: UserAddressPolicy;
  /**
   * Order sources for resync and reconciliation: every platform with a store
   * the bridge can read. The list grows when the first store of a platform
   * is connected, here or elsewhere (readers keep a reference to it).
   */
  sources: OrderSource[];
  /**
   * Takes in the sources of stores the ledger holds: one connected through
   * another bridge on the same ledger, or with the CLI, is seen at the next
   * reconciliation, not at the next restart.
   */
  discoverStores(): Promise<void>;
  /**
   * Whether the operator chose this shop (the environment names it, or the
   * operator installed or connected it): it earns on the default loyalty
   * account unless linked to another. A shop let in only by open installs is
   * not: it earns on nobody's account until it is linked.
   */
  chosenByOperator(platform: string, shop: string): Promise<boolean>;
  /**
   * Once the ledger is open: the sources of stores connected before; the
   * BigCommerce stores that installed the app before stores had to be
   * allowed, allowed once (earlier-installs.ts); and old WooCommerce shop
   * names moved to the one name (after `beforeMove`, which folds what the
   * inbox still holds under them).
   */
  prepare(logger: Logger, beforeMove?: () => Promise<void>): Promise<void>;
  /** A store of this platform was connected or installed. */
  storeAdded(platform: 'woocommerce' | 'bigcommerce'): void;
  /** Every platform the bridge knows, shipped and registered, with the names a person reads. */
  directory: Array<{ name: string; names: PlatformNames }>;
  /** Platforms registered as modules that their settings turn on. */
  modules: BuiltModule[];
  /** Told when a module's store is connected; set once the reconciler exists. */
  onStoreConnected: ((platform: string, shop: string) => void) | undefined;
  /** Told when Shopify says the app's scopes on a shop changed (app/scopes_update); set once the reconciler exists. */
  onShopifyScopesChanged: ((shop: string, scopes: string[]) => void) | undefined;
}

export interface PlatformOverrides {
  /** Where a shop's Admin API answers (tests): https://<shop> otherwise. */
  shopifyAdminUrl?: (shop: string) => string;
  /** Where a WooCommerce store's REST API answers (tests): the store's own address otherwise. */
  wooRequestUrl?: (storeUrl: string) => string;
  /** How connected stores' names resolve (tests: DNS rebinding); the system's resolver otherwise. */
  storeLookup?: LookupFunction;
}

/** Platforms registered as modules, beside the shipped ones (platform-registry.ts). */
export interface Registered {
  modules: readonly AnyPlatformModule[];
  logger: Logger;
}

function shopifyParts(config: Config, store: LedgerStore, overrides: PlatformOverrides): ShopifyParts | undefined {
  const appUrl = shopifyAppUrl(config);
  const appWith = (apiSecretKey: string | undefined) =>
    config.SHOPIFY_API_KEY && apiSecretKey
      ? shopifyApp({
          apiKey: config.SHOPIFY_API_KEY,
          apiSecretKey,
          appUrl,
          scopes: config.SHOPIFY_SCOPES,
          apiVersion: config.SHOPIFY_API_VERSION,
          embedded: config.SHOPIFY_EMBEDDED,
        })
      : undefined;
  const app = appWith(config.SHOPIFY_API_SECRET);
  // During a rotation Shopify may still sign with the previous secret.
  const previousApp = app ? appWith(config.SHOPIFY_API_SECRET_PREVIOUS) : undefined;
  if (!app && !(config.SHOPIFY_SHOP && config.SHOPIFY_ADMIN_TOKEN)) return undefined;
  const access = new ShopifyAccess({
    store,
    app,
    previousApp,
    ownShop: config.SHOPIFY_SHOP,
    legacyToken: config.SHOPIFY_ADMIN_TOKEN,
  });
  const apis = new ShopifyAdminApis({
    access,
    apiVersion: config.SHOPIFY_API_VERSION,
    ...(overrides.shopifyAdminUrl ? { baseUrl: overrides.shopifyAdminUrl } : {}),
  });
  const signatures = app ? new ShopifyAppSignatures(previousApp ? [app, previousApp] : [app]) : undefined;
  return {
    access,
    apis,
    app,
    appUrl,
    signatures,
    embedded: config.SHOPIFY_EMBEDDED,
    declared: new DeclaredDeliveries(store),
  };
}

/** Where Shopify sends the merchant back and the webhooks: SHOPIFY_APP_URL, else the bridge's PUBLIC_URL. */
export const shopifyAppUrl = (config: Config): string | undefined => config.SHOPIFY_APP_URL ?? config.PUBLIC_URL;

export function buildPlatforms(
  config: Config,
  store: LedgerStore,
  overrides: PlatformOverrides = {},
  registered?: Registered,
): Platforms {
  const shopify = shopifyParts(config, store, overrides);
  const publicUrl = config.PUBLIC_URL;
  const modules = registered
    ? buildModules(config, store, registered, (platform, shop) => built.onStoreConnected?.(platform, shop))
    : [];
  const storeAddresses: UserAddressPolicy = {
    allowPrivate: config.ALLOW_PRIVATE_STORE_ADDRESSES,
    lookup: overrides.storeLookup,
  };
  const woocommerce = new WooStores({
    store,
    env: {
      url: config.WOOCOMMERCE_URL,
      consumerKey: config.WOOCOMMERCE_CONSUMER_KEY,
      consumerSecret: config.WOOCOMMERCE_CONSUMER_SECRET,
      webhookSecret: config.WOOCOMMERCE_WEBHOOK_SECRET,
    },
    requestUrl: overrides.wooRequestUrl,
    storeAddresses,
  });
  const bigcommerce = new BigCommerceStores({
    store,
    env: {
      storeHash: config.BIGCOMMERCE_STORE_HASH,
      accessToken: config.BIGCOMMERCE_ACCESS_TOKEN,
      headerSecret: config.BIGCOMMERCE_WEBHOOK_SECRET,
    },
    apiUrl: config.BIGCOMMERCE_API_URL,
  });
  const bigcommerceAllowed = new AllowedStores({
    store,
    ownStore: config.BIGCOMMERCE_STORE_HASH,
    listed: config.BIGCOMMERCE_STORES,
    openInstalls: config.BIGCOMMERCE_OPEN_INSTALLS,
  });
  const shopifyAllowed =
    shopify || config.SHOPIFY_API_SECRET
      ? new AllowedShops({
          store,
          ownShop: config.SHOPIFY_SHOP,
          listed: config.SHOPIFY_SHOPS,
          openInstalls: config.SHOPIFY_OPEN_INSTALLS,
        })
      : undefined;
  const secrets = [config.SHOPIFY_API_SECRET, config.SHOPIFY_API_SECRET_PREVIOUS].filter((secret): secret is string =>
    Boolean(secret),
  );
  // WooCommerce deliveries can come once a store can be connected (PUBLIC_URL), not only when a secret is configured.
  const wooWebhooks = Boolean(config.WOOCOMMERCE_WEBHOOK_SECRET || publicUrl);
  const bcWebhooks = Boolean(config.BIGCOMMERCE_CLIENT_SECRET || config.BIGCOMMERCE_WEBHOOK_SECRET);
  const adapters: Platforms['adapters'] = {
    ...(config.SHOPIFY_API_SECRET
      ? {
          shopify: createShopifyAdapter({
            apiSecrets: secrets,
            admin: shopify?.apis,
            onScopesChanged: (shop, scopes) => built.onShopifyScopesChanged?.(shop, scopes),
          }),
        }
      : {}),
    ...(wooWebhooks
      ? {
          woocommerce: createWooAdapter({
            secrets: (shop) => woocommerce.secretsFor(shop),
            url: config.WOOCOMMERCE_URL,
          }),
        }
      : {}),
    ...(bcWebhooks
      ? {
          bigcommerce: createBigCommerceAdapter({
            clientSecret: config.BIGCOMMERCE_CLIENT_SECRET,
            headerSecretsFor: (storeHash) => bigcommerce.headerSecretsFor(storeHash),
            apiFor: async (storeHash) => (await bigcommerce.get(storeHash))?.api,
            defaultShop: config.BIGCOMMERCE_STORE_HASH,
          }),
        }
      : {}),
  };

  for (const { module, parts } of modules)
    if (parts.adapter) (adapters as Record<string, PlatformAdapter<unknown>>)[module.name] = parts.adapter;

  const sources: OrderSource[] = modules.flatMap(({ parts }) => (parts.source ? [parts.source] : []));
  if (shopify && shopifyAllowed)
    sources.push(
      shopifyOrderSource(shopify, shopifyAllowed, {
        bulkThreshold: config.SHOPIFY_BULK_THRESHOLD,
        exclusive: (name, fn) => store.exclusive(name, fn),
      }),
    );
  const storeSources = {
    woocommerce: wooOrderSource(woocommerce, publicUrl),
    bigcommerce: bigCommerceOrderSource(bigcommerce, publicUrl, bigcommerceAllowed),
  };
  const storeAdded = (platform: 'woocommerce' | 'bigcommerce') => {
    if (!sources.some((source) => source.platform === platform)) sources.push(storeSources[platform]);
  };
  if (envWooHasKey(config)) storeAdded('woocommerce');
  if (bigcommerce.environmentShop) storeAdded('bigcommerce');
  const discoverStores = async () => {
    if (
      !sources.some((source) => source.platform === 'woocommerce') &&
      (await woocommerce.list()).some((each) => each.rest)
    )
      storeAdded('woocommerce');
    if (!sources.some((source) => source.platform === 'bigcommerce') && (await bigcommerce.list()).length > 0)
      storeAdded('bigcommerce');
  };
  const built: Platforms = {
    onShopifyScopesChanged: undefined,
    onStoreConnected: undefined,
    directory: platformDirectory(registered?.modules),
    modules,
    adapters,
    adapterFor: (platform) => (adapters as Record<string, PlatformAdapter<unknown> | undefined>)[platform],
    shopify,
    woocommerce,
    shopifyAllowed,
    bigcommerce,
    bigcommerceAllowed,
    publicUrl,
    storeAddresses,
    sources,
    storeAdded,
    discoverStores,
    async chosenByOperator(platform, shop) {
      if (platform === 'shopify') {
        const allowance = await shopifyAllowed?.check(shop);
        return allowance?.allowed === true && allowance.why !== 'open';
      }
      // Only the operator connects a WooCommerce store (the dashboard, the CLI, or a link made for its merchant). The store of WOOCOMMERCE_URL is
      // theirs too; without one, the webhook secret alone names no store, and any store it signs for is the one
      // merchant's (a single-merchant bridge configured by hand). With a URL, the secret opens that store alone.
      if (platform === 'woocommerce') {
        const connected = await woocommerce.get(shop);
        // Unless they connected it for its merchant, who sets up their own account (woocommerce-pages.ts).
        if (connected !== undefined) return !connected.forMerchant;
        return config.WOOCOMMERCE_WEBHOOK_SECRET !== undefined && woocommerce.environmentShop === undefined;
      }
      if (platform === 'bigcommerce') return bigcommerceAllowed.chosenByOperator(shop);
      // A registered platform says; one that does not has no shop chosen, so its orders earn only once linked.
      const registeredModule = modules.find(({ module }) => module.name === platform);
      if (registeredModule) return (await registeredModule.parts.chosenByOperator?.(shop)) ?? false;
      // The sandbox's demo store and tests' own platforms: the one bridge's shops.
      return true;
    },
    async prepare(logger, beforeMove) {
      const wooStores = await woocommerce.list();
      const appInstalls = async () =>
        (await bigcommerce.list()).filter((each) => each.via === 'app').map((each) => each.shop);
      await allowEarlierInstalls(store, bigcommerceAllowed, appInstalls, logger);
      await discoverStores();
      const known = [
        ...new Set([
          ...wooStores.map((each) => each.shop),
          ...(woocommerce.environmentShop ? [woocommerce.environmentShop] : []),
        ]),
      ];
      await new WooIdentityMigration(store, logger).run(known, beforeMove);
    },
  };
  return built;
}

/** The configured WooCommerce store has a key: its orders can be read. */
const envWooHasKey = (config: Config) =>
  Boolean(config.WOOCOMMERCE_URL && config.WOOCOMMERCE_CONSUMER_KEY && config.WOOCOMMERCE_CONSUMER_SECRET);

/** Each registered module whose settings turn it on, built with the bridge's side of the wiring. */
function buildModules(
  config: Config,
  store: LedgerStore,
  { modules, logger }: Registered,
  storeConnected: (platform: string, shop: string) => void,
): BuiltModule[] {
  const problems = registrationProblems(modules);
  if (problems.length > 0) throw new Error(`cannot register the platforms:\n${problems.join('\n')}`);
  return modules.flatMap((module) => {
    // Parsed again by the module's own fragment, so a configuration made without loadConfig (tests) has its defaults.
    const read = readModuleSettings(module, config.platformSettings?.[module.name] ?? {}, config.PUBLIC_URL);
    if (!read.ok) throw new Error(read.problems.map(({ key, message }) => `${key}: ${message}`).join('\n'));
    const parts = module.build(read.settings, {
      store,
      logger: logger.child({ platform: module.name }),
      publicUrl: config.PUBLIC_URL,
      storeConnected: (shop) => storeConnected(module.name, shop),
    });
    return parts ? [{ module, parts }] : [];
  });
}
