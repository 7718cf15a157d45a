// The door of a BigCommerce store's own page (src/core/platform-module.ts, MerchantDoor): a session the load
// callback opened opens nothing once the store has no app installed or is not served here, nor once the store's
// owner removed its control-panel user after the session was made (removed-users.ts).
import type { MerchantDoor } from '../../src/core/platform-module.ts';
import type { AllowedStores } from './allowed-shops.ts';
import type { RemovedUsers } from './removed-users.ts';
import type { BigCommerceStores } from './stores.ts';

/** BigCommerce shows app pages in a frame of its control panel, and nowhere else. */
export const CONTROL_PANEL_ORIGINS = 'https://*.bigcommerce.com https://*.mybigcommerce.com';

export interface BigCommerceDoorParts {
  /** The app's installs: a store served only through BIGCOMMERCE_ACCESS_TOKEN has no app, and no page. */
  stores: Pick<BigCommerceStores, 'existing'>;
  allowed: Pick<AllowedStores, 'check'>;
  removedUsers: Pick<RemovedUsers, 'removedSince'>;
}

export const bigCommerceDoor = ({ stores, allowed, removedUsers }: BigCommerceDoorParts): MerchantDoor => ({
  frameAncestors: CONTROL_PANEL_ORIGINS,
  // A reload of the Load frame sends its payload again, with the frame's cookie (app-routes.ts).
  reloadsSignIn: true,
  // The control panel opens every page (its Load callback): no sign-in, tokens or page of the bridge's own.
  signIn: null,
  platformSessions: null,
  signInAgain: null,
  noTabPage: false,
  // No key of the platform's to sign pages with: the bridge keeps one.
  pageKeys: [],
  async refusal({ shop, user, issuedAt }) {
    if (!(await stores.existing(shop)))
      return { status: 401, error: 'the app is not installed on this store any more' };
    const allowance = await allowed.check(shop);
    if (!allowance.allowed) return { status: 403, error: allowance.reason };
    if (user !== undefined && (await removedUsers.removedSince(shop, user, issuedAt)))
      return { status: 401, error: 'the store’s owner removed this user’s access' };
    return undefined;
  },
});
