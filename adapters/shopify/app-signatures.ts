// What Shopify signs for the app with its client secret, checked with
// @shopify/shopify-api (with the previous secret too, during a rotation):
//   the App URL     Shopify opens it with shop, host, timestamp and hmac (hex
//                   HMAC-SHA256 of the other parameters, sorted), plus
//                   embedded=1 and id_token inside the admin; the timestamp
//                   must be within 90 seconds
//   session tokens  App Bridge's ID tokens: HS256 JWTs with iss
//                   (https://<shop>/admin), dest (https://<shop>), aud (the
//                   client id), sub, exp, nbf, iat, jti and sid; exp and nbf
//                   are held to the library's 10 seconds of leeway
// Reasons never quote what was given: a session token is a credential, and
// the library's own messages quote it.
import { InvalidHmacError, InvalidJwtError, type Shopify } from '@shopify/shopify-api';

export type AppUrlCheck =
  | { ok: true; shop: string; embedded: boolean; host: string | undefined; idToken: string | undefined }
  | { ok: false; reason: string };

export type SessionTokenCheck = { ok: true; shop: string } | { ok: false; reason: string };

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export class ShopifyAppSignatures {
  /** The current secret's library first, then the previous one's. */
  readonly #apps: readonly Shopify[];

  constructor(apps: readonly Shopify[]) {
    if (apps.length === 0) throw new Error('ShopifyAppSignatures needs the app');
    this.#apps = apps;
  }

  /** The App URL's query, as Shopify sent it. */
  async appUrl(query: Record<string, unknown>): Promise<AppUrlCheck> {
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(query)) {
      // Shopify sends each parameter once; a repeated one is not something it signed.
      if (typeof value !== 'string') return { ok: false, reason: `the parameter ${name} is not a single value` };
      params[name] = value;
    }
    if (!params.hmac) return { ok: false, reason: 'the request is not signed (no hmac): open the app from the Shopify admin' };
    // The library lets a missing timestamp through; Shopify always signs one.
    if (!/^\d+$/.test(params.timestamp ?? '')) return { ok: false, reason: 'the request carries no timestamp' };
    let signed = false;
    for (const app of this.#apps) {
      try {
        if (await app.utils.validateHmac(params, { signator: 'admin' })) {
          signed = true;
          break;
        }
      } catch (error) {
        if (error instanceof InvalidHmacError) return { ok: false, reason: 'the link is stale (its timestamp is more than 90 seconds off): open the app again from the Shopify admin' };
        throw error;
      }
    }
    if (!signed) return { ok: false, reason: 'the request is not signed by Shopify for this app (the hmac does not match)' };
    const shop = this.#apps[0]!.utils.sanitizeShop(params.shop ?? '');
    if (!shop) return { ok: false, reason: 'the shop is not a Shopify shop domain' };
    return { ok: true, shop, embedded: params.embedded === '1', host: params.host, idToken: params.id_token };
  }

  /** A session token App Bridge handed the merchant's page: whose shop it is, if it is good. */
  async sessionToken(token: string): Promise<SessionTokenCheck> {
    let failure = 'the session token is not valid';
    for (const app of this.#apps) {
      let payload: Record<string, unknown>;
      try {
        payload = (await app.session.decodeSessionToken(token)) as unknown as Record<string, unknown>;
      } catch (error) {
        if (!(error instanceof InvalidJwtError)) throw error;
        const detail = libraryDetail(error.message);
        failure = whyRefused(detail);
        // Only a signature made with another secret is worth trying the previous secret on.
        if (/signature/i.test(detail)) continue;
        return { ok: false, reason: failure };
      }
      // The library checks exp and nbf only when present; Shopify's tokens always carry both.
      if (typeof payload.exp !== 'number' || typeof payload.nbf !== 'number') return { ok: false, reason: 'the session token has no exp or nbf' };
      const dest = text(payload.dest) ?? '';
      const shop = /^https:\/\/([^/]+)$/.exec(dest)?.[1];
      if (!shop || !app.utils.sanitizeShop(shop)) return { ok: false, reason: 'the session token does not name a shop (dest)' };
      if (text(payload.iss) !== `https://${shop}/admin`) return { ok: false, reason: 'the session token was not issued by the shop it names (iss and dest differ)' };
      return { ok: true, shop };
    }
    return { ok: false, reason: failure };
  }
}

/** The library's message quotes the token ('…'), then says what failed: only that last part is read. */
const libraryDetail = (message: string) => message.slice(message.lastIndexOf("': ") + 1);

function whyRefused(message: string): string {
  if (/invalid API key/i.test(message)) return 'the session token is for another app (aud is not this client id)';
  if (/"exp" claim/.test(message)) return 'the session token has expired';
  if (/"nbf" claim/.test(message)) return 'the session token is not valid yet';
  if (/signature/i.test(message)) return 'the session token is not signed with this app\'s client secret';
  return 'the session token is not valid';
}
