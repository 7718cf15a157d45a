// The platforms the bridge runs, as the parts above the core use them (http's routes, the CLI): built once by
// the composition root (src/composition/platforms.ts) and handed down, so no part reaches up to build them.
import type { PlatformAdapter } from './platform-adapter.ts';
import type { AnyPlatformModule, PlatformNames, PlatformParts } from './platform-module.ts';
import type { OrderSource } from './order-source.ts';
import type { UserAddressPolicy } from '../net/user-address.ts';

/** A platform's module, built: its parts. */
export interface BuiltModule {
  module: AnyPlatformModule;
  parts: PlatformParts & { own?: unknown };
}

export interface Platforms {
  adapters: Record<string, PlatformAdapter<unknown> | undefined>;
  adapterFor(platform: string): PlatformAdapter<unknown> | undefined;
  /** The bridge's public https address, where platforms send webhooks and merchants back. */
  publicUrl: string | undefined;
  /** Which store addresses a user may connect, and how they resolve (ALLOW_PRIVATE_STORE_ADDRESSES). */
  storeAddresses: UserAddressPolicy;
  /** Every platform the bridge knows, shipped and registered, with the names a person reads. */
  directory: Array<{ name: string; names: PlatformNames }>;
  /** Every platform whose settings turn it on, built: shipped first, then those registered at start. */
  modules: BuiltModule[];
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
  /** Once the ledger is open: each platform's moves of what earlier releases kept, then the stores it holds. */
  prepare(foldInbox?: () => Promise<void>): Promise<void>;
  /** A store of this platform was connected or installed: its source reads from now on. */
  storeAdded(platform: string): void;
  /** Told when a store is connected through a module's own routes; set once the reconciler exists. */
  onStoreConnected: ((platform: string, shop: string) => void) | undefined;
  /** Told when a platform says a shop's subscriptions need a new look; set once the reconciler exists. */
  onSubscriptionsChanged: ((platform: string, shop: string) => void) | undefined;
  /** Told when a module learns of an uninstall itself (PlatformWiring.shopUninstalled); set once the engine exists. */
  onShopUninstalled: ((platform: string, shop: string) => Promise<void>) | undefined;
  /** Told when a module closes a shop's storefront (PlatformWiring.storefrontClosed); set once the storefront exists. */
  onStorefrontClosed: ((platform: string, shop: string, by: string) => Promise<void>) | undefined;
}
