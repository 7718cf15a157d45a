// One store platform as the bridge needs it, in one object: its settings, the capabilities it has (each an
// interface of capabilities/ whose members are all required), and the names a person sees. The composition root
// builds each registered module once; the registry, the routes and the core ask for a capability, never for an
// optional member. docs/development.md, "Adding a platform"; docs/architecture.md, "Capabilities".
import type { z } from 'zod';
import type { LookupFunction } from 'node:net';
import type { Logger } from '../logger.ts';
import type { UserAddressPolicy } from '../net/user-address.ts';
import type { PlatformRoute } from './platform-routes.ts';
import type { SettingProblem } from './platform-shapes.ts';
import type { PlatformDemo } from './platform-demo.ts';
import type { Webhooks } from './capabilities/webhooks.ts';
import type { Orders } from './capabilities/orders.ts';
import type { Shops } from './capabilities/shops.ts';
import type { PlatformInstalls, StoreConnect, StoreConnections, Subscriptions } from './capabilities/stores.ts';
import type { MerchantDoor } from './capabilities/door.ts';
import type { Background, PlatformNotes } from './capabilities/operator.ts';
import type { Storefront, StorePlugin } from './capabilities/storefront.ts';
import type { StoreCodes } from './capabilities/codes.ts';
import type { StoreWidget } from './capabilities/widget.ts';
import type {
  DeadLetterRole,
  LedgerLifecycle,
  LedgerTransfer,
  OperatorQueries,
  OrderWorkRole,
  PrivacyRole,
  RecordRole,
} from './store/ledger-store.ts';
import type { SecretFields } from './store/record-secrets.ts';
import type { RecordKind } from './store/roles/records.ts';

export type * from './platform-routes.ts';
export type * from './platform-shapes.ts';
export type * from './platform-demo.ts';
export type * from './capabilities/webhooks.ts';
export type * from './capabilities/orders.ts';
export type * from './capabilities/shops.ts';
export type * from './capabilities/stores.ts';
export type * from './capabilities/door.ts';
export type * from './capabilities/operator.ts';
export type * from './capabilities/storefront.ts';
export type * from './capabilities/codes.ts';
export type * from './capabilities/widget.ts';
export { MERCHANT_VIEW_NAME, MERCHANT_VIEW_SEGMENT } from './platform-routes.ts';

/** What a person reads: never the platform's code name. */
export interface PlatformNames {
  /** As a person reads it: "TinyShop". */
  platform: string;
  /** What the platform calls one merchant's store: "shop", "store". */
  shop: string;
  /** Where its merchant opens apps, as a sentence ends: "your TinyShop admin, under Apps". */
  admin: string;
}

/**
 * What a module receives of the ledger (composition/module-store.ts): its records (module-records.ts), and of the
 * other roles what the modules use, each held to its own platform: its orders read and, for a platform's identity
 * migration, moved to a store's new name (imported, their old name erased), its dead letters, one holder at a time.
 */
export type PlatformStore = RecordRole &
  Pick<LedgerLifecycle, 'exclusive'> &
  Pick<OperatorQueries, 'listOrders' | 'countOrders'> &
  Pick<OrderWorkRole, 'getOrder' | 'claimLpOrderId'> &
  Pick<DeadLetterRole, 'listDeadLetters' | 'getDeadLetter' | 'addDeadLetter' | 'removeDeadLetter'> &
  Pick<PrivacyRole, 'eraseShop'> &
  Pick<LedgerTransfer, 'importItems'>;

/** What the bridge hands a module when it builds it. */
export interface PlatformWiring {
  store: PlatformStore;
  logger: Logger;
  /** The bridge's public https address (PUBLIC_URL), where platforms send webhooks and merchants back. */
  publicUrl: string | undefined;
  /** Which store addresses a user may connect, and how they resolve (ALLOW_PRIVATE_STORE_ADDRESSES). */
  storeAddresses: UserAddressPolicy;
  /** Where the platform's API answers for a store's address (tests serve it locally); the address itself otherwise. */
  apiUrl: ((address: string) => string) | undefined;
  /** Tell the bridge a store was connected: its orders are read and its subscriptions checked, after the answer. */
  storeConnected(shop: string): void;
  /** Tell the bridge to check a shop's subscriptions again (the platform says what the app may read changed). */
  subscriptionsChanged(shop: string): void;
  /**
   * Tell the bridge the app was uninstalled from a shop, where the module learns it outside a webhook (a callback it
   * confirmed): what is kept for its customers in memory goes, its reservations are released, its storefront is off
   * (Privacy.shopUninstalled). Call it once the install is forgotten, so the storefront's `served` is false already.
   */
  shopUninstalled(shop: string): Promise<void>;
  /**
   * Tell the bridge the shop's storefront can serve nobody any more while the bridge still reaches the store (the
   * store took back what shows it: a plugin disconnected). Its switch goes off, as if its merchant turned it off,
   * and its open codes are removed from the store where the store still lets the bridge in (code-sweeper.ts); the
   * merchant turns it on again once the store can show it.
   */
  storefrontClosed(shop: string, by: string): Promise<void>;
  /** What the bridge was started with for this platform (startBridge's platformOptions[name]): tests hurry its timers. */
  options?: unknown;
}

/** What tests change of how every platform is reached. */
export interface ReachOverrides {
  apiUrl?: (address: string) => string;
  storeLookup?: LookupFunction;
}

/**
 * The capabilities a platform has, as its module lists them (docs/architecture.md has the table of which platform
 * has which). Each is whole or absent: a caller asks whether the platform has it, never whether a member is there.
 */
export interface PlatformParts {
  /** Its webhooks, at /webhooks/<name>: every platform has them once its settings name a secret to check them by. */
  webhooks?: Webhooks;
  /** Reads its orders, for resync and reconciliation. */
  orders?: Orders;
  /** The shops it serves. */
  shops?: Shops;
  /** The stores the operator's stores panel lists for it. */
  connections?: StoreConnections;
  /** A store the operator connects by its address. */
  connect?: StoreConnect;
  /** Shops the operator installs the platform's app on from the dashboard, at /admin/api/<name>/shops and /installs. */
  installs?: PlatformInstalls;
  /** Its webhook subscriptions, put right by hand. */
  subscriptions?: Subscriptions;
  /** Install, connect, callback and sign-in routes, mounted at /<name>. */
  routes?: readonly PlatformRoute[];
  /** How the merchant page opens for one of its shops. */
  door?: MerchantDoor;
  /** Work of its own on a timer. */
  background?: Background;
  /** What it says to the operator and merchants in its own words. */
  notes?: PlatformNotes;
  /** The customer's identity in the store: who asks for points. */
  storefront?: Storefront;
  /** Its reward codes. */
  codes?: StoreCodes;
  /** Its own plugin in the store, connected with a one-time code. */
  plugin?: StorePlugin;
  /** The store widget the bridge puts on the store. */
  widget?: StoreWidget;
}

export interface PlatformModule<Settings extends z.ZodRawShape = z.ZodRawShape, Own = unknown> {
  /** The code name in stored keys, paths and the API: lower case, never shown to a person. */
  readonly name: string;
  readonly names: PlatformNames;
  /** Its configuration keys, composed into the one schema: each bad one gets its own line. */
  readonly settings: Settings;
  /** Checks across its keys, after each key alone was good; `publicUrl`: the bridge's PUBLIC_URL. None: []. */
  checkSettings(settings: z.output<z.ZodObject<Settings>>, publicUrl: string | undefined): SettingProblem[];
  /** Its parts, or undefined when its settings leave it off; `own`: what its flows still wired by hand need. */
  build(settings: z.output<z.ZodObject<Settings>>, wiring: PlatformWiring): (PlatformParts & { own?: Own }) | undefined;
  /** Whether its settings name a store of the merchant's (a secret, an address): then no demo store plays. */
  configured(settings: z.output<z.ZodObject<Settings>>): boolean;
  /** The kinds of record it keeps of its own (PlatformRecordKinds), with the fields of each the store seals. None: {}. */
  readonly records: SecretFields;
  /**
   * The bridge's kinds it keeps records of beside the other platforms' (its access to a shop: 'session'), each
   * under ids that start with its name ("<name>:…", "<name>-…"). With its own kinds, all its records role reaches
   * (module-records.ts): it cannot read another module's records, nor the core's.
   */
  readonly sharedRecords: readonly RecordKind[];
  /** What a person sets or does for the CLI to work on its stores when the part is missing, as a clause. */
  readonly needs: {
    /** To read its orders (resync): "set X and Y"; null: the CLI's general words. */
    orders: string | null;
    /** To put its subscriptions right (register); `instead`: they are never put right by hand, do this. */
    subscriptions: string | { instead: string } | null;
  };
  /** Its shop in the first run's demo store (src/composition/demo-store.ts); null: it plays none. */
  readonly demo: PlatformDemo | null;
  /** A shop's one name from how a person wrote it in a setting (LOYALTY_ORDER_ID_PREFIXES); null: as written. */
  readonly shopName: ((written: string) => string) | null;
  /** What the CLI's status says after the topics a shop's subscription report calls unconfirmed; null: nothing. */
  readonly unconfirmedWhy: string | null;
  /**
   * Its admin's look for the merchant page outside that admin: a stylesheet of its own (a file URL), served at
   * /<name>/look.css and linked by the page after the page's own, which styles the stand-ins' parts
   * (src/http/merchant/elements.js). null: the stand-ins' neutral look.
   */
  readonly look: URL | null;
}

/** A module of any settings, as lists of modules hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each module's settings are its own; the list only passes them back to it
export type AnyPlatformModule = PlatformModule<any, any>;
