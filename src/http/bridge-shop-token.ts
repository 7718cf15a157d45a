// The sign-in of a store's own page where the platform hands out no session token: a token of the bridge's
// own, the shop and an expiry MACed with a key derived from a secret (never the secret itself, so nothing a
// platform signs passes for one). lbp1.<name>. for each platform's module (platform-routes.ts; its client secret
// where it gives one, else a key the bridge keeps: kept-page-key.ts), each under a label of its own, so none
// passes for another. It comes
// in the answer to the sign-in, never in an address, which one browser could hand another.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a family of tokens is for: its prefix, and the label its key is derived with (one purpose each). */
export interface TokenPurpose {
  prefix: string;
  label: string;
}

/** A working session: the merchant opens the app again from their platform's admin after it. */
export const BRIDGE_SHOP_TOKEN_TTL_MS = 60 * 60_000;

export const isBridgeShopToken = (token: string, purpose: TokenPurpose) => token.startsWith(purpose.prefix);

/** What a session's sign-in proved: the shop, who (where the platform says), and their right to connect its plugin. */
export interface ShopSessionClaims {
  shop: string;
  user?: string;
  mayConnectPlugin?: boolean;
}

export interface BridgeShopTokens {
  /**
   * `user`: who opened the page, when the platform says (a control-panel user's id), for the audit;
   * `mayConnectPlugin`: their right to connect the platform's plugin, where its plugin signed it.
   */
  mint(shop: string, user?: string, mayConnectPlugin?: boolean): string;
  /** The shop the token is for, or undefined when it is not one of ours or has expired. */
  verify(token: string): string | undefined;
  /** What the session's sign-in proved, and when the token was made (ms), or undefined as verify. */
  read(token: string): (ShopSessionClaims & { issuedAt: number }) | undefined;
}

/** `secrets`: the client secret, then the previous one during a rotation (tokens made with it stay good). */
export function bridgeShopTokens(
  secrets: readonly string[],
  now: () => number,
  purpose: TokenPurpose,
): BridgeShopTokens {
  const { prefix, label } = purpose;
  const keys = secrets.map((secret) => createHmac('sha256', secret).update(label).digest());
  const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();
  const read = (token: string): (ShopSessionClaims & { issuedAt: number }) | undefined => {
    if (!token.startsWith(prefix)) return undefined;
    // The claims and their signature, and nothing after: one session has one spelling.
    const parts = token.slice(prefix.length).split('.');
    if (parts.length !== 2) return undefined;
    const [payload = '', given = ''] = parts;
    const signature = Buffer.from(given, 'base64url');
    if (
      !keys.some((key) => {
        const expected = mac(key, payload);
        return expected.length === signature.length && timingSafeEqual(expected, signature);
      })
    )
      return undefined;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        shop?: unknown;
        exp?: unknown;
        user?: unknown;
        plugin?: unknown;
      };
      // A session names its shop: the shop routes would read an empty one as every shop.
      if (
        typeof claims.shop !== 'string' ||
        claims.shop === '' ||
        typeof claims.exp !== 'number' ||
        claims.exp <= now()
      )
        return undefined;
      return {
        shop: claims.shop,
        issuedAt: claims.exp - BRIDGE_SHOP_TOKEN_TTL_MS,
        ...(typeof claims.user === 'string' ? { user: claims.user } : {}),
        ...(typeof claims.plugin === 'boolean' ? { mayConnectPlugin: claims.plugin } : {}),
      };
    } catch {
      return undefined;
    }
  };
  return {
    mint(shop, user, mayConnectPlugin) {
      if (typeof shop !== 'string' || shop === '') throw new Error('a store page session is for one shop, named');
      const plugin = mayConnectPlugin === undefined ? {} : { plugin: mayConnectPlugin };
      const payload = Buffer.from(
        JSON.stringify({ shop, exp: now() + BRIDGE_SHOP_TOKEN_TTL_MS, ...(user ? { user } : {}), ...plugin }),
      ).toString('base64url');
      return `${prefix}${payload}.${mac(keys[0]!, payload).toString('base64url')}`;
    },
    verify: (token) => read(token)?.shop,
    read,
  };
}
