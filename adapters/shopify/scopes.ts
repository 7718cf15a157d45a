// The access scopes the app holds on a shop, as Shopify tells them (currentAppInstallation.accessScopes):
// what to ask for depends on them (Order.customer needs read_customers; the order's own e-mail, phone and
// addresses need only read_orders). A token's `scope` at install may be out of date, since merchants can
// change scopes later; app/scopes_update says when, and forgets what is remembered here.
import type { ShopifyAdminApi } from './admin-api.ts';

export const SCOPES_QUERY = `query LoyaltyBridgeScopes {
  currentAppInstallation { accessScopes { handle } }
}`;

/** Scopes remembered this long before Shopify is asked again (app/scopes_update forgets them at once). */
const REMEMBER_MS = 10 * 60 * 1000;

const remembered = new WeakMap<ShopifyAdminApi, { scopes: Promise<ReadonlySet<string>>; at: number }>();

/** The scopes granted on the api's shop; write_x implies read_x, as Shopify grants it. */
export function grantedScopes(api: ShopifyAdminApi, now = Date.now()): Promise<ReadonlySet<string>> {
  const held = remembered.get(api);
  if (held && now - held.at < REMEMBER_MS) return held.scopes;
  const scopes = api
    .query<{ currentAppInstallation: { accessScopes: Array<{ handle: string }> } }>(SCOPES_QUERY, {}, 2)
    .then(({ currentAppInstallation }) =>
      withImplied(currentAppInstallation.accessScopes.map((scope) => scope.handle)),
    );
  remembered.set(api, { scopes, at: now });
  // A failed ask is not remembered: the next caller asks again.
  scopes.catch(() => remembered.delete(api));
  return scopes;
}

/** Shopify told us the scopes changed (app/scopes_update), or a call showed them to be other than remembered. */
export function forgetScopes(api: ShopifyAdminApi): void {
  remembered.delete(api);
}

export function withImplied(handles: readonly string[]): ReadonlySet<string> {
  const scopes = new Set(handles.map((handle) => handle.trim()).filter(Boolean));
  for (const scope of [...scopes]) if (scope.startsWith('write_')) scopes.add(scope.replace(/^write_/, 'read_'));
  return scopes;
}

/** A GraphQL error that names a scope the app lacks ("Required access: `read_customers`"). */
export function missingScope(message: string): string | undefined {
  return /Required access:\s*`?(\w+)`?/i.exec(message)?.[1];
}

/**
 * The scopes of `wanted` the api's shop has not granted. A scope that looks missing is asked of Shopify again: the
 * merchant may have approved it a moment ago (shopify.scopes.request), before Shopify's app/scopes_update arrived,
 * so what is remembered is not trusted to refuse.
 */
export async function lackingScopes(api: ShopifyAdminApi, wanted: readonly string[]): Promise<string[]> {
  const lackingIn = (granted: ReadonlySet<string>) => wanted.filter((scope) => !granted.has(scope));
  const lacking = lackingIn(await grantedScopes(api));
  if (lacking.length === 0) return lacking;
  forgetScopes(api);
  return lackingIn(await grantedScopes(api));
}
