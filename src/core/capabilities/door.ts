// The merchant's door: how the shared merchant page is opened for a shop of the platform, and when a session it
// made opens nothing any more.
import type { DoorSession } from '../platform-shapes.ts';
import type { PlatformSession } from '../platform-routes.ts';

export interface MerchantDoor {
  refusal(session: DoorSession): Promise<{ status: 401 | 403; error: string } | undefined>;
  /** Who may frame the page (the platform's admin origins), for its content security policy; "'none'" for a tab. */
  frameAncestors: string;
  /**
   * The page keeps the address it was signed in at, so that a reload sends the sign-in again (one the same
   * browser may repeat, in an admin's frame where the tab's storage may be refused). False: it takes its own
   * address, /<name>/store, and a reload finds the session the tab kept.
   */
  reloadsSignIn: boolean;
  /**
   * Where a merchant signs in again when no admin of the platform opens the page (a route of the module's, below
   * /<name>), and what the page tells them to do; null: "open loyalty-bridge from <names.admin>".
   */
  signIn: { path: string; words: string } | null;
  /** Bearer tokens the platform signs itself (session tokens its admin's script hands the page), taken beside the bridge's own; null: none. */
  platformSessions: {
    /** Whether the bearer is of the platform's shape; anything else goes on to the next door. */
    recognises(token: string): boolean;
    identify(token: string): Promise<PlatformSession>;
  } | null;
  /** Where a merchant whose session ended signs in again (the platform's admin), for the page's link; null: none. */
  signInAgain: string | null;
  /** No page of its own outside the admin (GET /<name>/store): the platform's admin frames every page. */
  noTabPage: boolean;
  /**
   * Secrets to key the merchant page's sessions from (the client secret, then the previous one during a rotation),
   * where the platform gives one; empty: a key the bridge keeps (SECRETS_KEY).
   */
  pageKeys: readonly string[];
}

/**
 * The door of a page that is a tab of its own, which no admin frames or signs in for: the bridge's own sessions, its
 * own page key, no link back to an admin; `refusal` says when a session opens nothing any more, `signIn` where a
 * merchant signs in again.
 */
export const tabDoor = (refusal: MerchantDoor['refusal'], signIn: MerchantDoor['signIn'] = null): MerchantDoor => ({
  frameAncestors: "'none'",
  reloadsSignIn: false,
  signIn,
  platformSessions: null,
  signInAgain: null,
  noTabPage: false,
  pageKeys: [],
  refusal,
});
