// The platforms the configuration enables, built once for the bridge and the CLI alike from their modules
// (the shipped ones in platform-registry.ts, and any registered at start): their adapters, their order
// sources (shared by every caller, so each store's rate limit is honoured by all of them together), which
// shops they serve, and the parts their flows not yet written as module routes take by hand.
import type { LookupFunction } from 'node:net';
import { readModuleSettings, type Config } from '../config.ts';
import type { AnyPlatformModule, PlatformWiring } from '../core/platform-module.ts';
import type { OrderSource } from '../core/order-source.ts';
import type { BuiltModule, Platforms } from '../core/platforms.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { moduleStore } from './module-store.ts';
import { createLogger, type Logger } from '../logger.ts';
import type { UserAddressPolicy } from '../net/user-address.ts';
import { registrationProblems } from './module-registration.ts';
import { platformDirectory, SHIPPED_MODULES } from '../platform-registry.ts';

export { PLATFORMS, type Platform } from '../platform-registry.ts';

export type { BuiltModule, Platforms };

export interface PlatformOverrides {
  /** Where each platform's API answers for a store's address, by the platform's name (tests serve them locally). */
  apiUrls?: Readonly<Record<string, (address: string) => string>>;
  /** How connected stores' names resolve (tests: DNS rebinding); the system's resolver otherwise. */
  storeLookup?: LookupFunction;
}

export interface BuildOptions {
  /** Platforms registered at start, beside the shipped ones (platform-registry.ts). */
  modules?: readonly AnyPlatformModule[];
  /** For the platforms' own lines (their moves at start, what they are told); none: nothing is logged. */
  logger?: Logger;
  /** Each platform's own options, by its name, handed to its build as they are (PlatformWiring.options). */
  platformOptions?: Readonly<Record<string, unknown>>;
}

export function buildPlatforms(
  config: Config,
  store: LedgerStore,
  overrides: PlatformOverrides = {},
  {
    modules: registeredModules = [],
    logger = createLogger({ level: 'silent' }),
    platformOptions = {},
  }: BuildOptions = {},
): Platforms {
  const problems = registrationProblems(registeredModules);
  if (problems.length > 0) throw new Error(`cannot register the platforms:\n${problems.join('\n')}`);
  const storeAddresses: UserAddressPolicy = {
    allowPrivate: config.ALLOW_PRIVATE_STORE_ADDRESSES,
    lookup: overrides.storeLookup,
  };
  const modules: BuiltModule[] = [];
  for (const module of [...SHIPPED_MODULES, ...registeredModules] as AnyPlatformModule[]) {
    // Parsed again by the module's own fragment: a shipped one's keys are in the configuration itself, a
    // registered one's beside it; either way a configuration made without loadConfig (tests) has its defaults.
    const read = readModuleSettings(module, config.platformSettings?.[module.name] ?? config, config.PUBLIC_URL);
    if (!read.ok) throw new Error(read.problems.map(({ key, message }) => `${key}: ${message}`).join('\n'));
    const wiring: PlatformWiring = {
      store: moduleStore(store, module),
      logger: logger.child({ platform: module.name }),
      publicUrl: config.PUBLIC_URL,
      storeAddresses,
      apiUrl: overrides.apiUrls?.[module.name],
      storeConnected: (shop) => built.onStoreConnected?.(module.name, shop),
      subscriptionsChanged: (shop) => built.onSubscriptionsChanged?.(module.name, shop),
      shopUninstalled: async (shop) => built.onShopUninstalled?.(module.name, shop),
      storefrontClosed: async (shop, by) => built.onStorefrontClosed?.(module.name, shop, by),
      options: platformOptions[module.name],
    };
    const parts = module.build(read.settings, wiring);
    if (parts) modules.push({ module, parts });
  }
  const partsOf = (name: string) => modules.find(({ module }) => module.name === name)?.parts;

  const adapters = Object.fromEntries(
    modules.flatMap(({ module, parts }) => (parts.webhooks ? [[module.name, parts.webhooks.adapter]] : [])),
  ) as Platforms['adapters'];
  const sources: OrderSource[] = [];
  const storeAdded = (platform: string) => {
    const source = partsOf(platform)?.orders?.source;
    if (source && !sources.includes(source)) sources.push(source);
  };
  for (const { module, parts } of modules) if (parts.orders?.storesToRead.configured) storeAdded(module.name);
  const discoverStores = async () => {
    for (const { module, parts } of modules)
      if (parts.orders && !sources.includes(parts.orders.source) && (await parts.orders.storesToRead.connected()))
        storeAdded(module.name);
  };

  const built: Platforms = {
    onStoreConnected: undefined,
    onSubscriptionsChanged: undefined,
    onShopUninstalled: undefined,
    onStorefrontClosed: undefined,
    adapters,
    adapterFor: (platform) => adapters[platform],
    publicUrl: config.PUBLIC_URL,
    storeAddresses,
    directory: platformDirectory(registeredModules),
    modules,
    sources,
    storeAdded,
    discoverStores,
    async chosenByOperator(platform, shop) {
      const parts = partsOf(platform);
      // The sandbox's demo store and tests' own adapters, of no module: the one bridge's shops.
      if (!parts) return !directoryHas(built, platform);
      // A platform that does not say has no shop chosen: its orders earn only once its shop is linked.
      return (await parts.shops?.chosenByOperator(shop)) ?? false;
    },
    async prepare(foldInbox = async () => {}) {
      for (const { parts } of modules) await parts.shops?.prepare(foldInbox);
      await discoverStores();
    },
  };
  return built;
}

const directoryHas = (platforms: Platforms, name: string) => platforms.directory.some((each) => each.name === name);

/**
 * Whether the ledger holds a store of the merchant's, connected or installed (by an earlier run, another bridge, or
 * the CLI), asked of the platforms the configuration builds as it is: a question only, nothing of them is kept.
 */
export async function storeConnected(
  config: Config,
  store: LedgerStore,
  { modules = [], platformOptions = {} }: Pick<BuildOptions, 'modules' | 'platformOptions'>,
): Promise<boolean> {
  const built = buildPlatforms(config, store, {}, { modules, platformOptions });
  for (const { parts } of built.modules) if (await parts.orders?.storesToRead.connected()) return true;
  return false;
}
