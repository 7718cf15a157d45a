// Each platform registered as a module: its routes and its merchant page's door, mounted by src/http.
import type { RequestHandler } from 'express';
import type express from 'express';
import { randomBytes } from 'node:crypto';
import type { PlatformParts, PlatformRoute, Storefront } from '../core/platform-module.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { SecretsKeyMissingError } from '../core/store/record-secrets.ts';
import { bridgeShopTokens } from '../http/bridge-shop-token.ts';
import { bodyReader } from '../http/body-reader.ts';
import { modulePagePurpose, moduleSurface, ROUTE_BODY_LIMITS } from '../http/platform-routes.ts';
import type { Logger } from '../logger.ts';
import { keptPageKey } from './kept-page-key.ts';
import type { Platforms } from './platforms.ts';

/**
 * Each registered platform's routes and merchant-page door, its sessions keyed from a key the bridge keeps
 * for it. Outside sandbox mode without SECRETS_KEY no key can be kept: its routes are mounted, its page not.
 */
export async function registeredSurfaces(
  built: Platforms['modules'],
  store: LedgerStore,
  shopRoutes: RequestHandler,
  logger: Logger,
  adminToken?: string,
  /** The storefront's routes of a module with a `storefront` part (src/http/storefront-routes.ts). */
  storefrontRoutes?: (
    platform: string,
    parts: Pick<PlatformParts, 'codes'> & { storefront: Storefront },
  ) => PlatformRoute[],
): Promise<Array<{ name: string; routes: express.Router; door: RequestHandler | undefined }>> {
  const surfaces = [];
  // One reader for every module's routes: the limits on bodies read at once hold across them.
  const readBody = bodyReader(ROUTE_BODY_LIMITS);
  for (const { module, parts: own } of built) {
    const storefront =
      own.storefront && storefrontRoutes
        ? storefrontRoutes(module.name, { storefront: own.storefront, codes: own.codes })
        : [];
    const parts = storefront.length > 0 ? { ...own, routes: [...(own.routes ?? []), ...storefront] } : own;
    if (!parts.routes && !parts.door) continue;
    // A platform that gives a secret keys its sessions from it (no key need be kept); any other, from a kept key.
    let keys = parts.door && parts.door.pageKeys.length > 0 ? parts.door.pageKeys : undefined;
    try {
      if (!keys && parts.door) keys = [await keptPageKey(store, `${module.name}-store-page`)];
    } catch (error) {
      if (!(error instanceof SecretsKeyMissingError)) throw error;
      logger.warn({ platform: module.name }, 'its merchant page needs SECRETS_KEY to keep its sign-ins; it is off');
    }
    const tokens = bridgeShopTokens(
      keys ?? [randomBytes(32).toString('base64url')],
      Date.now,
      modulePagePurpose(module.name),
    );
    const surface = moduleSurface({
      module,
      parts: keys ? parts : { ...parts, door: undefined },
      tokens,
      shopRoutes,
      readBody,
      logger,
      adminToken,
      ...(parts.door && !keys
        ? { pageOff: 'loyalty-bridge cannot keep sign-ins yet: its operator has to set SECRETS_KEY.' }
        : {}),
    });
    surfaces.push({ name: module.name, ...surface });
  }
  return surfaces;
}
