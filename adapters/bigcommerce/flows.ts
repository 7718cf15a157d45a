// The single-click app, where its client id, client secret and PUBLIC_URL are set: its callbacks as routes of
// the module, the door of the page its load callback opens, and its checks of pending uninstalls, which the
// bridge starts once everything is served (those an earlier run left included).
import { z } from 'zod';
import type { PlatformParts, PlatformWiring } from '../../src/core/platform-module.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';
import type { AllowedStores } from './allowed-shops.ts';
import { appRoutes } from './app-routes.ts';
import { bigCommerceDoor } from './door.ts';
import { installRoute } from './install.ts';
import { RemovedUsers } from './removed-users.ts';
import type { BigCommerceSettings } from './settings.ts';
import type { BigCommerceStores } from './stores.ts';
import { UninstallChecks } from './uninstall-checks.ts';

/** startBridge's platformOptions.bigcommerce: when pending uninstalls are checked again (tests hurry it). */
const appOptions = z
  .object({
    uninstallChecks: z
      .object({ recheckDelaysMs: z.array(z.number().positive()).optional(), passMs: z.number().positive().optional() })
      .optional(),
  })
  .optional();

export function bigCommerceApp(
  settings: BigCommerceSettings,
  { store, logger, publicUrl, storeConnected, shopUninstalled, options }: PlatformWiring,
  { stores, allowed }: { stores: BigCommerceStores; allowed: AllowedStores },
): Pick<PlatformParts, 'routes' | 'door' | 'background'> {
  const { BIGCOMMERCE_CLIENT_ID: clientId, BIGCOMMERCE_CLIENT_SECRET: clientSecret } = settings;
  if (!clientId || !clientSecret || !publicUrl) return {};
  if (!allowed.configured) {
    logger.warn(
      { platform: 'bigcommerce' },
      'BIGCOMMERCE_CLIENT_ID is set, but no store may install the app: list the stores in BIGCOMMERCE_STORES (or set BIGCOMMERCE_STORE_HASH, or BIGCOMMERCE_OPEN_INSTALLS=true)',
    );
  }
  const removedUsers = new RemovedUsers(store);
  const parts = {
    store,
    stores,
    allowed,
    removedUsers,
    clientId,
    clientSecret,
    loginUrl: settings.BIGCOMMERCE_LOGIN_URL,
    base: trimTrailing(publicUrl, '/'),
    logger,
    storeConnected,
  };
  const uninstalls = new UninstallChecks({
    store,
    stores,
    logger,
    shopUninstalled,
    ...appOptions.parse(options)?.uninstallChecks,
  });
  return {
    routes: [installRoute(parts), ...appRoutes(parts, uninstalls)],
    door: bigCommerceDoor({ stores, allowed, removedUsers }),
    background: { start: () => uninstalls.start(), stop: () => uninstalls.stop() },
  };
}
