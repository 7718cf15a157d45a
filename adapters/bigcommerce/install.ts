// GET /bigcommerce/auth: an install from the control panel (or new scopes). A store the bridge does not serve
// is refused before its code is used; the code is exchanged for the store's token, kept, and the store's hooks
// and recent orders are seen to after the answer, a page of that store's state (installed-page.ts).
import { routeQuery } from '../../src/core/platform-answers.ts';
import type { PlatformRoute } from '../../src/core/platform-module.ts';

import { page, type BigCommerceAppParts } from './flow-parts.ts';
import { BigCommerceAuthError, exchangeBigCommerceCode, storeHashOfContext } from './app-token.ts';
import { installedPage } from './installed-page.ts';
import { SHOP_KIND } from '../../src/core/store/roles/core-kinds.ts';

export const AUTH_PATH = '/auth';
const START_AGAIN = 'Start the install again from the BigCommerce control panel (Apps).';

export function installRoute(parts: BigCommerceAppParts): PlatformRoute {
  const { logger, store, stores, allowed } = parts;
  return {
    method: 'GET',
    path: AUTH_PATH,
    async handle(request) {
      const { code = '', scope = '', context = '' } = routeQuery(request);
      const storeHash = storeHashOfContext(context);
      if (!code || !storeHash) return page(400, 'This install link is not complete', START_AGAIN);
      // Before the code is used: a store the bridge does not serve gets no token kept, and no hooks.
      const allowance = await allowed.check(storeHash);
      if (!allowance.allowed) {
        logger.warn(
          { platform: 'bigcommerce', shop: storeHash },
          'a BigCommerce install from a store this bridge does not serve was refused',
        );
        return page(403, 'This store may not install the app', `${allowance.reason}.`);
      }
      let token;
      try {
        token = await exchangeBigCommerceCode({
          loginUrl: parts.loginUrl,
          clientId: parts.clientId,
          clientSecret: parts.clientSecret,
          redirectUri: `${parts.base}/bigcommerce${AUTH_PATH}`,
          code,
          scope,
          context,
        });
      } catch (error) {
        if (!(error instanceof BigCommerceAuthError)) throw error;
        logger.warn(
          { platform: 'bigcommerce', shop: storeHash, reason: error.message },
          'a BigCommerce install could not be completed',
        );
        return error.refused
          ? page(
              400,
              'BigCommerce did not accept this install',
              `${error.message}. Start the install again from the control panel; if it keeps failing, check BIGCOMMERCE_CLIENT_ID and BIGCOMMERCE_CLIENT_SECRET.`,
            )
          : page(502, 'BigCommerce did not answer', 'Try the install again in a minute.');
      }
      if (token.storeHash !== storeHash) {
        logger.warn(
          { platform: 'bigcommerce', shop: storeHash, answeredFor: token.storeHash },
          'BigCommerce answered an install for another store than the link named; nothing was kept',
        );
        return page(400, 'BigCommerce did not accept this install', START_AGAIN);
      }
      const now = new Date().toISOString();
      const before = await stores.existing(storeHash);
      await stores.save({
        platform: 'bigcommerce',
        shop: storeHash,
        accessToken: token.accessToken,
        scope: token.scope,
        // No header secret: BigCommerce signs the app's hooks with its client secret, and that alone is checked (stores.ts).
        accountUuid: token.accountUuid,
        installedAt: before?.installedAt ?? now,
        updatedAt: now,
      });
      // Rewritten whole: a pending uninstall check ends with the reinstall.
      await store.putRecord(SHOP_KIND, `bigcommerce:${storeHash}`, {
        platform: 'bigcommerce',
        shop: storeHash,
        uninstalledAt: null,
        installedAt: now,
      });
      logger.info(
        { platform: 'bigcommerce', shop: storeHash, scope: token.scope, allowed: allowance.why },
        'BigCommerce app installed',
      );
      const answer = await installedPage(store, storeHash, {
        dashboardUrl: `${parts.base}/admin/`,
        notice:
          'Installed. The bridge is creating its hooks and reading the last day’s orders; reload in a minute to see them.',
      });
      parts.storeConnected(storeHash);
      return answer;
    },
  };
}
