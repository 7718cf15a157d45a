// The storefront's routes of a platform with a `storefront` part, mounted at /<name>/storefront/…: what a
// customer sees of their points on the store's pages. Each route only learns who asks, from what the platform
// signed (storefront.customer), and hands that to the storefront's service (src/services/storefront.ts), whose
// answer it sends as it is. Each of the part's entrances (a customer account extension's route) answers the same,
// once it knows who asks. docs/storefront.md.
import { routeQuery } from '../core/platform-answers.ts';
import type { PlatformRoute, Storefront, StorefrontEntrance } from '../core/platform-module.ts';
import type { StorefrontAnswer, StorefrontService } from '../services/storefront.ts';

export { CUSTOMER_WORDS, REDEEM_WORDS } from '../services/storefront.ts';

export interface StorefrontRouteParts {
  platform: string;
  /** Who asks, at each of the platform's ways in. */
  storefront: Pick<Storefront, 'cors' | 'customer' | 'entrances'>;
  service: Pick<StorefrontService, 'redeems' | 'points' | 'redeem'>;
}

/** The service's answer as the widgets read it, with its headers (a Retry-After). */
const toResponse = ({ status, json, headers }: StorefrontAnswer): Response =>
  Response.json(json, { status, ...(headers ? { headers } : {}) });

export function storefrontRoutes({ platform, storefront, service }: StorefrontRouteParts): PlatformRoute[] {
  // The proxy's route and every entrance share every step after "who asks".
  const entrances: StorefrontEntrance[] = [
    {
      path: '/points',
      cors: storefront.cors,
      customer: (request) => storefront.customer(request),
    },
    ...storefront.entrances,
  ];
  const redeems = service.redeems(platform);
  return entrances.flatMap((entrance) => {
    const points: PlatformRoute = {
      method: 'GET',
      path: `/storefront${entrance.path}`,
      ...(entrance.cors ? { cors: entrance.cors } : {}),
      handle: async (request) => toResponse(await service.points(platform, await entrance.customer(request))),
    };
    if (!redeems) return [points];
    // The reward is named in the query (signed with the rest where the platform signs it): no body is read.
    const redeem: PlatformRoute = {
      method: 'POST',
      path: `/storefront${entrance.path}/redeem`,
      maxBodyBytes: 0,
      ...(entrance.cors ? { cors: entrance.cors } : {}),
      handle: async (request) =>
        toResponse(await service.redeem(platform, await entrance.customer(request), routeQuery(request).reward)),
    };
    return [points, redeem];
  });
}
