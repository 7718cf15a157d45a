// A shop's sign-in to its own dashboard when the app is not embedded. There
// App Bridge hands out no session tokens, so once Shopify has proved who
// opened the app (a signed App URL, or a completed install), the bridge
// hands the page a token of its own: the shop and an expiry, MACed with a
// key derived from the client secret (never the secret itself, so nothing
// Shopify signs can pass for one, nor one for anything Shopify signs). The
// page gets it in the address's fragment, which a browser never sends to a
// server, and keeps it in the tab's sessionStorage.
//   lbs1.<base64url {"shop","exp"}>.<base64url HMAC-SHA256>
import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'lbs1.';
const KEY_LABEL = 'loyalty-bridge shop dashboard v1';
/** A working session: the merchant opens the app again from the Shopify admin after it. */
export const BRIDGE_SHOP_TOKEN_TTL_MS = 60 * 60_000;

export const isBridgeShopToken = (token: string) => token.startsWith(PREFIX);

export interface BridgeShopTokens {
  mint(shop: string): string;
  /** The shop the token is for, or undefined when it is not one of ours or has expired. */
  verify(token: string): string | undefined;
}

/** `secrets`: the client secret, then the previous one during a rotation (tokens made with it stay good). */
export function bridgeShopTokens(secrets: readonly string[], now: () => number = Date.now): BridgeShopTokens {
  const keys = secrets.map((secret) => createHmac('sha256', secret).update(KEY_LABEL).digest());
  const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    mint(shop) {
      const payload = Buffer.from(JSON.stringify({ shop, exp: now() + BRIDGE_SHOP_TOKEN_TTL_MS })).toString(
        'base64url',
      );
      return `${PREFIX}${payload}.${mac(keys[0]!, payload).toString('base64url')}`;
    },
    verify(token) {
      if (!isBridgeShopToken(token)) return undefined;
      const [payload = '', given = ''] = token.slice(PREFIX.length).split('.');
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
        };
        return typeof claims.shop === 'string' && typeof claims.exp === 'number' && claims.exp > now()
          ? claims.shop
          : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
