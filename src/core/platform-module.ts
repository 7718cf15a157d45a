// One store platform as the bridge needs it, in one object: its settings, its adapter, its order source, which
// shops it serves, its pages and callbacks, and the names a person sees. The composition root builds each
// registered module once; src/http mounts its routes, which are written on the small request-in, answer-out
// interface below, so a module never imports the bridge's HTTP layer. docs/development.md, "Adding a platform".
import type { z } from 'zod';
import type { LookupFunction } from 'node:net';
import type { Logger } from '../logger.ts';
import type { UserAddressPolicy } from '../net/user-address.ts';
import type { DeliveryInfo, PlatformAdapter } from './platform-adapter.ts';
import type { OrderSource } from './order-source.ts';
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

/** What a person reads: never the platform's code name. */
export interface PlatformNames {
  /** As a person reads it: "TinyShop". */
  platform: string;
  /** What the platform calls one merchant's store: "shop", "store". */
  shop: string;
  /** Where its merchant opens apps, as a sentence ends: "your TinyShop admin, under Apps". */
  admin: string;
}

export interface PlatformRequest {
  method: 'GET' | 'POST';
  /** Below the platform's own prefix (/<name>), with its leading slash. */
  path: string;
  query: Readonly<Record<string, string>>;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** A POST's exact bytes, within the route's limit; empty for a GET. */
  body: Buffer;
}

/** What every answer may carry besides: headers, and cookies (each a whole Set-Cookie value, `cookie`'s stringifySetCookie). */
interface AnswerExtras {
  headers?: Readonly<Record<string, string>>;
  setCookies?: readonly string[];
  /** Who may frame this answer's page where that depends on the shop (its own admin); the door's otherwise. */
  frameAncestors?: string;
}

export type PlatformAnswer = AnswerExtras &
  (
    | { status: number; json: unknown }
    | { status: number; text: string }
    /**
     * A script the platform's pages load from the bridge (a widget registered with the platform): served as
     * JavaScript, which browsers and the CDN in front may keep for maxAgeSeconds. Nothing else is served so.
     */
    | { status: number; script: string; maxAgeSeconds: number }
    /** A file a person downloads (a plugin's zip): saved under its name, never shown as a page. */
    | { status: number; download: { fileName: string; contentType: string; bytes: Uint8Array } }
    /** To another address; 302 unless it says 303 (after a POST). */
    | { redirect: string; status?: 302 | 303 }
    /**
     * A page for a person who followed a link: a title, what to do in plain words, and a link onwards. Nothing on
     * it runs; it may be framed where the module's door says (its admin), or nowhere.
     */
    | {
        status: number;
        page: {
          title: string;
          paragraphs: readonly string[];
          link?: { href: string; text: string };
          /** One field asked for, sent by GET to `action` (a path of the bridge's): a store's address. */
          form?: { action: string; name: string; label: string; placeholder: string; button: string };
        };
      }
    /**
     * The shared merchant page, signed in for this shop (and user, where the platform says). Only in answer to
     * a request that proved who the merchant is: the session it carries opens that shop's page for an hour.
     * `shop` is never empty: the bridge makes no session for no shop. `'no-session'`: the page alone, which asks
     * the merchant to sign in again unless the tab holds a session of its own (a reload). `mayConnectPlugin`: what
     * the platform signed of the user's right to connect its plugin (pluginCode), where it signs one.
     */
    | { merchantPage: { shop: string; user?: string; mayConnectPlugin?: boolean } | 'no-session' }
    /**
     * A page inside the platform's own admin, which signs the merchant in itself (its scripts hand the page the
     * platform's session tokens, which the door's `platformSessions` takes): the shared merchant page, or with
     * `merchantPage: false` the platform's head alone (a page whose scripts fetch a fresh token and reload).
     */
    | { embeddedPage: PlatformHead & { merchantPage: boolean } }
  );

/** What a platform's admin needs in a page it frames; the bridge renders the page. */
export interface PlatformHead {
  /** Loaded first, in this order, as they are. */
  scripts: readonly string[];
  /** <meta name content> pairs its scripts read. */
  meta: Readonly<Record<string, string>>;
  /** What its scripts may load, show and call, for the content security policy: origins or path prefixes. */
  sources: { script: readonly string[]; image: readonly string[]; connect: readonly string[] };
  /** Its admin for this shop. */
  frameAncestors: string;
  /** What the merchant page's script takes from the platform's scripts, which it names nowhere itself. */
  page?: {
    /** The global object its scripts define (session tokens, toasts). */
    global: string;
    /** The app's address on the bridge, as the admin opens it, under which each view has its own: `/<name>/app`. */
    appPath: string;
    /** The event its nav sends a link that is clicked. */
    navigateEvent: string;
    /** A header whose value 1 on a 401 asks for one more try with a fresh token. */
    retryHeader?: string;
  };
}

/** The merchant page's views, each with an address under a platform's app path (a reload of its admin opens the same one). */
export const MERCHANT_PAGE_VIEWS = ['setup', 'orders', 'privacy'] as const;

/** Who a bearer token the platform itself signed (not one the bridge made) names, or why it opens nothing. */
export type PlatformSession =
  | { ok: true; shop: string; user?: string }
  | {
      ok: false;
      status: 401 | 403 | 502 | 503;
      error: string;
      /** Headers the platform's scripts read on a refusal (a signal to retry with a fresh token). */
      headers?: Readonly<Record<string, string>>;
    };
export interface PlatformRoute {
  method: 'GET' | 'POST';
  /** Exact path below /<name>: "/load". */
  path: string;
  /** A POST's body is refused past this, before more of it is read (at most the bridge's own limit, 64 KiB). */
  maxBodyBytes?: number;
  /**
   * The browser origins whose scripts may call it from their own pages (CORS): the bridge answers their preflight
   * (OPTIONS) and names the origin on every answer of the route. Absent: same-origin only, no preflight answered.
   */
  cors?: RouteCors;
  handle(request: PlatformRequest): Promise<PlatformAnswer>;
}

/** Who may call a route from another origin's script, and with what. */
export interface RouteCors {
  /**
   * Exact origins (the origin a platform runs its extensions' scripts at). 'any-page': the store's own pages, at
   * whatever domain the merchant gives them, where the bridge cannot know the domains; only for a route whose one
   * credential is a bearer that a page of another origin cannot read (the platform serves it to its own origin, with
   * the customer's cookies), and never with credentials. 'any': answered `Access-Control-Allow-Origin: *`, for any
   * origin, "null" and none included, and never with credentials (no cookie, no Access-Control-Allow-Credentials):
   * only for a route whose one credential is a token the platform signs and its script sends in a header, where the
   * platform documents that its scripts' origin may be null or change (a platform's UI extensions in a web worker).
   */
  origins: readonly string[] | 'any-page' | 'any';
  /** Request headers the script sends beyond the safelisted ones, lower case: ["authorization"]. */
  headers?: readonly string[];
}

/** The merchant page's door: when a session the module's sign-in made opens nothing any more. */
export interface MerchantDoor {
  refusal(session: {
    shop: string;
    user?: string;
    issuedAt: number;
  }): Promise<{ status: 401 | 403; error: string } | undefined>;
  /** Who may frame the page (the platform's admin origins), for its content security policy; "'none'" for a tab. */
  frameAncestors: string;
  /**
   * The page keeps the address it was signed in at, so that a reload sends the sign-in again (one the same
   * browser may repeat, in an admin's frame where the tab's storage may be refused). Otherwise it takes its own
   * address, /<name>/store, and a reload finds the session the tab kept.
   */
  reloadsSignIn?: boolean;
  /**
   * Where a merchant signs in again when no admin of the platform opens the page (a route of the module's, below
   * /<name>), and what the page tells them to do; absent: "open loyalty-bridge from <names.admin>".
   */
  signIn?: { path: string; words: string };
  /** Bearer tokens the platform signs itself (session tokens its admin's script hands the page), taken beside the bridge's own. */
  platformSessions?: {
    /** Whether the bearer is of the platform's shape; anything else goes on to the next door. */
    recognises(token: string): boolean;
    identify(token: string): Promise<PlatformSession>;
  };
  /** Where a merchant whose session ended signs in again (the platform's admin), for the page's link. */
  signInAgain?: string;
  /** No page of its own outside the admin (GET /<name>/store): the platform's admin frames every page. */
  noTabPage?: boolean;
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

/** Everything of a platform the bridge runs; each part is optional, as a platform may lack it. */
export interface PlatformParts {
  /** Verifies and translates its webhooks, at /webhooks/<name>. */
  adapter?: PlatformAdapter<unknown>;
  /** Reads its orders, for resync and reconciliation. */
  source?: OrderSource;
  /**
   * Whether the source has a store to read: one configured (known at build), or one connected since (asked
   * when the bridge looks for stores). Absent: it always has.
   */
  storesToRead?: { configured: boolean; connected(): Promise<boolean> };
  /** Every shop of the platform the bridge knows (installed, connected, allowed by name). */
  shops?(): Promise<string[]>;
  /**
   * What its merchant calls the shop, for the shop's own page ("Signed in to …"): its name as the platform tells
   * it (read once, when it connects, or at the first ask for one connected before; kept in the module's records),
   * else an address of it a person reads. Never a key; plain text (the page shows it as text), at most 100
   * characters. Absent, or undefined: the shop as the bridge names it.
   */
  storeName?(shop: string): Promise<string | undefined>;
  /** Told of each delivery stored or found a duplicate, after the answer. */
  onStored?(info: DeliveryInfo, result: 'accepted' | 'duplicate'): Promise<void>;
  /** Once the ledger is open, before anything is served: moves of what earlier releases kept. */
  prepare?(foldInbox: () => Promise<void>): Promise<void>;
  /** Why a delivery's shop is not served (acknowledged, nothing kept); undefined: served. */
  admitShop?(shop: string, topic: string, info: DeliveryInfo): Promise<string | undefined>;
  /** Whether the operator chose this shop (it earns on the default account); default: yes. */
  chosenByOperator?(shop: string): Promise<boolean>;
  /** Install, connect, callback and sign-in routes, mounted at /<name>. */
  routes?: readonly PlatformRoute[];
  door?: MerchantDoor;
  /** Work of its own on a timer (checks it owes its platform), started once everything is served and stopped first. */
  background?: { start(): void; stop(): Promise<void> };
  /** The stores the operator's stores panel lists for it (GET /admin/api/stores). */
  connections?(): Promise<StoreConnectionView[]>;
  /** A store the operator connects by its address (the dashboard, `loyalty-bridge connect`): someone approves on the platform. */
  connect?: StoreConnect;
  /**
   * Puts its webhook subscriptions right by hand (the CLI's register) for one shop, or each it has, telling
   * each line as it goes; `refused`: what a person must set or do first, as a clause.
   */
  subscriptions?: {
    register(shop: string | undefined, say: (line: string) => void): Promise<{ failed: boolean } | { refused: string }>;
  };
  /**
   * Secrets to key the merchant page's sessions from (the client secret, then the previous one during a rotation),
   * where the platform gives one; absent: a key the bridge keeps (SECRETS_KEY).
   */
  pageKeys?: readonly string[];
  /** Shops the operator installs the platform's app on from the dashboard, at /admin/api/<name>/shops and /installs. */
  installs?: PlatformInstalls;
  /** What the operator's connections panel says of it in their words, beyond what every platform's card shows. */
  operatorNotes?: {
    /** How to serve a shop whose deliveries were ignored as not served. */
    notServed?: string;
    /** What needs the operator's eye now, each a sentence, for a banner. */
    attention?(): Promise<string[]>;
  };
  /** What a merchant's page says of its orders skipped for a reason only this platform gives, by reason: why, and the fix. */
  skipReasons?: Readonly<Record<string, { why: string; fix: string }>>;
  /**
   * The store's own pages, where customers see and spend their points (../shared/DESIGN.md, "The storefront":
   * src/http/storefront-routes.ts, core/storefront/).
   */
  storefront?: StorefrontParts;
}

/** A reward's code as the platform makes it: for one customer, used once, until it expires. */
export interface DiscountCodeRequest {
  shop: string;
  /** The platform's own id of the customer the code is for: only they may use it, where the platform allows. */
  customerId: string;
  /**
   * The customer's e-mail, where the account knows them by one: for a platform that keeps a code to a customer by
   * their e-mail rather than by their id. Platforms that key codes by customerId ignore it.
   */
  email?: string;
  /**
   * The code's text, chosen by the bridge before the code exists (long and random): a code whose make answered
   * nothing (a crash, a lost answer) is found again by it (`find`) and removed.
   */
  code: string;
  /** The code's name in the store's admin ("Loyalty reward: 500 points"). */
  title: string;
  /** The amount off the order, in the store's currency, as a decimal string ("5.00"). */
  amountOff: string;
  /** The smallest order subtotal it applies to, or none. */
  minimumOrder: string | null;
  startsAt: string;
  expiresAt: string;
  /**
   * Whether it combines with product and shipping discounts. Never with another order discount: an order pays
   * with at most one of the bridge's codes, so its one redeem is that code's.
   */
  combinesWithOthers: boolean;
}

/** What making a code came to: the platform's id of it, or the install may not make codes (a scope it lacks). */
export type MadeCode = { kind: 'made'; platformId: string } | { kind: 'not-allowed'; why: string };

/** A customer's identifiers at the loyalty service, as the platform's customer record has them. */
export interface CustomerContact {
  email?: string;
  /** E.164, where the record has a phone. */
  phone?: string;
}

/** Who is asking the storefront: a customer of a shop, a guest of it, or a request the platform did not sign. */
export type StorefrontAsker =
  | {
      kind: 'customer';
      shop: string;
      customerId: string;
      /**
       * Who they are at the loyalty service, where what the platform signed carries it (a token the store's own
       * server signs with their e-mail and phone): then `contact` is not asked. Absent: read with `contact`.
       */
      contact?: CustomerContact;
      /**
       * The platform names them by an address they have not proven yet (one the store never checked): they are
       * read as no one, and asked to prove it (the answer's `proveContact`, which the widget's transport carries
       * out on the store's side).
       */
      contactUnproven?: true;
    }
  | { kind: 'guest'; shop: string }
  | { kind: 'refused' };

/** One more way in to the storefront's answers (StorefrontParts.entrances). */
export interface StorefrontEntrance {
  /** Below /storefront, with its leading slash: "/account-points". */
  path: string;
  cors?: RouteCors;
  /** As StorefrontParts.customer, from what this caller signs. */
  customer(request: PlatformRequest): Promise<StorefrontAsker>;
}

export interface StorefrontParts {
  /**
   * Who may call its main route (/storefront/points) from a page's script, where the store's own pages call the
   * bridge directly rather than through a proxy of the platform's; absent: same-origin only (the proxy's case).
   */
  cors?: RouteCors;
  /**
   * Who is asking, from what the store's page sent and the platform signed (an app proxy's signature, a customer
   * token): the shop and the customer, or a guest; never from anything unsigned. `refused`: the request is not
   * the platform's.
   */
  customer(request: PlatformRequest): Promise<StorefrontAsker>;
  /**
   * The customer's contact, read from the platform's own customer record on the bridge's side (never from the
   * browser), for the identifier the account keys users by. `not-allowed`: the install lacks what reading it needs
   * (a scope); undefined: no such customer, or a record with neither.
   */
  contact(shop: string, customerId: string): Promise<CustomerContact | 'not-allowed' | undefined>;
  /**
   * Whether the shop's install can serve its storefront now: what it lacks (scopes the merchant approves when they
   * turn the storefront on, or a kind of install that cannot have them, with the reason in words).
   */
  readiness?(shop: string): Promise<{ ready: true } | { ready: false; missingScopes: string[]; why: string }>;
  /**
   * Other ways in to the same answers, each its own route below /storefront: who asks from what that caller
   * carries (a customer account extension's session token, where the page is the platform's and no proxy signs
   * it), and the origins its script runs at. Each answers exactly as /storefront/points does once it knows who asks.
   */
  entrances?: readonly StorefrontEntrance[];
  /**
   * Whether the bridge still serves the shop (holds its install): asked after the merchant's switch is saved, so a
   * write that raced the shop's uninstall or erasure is taken back. Its uninstall must make it false before it
   * turns the storefront off (Privacy.shopUninstalled). Absent: a platform whose shops are never uninstalled.
   */
  served?(shop: string): Promise<boolean>;
  /**
   * A reward's codes on the platform (reserve at issue, redeem at use: src/core/storefront/reservations.ts). Every
   * call may throw (the platform unreachable, access gone): the caller keeps the reservation and tries again later.
   * An error whose `transient` is true says the store is only down now (asking again may succeed): the sweeper then
   * never takes it for a store that cannot be asked.
   */
  codes?: {
    /** Makes the code on the platform: one use, for that customer where the platform allows, ending at expiresAt. */
    make(request: DiscountCodeRequest): Promise<MadeCode>;
    /** The platform's id of a code by its text, or undefined when the store has none: the repair of a lost make. */
    find(shop: string, code: string): Promise<string | undefined>;
    /**
     * How often the code paid for an order, read from the platform (not from the orders the bridge happened to
     * see); undefined when the store has no such code any more. Throws an error whose `accessGone` is true when the
     * store no longer lets the bridge in at all (its key revoked): a code past its expiry is then let go.
     */
    uses(shop: string, platformId: string): Promise<number | undefined>;
    /** Removes a code, so that it pays for nothing later; one already gone is removed. */
    remove(shop: string, platformId: string): Promise<void>;
    /**
     * Whether a code is kept to the customer it is for (the platform refuses it to anyone else); false where the
     * platform cannot (its text, long and random, is shown only to them); absent: false. The merchant's page says
     * which.
     */
    forOneCustomer?: boolean;
    /**
     * Whether the platform counts a code's uses some time after the order (a count "updated asynchronously", in one
     * platform's words): a count of 0 read soon after a checkout may hide a use, so a code removed unused before its
     * expiry keeps its points held through the settling window for its order. Absent: counted with the order.
     */
    usesCountedLate?: boolean;
    /** Whether the install may make codes now (a scope the merchant approves when they turn rewards on). */
    readiness?(shop: string): Promise<{ ready: true } | { ready: false; missingScopes: string[]; why: string }>;
  };
  /**
   * A one-time code the merchant pastes into the platform's own plugin to connect it to the bridge (a plugin the
   * store installs, where the platform has no app store of its own): asked from the shop's page, it replaces any
   * earlier code, and works once until expiresAt. Whoever holds a code gets the store's plugin key with it, so it
   * is given only to who may connect the plugin: `mayConnect` is what the session's sign-in proved of that (true or
   * false where the platform's plugin signed it; undefined where the sign-in proves only that they manage the
   * store). A refusal says in words who may. Absent: the platform connects without one.
   */
  pluginCode?(
    shop: string,
    asker: { mayConnect: boolean | undefined },
  ): Promise<{ code: string; expiresAt: string } | { refused: string }>;
  /**
   * Where the merchant downloads that plugin (a path below the bridge's address, one of the module's routes), its
   * version, and what they do with it, in their words: where it is added, and where the code is pasted.
   */
  pluginDownload?: { path: string; fileName: string; version: string; howTo: string; pasteWhere: string };
  /**
   * Puts the widget on the store, or takes it off; where the platform needs the bridge to (a script it registers).
   * The bridge puts it when the merchant turns the storefront on, takes it off when they turn it off, and checks it
   * now and then while on, putting back one someone removed (core/storefront/widget-keeper.ts).
   */
  widget?: {
    /** scriptUrl: <PUBLIC_URL>/<platform>/storefront/widget.js?store=<shop>, which the module's own route serves. */
    put(shop: string, scriptUrl: string): Promise<void>;
    remove(shop: string): Promise<void>;
    /** Whether it is still there: reconciliation puts back one someone removed. */
    present(shop: string): Promise<boolean>;
  };
}

/** One store as the operator's stores panel shows it: never a key, token or secret. */
export interface StoreConnectionView {
  shop: string;
  /** Its address, where the platform names stores by one. */
  url: string | null;
  /** How the bridge came to serve it: environment (configured), connect, app (installed). */
  via: string;
  connectedAt: string | null;
  /** What its key may do, where the platform says. */
  keyPermissions: string | null;
  /** How its key gets through (the query string where the server drops the Authorization header). */
  authMode: string | null;
}

/** Where a connect lands once approved: the operator's dashboard, or the store's own page (a link made for its merchant). */
export type ConnectLanding = 'dashboard' | 'store-page';

export interface StoreConnect {
  /** Why no connect can start now (a setting of the bridge's), or undefined when it can. */
  problem(): string | undefined;
  /** How long a connect waits for its approval. */
  ttlMs: number;
  /** Where to send whoever approves (a link that works once), or why not this address. */
  begin(
    address: string,
    landing: ConnectLanding,
  ): Promise<
    | { ok: true; began: { authorizeUrl: string; shop: string; storeUrl: string; expiresAt: string } }
    | { ok: false; problem: string }
  >;
}

/** One shop's install, as the dashboard shows it (the module may say more). */
export interface PlatformInstall {
  shop: string;
  access: string;
  expiresAt: string | null;
  scope: string | null;
}

/** A platform whose app the operator installs on a shop (its consent screen), and the shops it is installed on. */
export interface PlatformInstalls {
  /** Whether an install may start now (the app and the bridge's public address are set). */
  canInstall(): boolean;
  /** What the operator is told when it cannot: the settings it needs. */
  cannotInstall: string;
  /**
   * Every shop the app has access to, each described: `access`, how, in the operator's words (and why it is not
   * served, if it is not); `expiresAt` and `scope`, its token's, where it has them.
   */
  shops(): Promise<ReadonlyArray<PlatformInstall>>;
  /** One shop's access, described, for its own page. */
  describe(shop: string): Promise<PlatformInstall>;
  /** A shop's address as the operator types it, for the install form's example. */
  example: string;
  /** What the operator sends to start one: the shop's address, as the platform writes it. */
  input: z.ZodType<{ shop: string }>;
  /** The operator (their token's label) starts an install: the shop becomes one the bridge serves; `next`: where the browser goes. */
  start(shop: string, by: string): Promise<{ next: string }>;
}

/** A setting that is wrong given the others: one line, for one key. */
export interface SettingProblem {
  key: string;
  message: string;
}

export interface PlatformModule<Settings extends z.ZodRawShape = z.ZodRawShape, Own = unknown> {
  /** The code name in stored keys, paths and the API: lower case, never shown to a person. */
  readonly name: string;
  readonly names: PlatformNames;
  /** Its configuration keys, composed into the one schema: each bad one gets its own line. */
  readonly settings: Settings;
  /** Checks across its keys, after each key alone was good; `publicUrl`: the bridge's PUBLIC_URL. */
  checkSettings?(settings: z.output<z.ZodObject<Settings>>, publicUrl: string | undefined): SettingProblem[];
  /** Its parts, or undefined when its settings leave it off; `own`: what its flows still wired by hand need. */
  build(settings: z.output<z.ZodObject<Settings>>, wiring: PlatformWiring): (PlatformParts & { own?: Own }) | undefined;
  /** Whether its settings name a store of the merchant's (a secret, an address): then no demo store plays. */
  configured?(settings: z.output<z.ZodObject<Settings>>): boolean;
  /** The kinds of record it keeps of its own (PlatformRecordKinds), with the fields of each the store seals. */
  readonly records?: SecretFields;
  /**
   * The bridge's kinds it keeps records of beside the other platforms' (its access to a shop: 'session'), each
   * under ids that start with its name ("<name>:…", "<name>-…"). With its own kinds, all its records role reaches
   * (module-records.ts): it cannot read another module's records, nor the core's.
   */
  readonly sharedRecords: readonly RecordKind[];
  /** What a person sets or does for the CLI to work on its stores when the part is missing, as a clause. */
  readonly needs?: {
    /** To read its orders (resync): "set X and Y". */
    orders?: string;
    /** To put its subscriptions right (register); `instead`: they are never put right by hand, do this. */
    subscriptions?: string | { instead: string };
  };
  /** Its shop in the first run's demo store (src/composition/demo-store.ts), when it plays one. */
  readonly demo?: PlatformDemo;
  /** A shop's one name from how a person wrote it in a setting (LOYALTY_ORDER_ID_PREFIXES); absent: as written. */
  shopName?(written: string): string;
  /** What the CLI's status says after the topics a shop's subscription report calls unconfirmed. */
  readonly unconfirmedWhy?: string;
  /**
   * Its admin's look for the merchant page outside that admin: a stylesheet of its own (a file URL), served at
   * /<name>/look.css and linked by the page after the page's own, which styles the stand-ins' parts
   * (src/http/merchant/elements.js). Absent: the stand-ins' neutral look.
   */
  readonly look?: URL;
}

/** One order of the demo store's, and the steps of its life: each a delivery, in its platform's own terms. */
export interface DemoOrder<Step = unknown> {
  customer: { first: string; last: string; email: string; phone: string | null };
  total: string;
  test?: boolean;
  /** A referred order: its campaign, with a referrer's code, where the platform carries them. */
  campaign?: string;
  /** Paid at the demo store page's checkout with a reward's code: the code and its amount off, as the order names them. */
  code?: { code: string; amount: string };
  steps: readonly Step[];
}

/**
 * The demo shop's store page (issue 68): the platform's own storefront widget, served by the bridge, reaching the
 * bridge's storefront routes signed as the platform signs them, with this run's secret. The demo stands in for the
 * platform's side alone (its pages, its sign-in, its checkout, its codes); the bridge's side is the real one.
 */
export interface DemoStorefront {
  /** The customer who signs in: one of the demo's orders' customers (their points), by the platform's id for them. */
  customer: { id: string; of: DemoOrder['customer'] };
  /** The step of a checkout paid now: one delivery, as the platform sends a paid order. */
  paidStep: unknown;
  /** The demo shop's currency, as its orders name it ("USD"). */
  currency: string;
  /** Who asks, read from the request by the platform's own check (its signature), with this run's secret. */
  asker(request: PlatformRequest, secret: string): Promise<StorefrontAsker>;
  /**
   * Below the page, where the store's own server answers the widget (an app proxy's path, a plugin's routes at the
   * site's root): the page hands every call there to `serve`. Undefined: the widget asks its page's origin alone.
   */
  sidePath: string | undefined;
  /**
   * Paths at the origin's root that the widget asks of its store's own server, where its script names them so (a
   * current-customer token's path): while the demo plays, the bridge's origin hands them to `serve` as they are,
   * and the page's sign-in reaches them.
   */
  originPaths: readonly string[];
  /**
   * The widget's HTML for the page's head and body: its files below `assetBase`, the store's side at `side`. Made
   * for who is signed in (`customerId`, undefined for a guest), as a store's page is.
   */
  widget(at: { assetBase: string; side: string; signInUrl: string; customerId: string | undefined; secret: string }): {
    head: string;
    body: string;
  };
  /** One of the widget's files, by name, as the page loads it. */
  asset(name: string): { contentType: string; body: string } | undefined;
  /**
   * A widget's call to the store's side (`path` below sidePath, "/" at least, or one of originPaths), as the
   * platform's server takes it: forwarded to the bridge (the path below /<platform>, with the query, signed as the
   * platform signs), answered there as the platform's plugin or server answers, or sent on to another of the store's
   * pages (`redirect`); undefined for anything that is not one of the widget's calls. `customerId`: the signed-in
   * customer's, or undefined for a guest; `page`: the store page's own path.
   */
  serve(call: {
    method: string;
    path: string;
    query: ReadonlyArray<readonly [string, string]>;
    headers: Readonly<Record<string, string | undefined>>;
    customerId: string | undefined;
    secret: string;
    page: string;
  }): { forward: string } | { status: number; contentType: string; body: string } | { redirect: string } | undefined;
  /**
   * The signed-in customer asking the store what it holds of them, as the platform sends that to the app (a signed
   * delivery to the webhook route), for the merchant's Data requests: `orderIds` are the customer's orders, `id` the
   * request's. Undefined where the platform sends none (its merchants answer such requests in their own admin).
   */
  dataRequest:
    | ((ask: { id: number; orderIds: readonly number[]; secret: string; at: string }) => {
        headers: Record<string, string>;
        body: string;
      })
    | undefined;
}

/** An order of the demo's as it stands now: what a platform's API answers of it. */
export interface DemoOrderState {
  id: number;
  number: number;
  order: DemoOrder;
  /** Its last step delivered. */
  step: unknown;
  /** When its first and its last step were delivered. */
  createdAt: string;
  at: string;
}

/**
 * The demo shop's API, where the platform's deliveries name their order only and its module reads the order from
 * the store (its API): the module's own adapter, reading the demo shop's orders there, and the API's answers to
 * those reads, from the orders the demo sent.
 */
export interface DemoApi {
  /** The module's adapter, checking deliveries with `secret`, reading the demo shop's orders at `url()` (the API's address on the bridge, known once it listens). */
  adapter(at: { url: () => string; secret: string }): PlatformAdapter<unknown>;
  /** One read, `path` below the API's address, as the module's client sends it; undefined for anything else. */
  answer(call: {
    method: string;
    path: string;
    query: ReadonlyArray<readonly [string, string]>;
    headers: Readonly<Record<string, string | undefined>>;
    secret: string;
    orders: readonly DemoOrderState[];
  }): { status: number; body: unknown } | undefined;
}

/** A platform's shop in the first run's demo store: no store of the merchant's, deliveries signed for this run. */
export interface PlatformDemo<Step = unknown> {
  /** Its shop, as its settings name it (the bridge's name for it is the module's shopName of this). */
  shop: string;
  /** The settings that serve its shop, checking deliveries with `secret` (made for this run only). */
  settings(secret: string): Readonly<Record<string, unknown>>;
  /** The orders it plays each round. */
  orders: readonly DemoOrder<Step>[];
  /**
   * A step as the platform delivers it: signed with `secret`, `id` the order's (new to the run), `number` what its
   * shop calls it (#1001 on), `sequence` new for each delivery.
   */
  delivery(step: {
    id: number;
    number: number;
    order: DemoOrder<Step>;
    step: Step;
    at: string;
    secret: string;
    sequence: number;
  }): {
    headers: Record<string, string>;
    body: string;
  };
  /** Its store's own page, where the demo's customer sees and spends their points; absent: none. */
  storefront?: DemoStorefront;
  /** Its shop's API, where its deliveries carry no order; absent: they carry the whole order. */
  api?: DemoApi;
  /** What its shop calls an order, where not "#<number>" (a platform that names an order by its id). */
  orderName?(order: { id: number; number: number }): string;
  /**
   * A delivery it sent, signed again as if sent `now`, for a platform whose signatures go stale (a resync reads the
   * demo's deliveries again, minutes later); absent: its signatures do not age.
   */
  resigned?(
    delivery: { headers: Record<string, string>; body: string },
    secret: string,
    now: Date,
  ): Record<string, string>;
}

/** A module of any settings, as lists of modules hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each module's settings are its own; the list only passes them back to it
export type AnyPlatformModule = PlatformModule<any, any>;
