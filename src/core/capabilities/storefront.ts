// The customer's identity in the store: who asks the storefront (../shared/DESIGN.md, "The storefront":
// src/http/storefront-routes.ts, core/storefront/), and the store's own plugin where the platform needs one.
import type { CustomerContact, Readiness, StorefrontAsker } from '../platform-shapes.ts';
import type { RouteCors } from '../platform-routes.ts';

export interface Storefront {
  /**
   * Who may call its main route (/storefront/points) from a page's script, where the store's own pages call the
   * bridge directly rather than through a proxy of the platform's; null: same-origin only (the proxy's case).
   */
  cors: RouteCors | null;
  /**
   * Who is asking, from what the store's page sent and the platform signed (an app proxy's signature, a customer
   * token): the shop and the customer, or a guest; never from anything unsigned. `refused`: the request is not
   * the platform's.
   */
  customer(request: Request): Promise<StorefrontAsker>;
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
  readiness(shop: string): Promise<Readiness>;
  /**
   * Other ways in to the same answers, each its own route below /storefront: who asks from what that caller
   * carries (a customer account extension's session token, where the page is the platform's and no proxy signs
   * it), and the origins its script runs at. Each answers exactly as /storefront/points does once it knows who asks.
   */
  entrances: readonly StorefrontEntrance[];
  /**
   * Whether the bridge still serves the shop (holds its install): asked after the merchant's switch is saved, so a
   * write that raced the shop's uninstall or erasure is taken back. Its uninstall must make it false before it
   * turns the storefront off (Privacy.shopUninstalled). Always true for a platform whose shops are never uninstalled.
   */
  served(shop: string): Promise<boolean>;
}

/** One more way in to the storefront's answers (Storefront.entrances). */
export interface StorefrontEntrance {
  /** Below /storefront, with its leading slash: "/account-points". */
  path: string;
  /** As Storefront.cors, for this route. */
  cors: RouteCors | null;
  /** As Storefront.customer, from what this caller signs. */
  customer(request: Request): Promise<StorefrontAsker>;
}

/**
 * The platform's own plugin, which the store installs where the platform has no app store of its own, and which
 * the merchant connects to the bridge with a one-time code.
 */
export interface StorePlugin {
  /**
   * A one-time code the merchant pastes into the plugin: asked from the shop's page, it replaces any earlier code,
   * and works once until expiresAt. Whoever holds a code gets the store's plugin key with it, so it is given only
   * to who may connect the plugin: `mayConnect` is what the session's sign-in proved of that (true or false where
   * the platform's plugin signed it; undefined where the sign-in proves only that they manage the store). A
   * refusal says in words who may.
   */
  code(
    shop: string,
    asker: { mayConnect: boolean | undefined },
  ): Promise<{ code: string; expiresAt: string } | { refused: string }>;
  /**
   * Where the merchant downloads it (a path below the bridge's address, one of the module's routes), its version,
   * and what they do with it, in their words: where it is added, and where the code is pasted.
   */
  download: { path: string; fileName: string; version: string; howTo: string; pasteWhere: string };
}
