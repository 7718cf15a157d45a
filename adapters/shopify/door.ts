// The merchant page's door (the admin API as a shop's own page calls it, without ADMIN_TOKEN): the bridge's
// own sessions (made at an install or a signed App URL outside the admin) and App Bridge's session tokens
// inside it. The shop must be one the bridge serves; an embedded shop with no working access yet gets it here,
// by token exchange. No answer or log line quotes a token.
import type { MerchantDoor, PlatformSession } from '../../src/core/platform-module.ts';
import { SecretsKeyMissingError } from '../../src/core/store/record-secrets.ts';
import { ShopifyAccessError } from './access.ts';
import { KEY_MISSING, type ShopifyFlowParts } from './flow-parts.ts';
import { RETRY_INVALID_SESSION_HEADER, SHOPIFY_ADMIN } from './paths.ts';

const RETRY = { [RETRY_INVALID_SESSION_HEADER]: '1' };

/** A JWT: three base64url parts. */
const looksLikeSessionToken = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

export function shopifyPageDoor(
  parts: Pick<ShopifyFlowParts, 'shopify' | 'allowed' | 'signatures' | 'installed' | 'embedded' | 'logger'>,
): Omit<MerchantDoor, 'pageKeys'> {
  const { shopify, allowed, signatures, installed, embedded, logger } = parts;
  const { access } = shopify;

  async function identify(token: string): Promise<PlatformSession> {
    const checked = await signatures.sessionToken(token);
    if (!checked.ok) return { ok: false, status: 401, error: checked.reason, headers: RETRY };
    const allowance = await allowed.check(checked.shop);
    if (!allowance.allowed) return { ok: false, status: 403, error: allowance.reason };
    if (!(await access.hasWorkingAccess(checked.shop))) {
      try {
        await access.exchange(checked.shop, token);
      } catch (error) {
        logger.warn({ shop: checked.shop, reason: (error as Error).message }, 'token exchange failed');
        // As shopify-app-js: a session token Shopify does not take at token exchange is an invalid session; the page asks App Bridge for a fresh one and tries again.
        if (error instanceof ShopifyAccessError && error.code === 'invalid_session')
          return { ok: false, status: 401, error: 'Shopify did not accept this session token', headers: RETRY };
        // The token came, and the bridge may not keep it: the operator's to put right (the log says how).
        if (error instanceof SecretsKeyMissingError) return { ok: false, status: 503, error: KEY_MISSING };
        const refused = error instanceof ShopifyAccessError && error.code !== 'unavailable';
        return {
          ok: false,
          status: refused ? 401 : 502,
          error: refused
            ? 'Shopify did not give access to this shop for this session: reload the app from your Shopify admin'
            : 'Shopify did not answer; try again in a minute',
        };
      }
      await installed(checked.shop, 'token_exchange');
    }
    return { ok: true, shop: checked.shop, ...(checked.user ? { user: checked.user } : {}) };
  }

  return {
    // Outside the admin the page is a tab of its own; inside it, each page names its shop's admin itself.
    frameAncestors: "'none'",
    refusal: async ({ shop }) =>
      (await allowed.check(shop)).allowed
        ? undefined
        : { status: 403, error: 'this shop is not one this bridge serves' },
    platformSessions: { recognises: looksLikeSessionToken, identify },
    signInAgain: SHOPIFY_ADMIN,
    // Inside the admin there is no page of the bridge's own: the App URL opens it, and no other way in.
    noTabPage: embedded,
    // The page takes its own address, /shopify/store; Shopify's admin signs each visit with a fresh session token.
    reloadsSignIn: false,
    signIn: null,
  };
}
