// What Shopify signs for the app with its client secret, checked with @shopify/shopify-api (and with the
// previous secret during a rotation): the App URL's query (hex HMAC-SHA256, its timestamp within 90
// seconds) and App Bridge's session tokens (HS256 JWTs, session-token.ts). Reasons never quote what was
// given: a session token is a credential, and the library's own messages quote it.
import { InvalidHmacError, type Shopify } from '@shopify/shopify-api';
import { SESSION_TOKEN_REFUSALS, verifySessionToken, type SessionTokenRefusal } from './session-token.ts';

export type AppUrlCheck =
  | { ok: true; shop: string; embedded: boolean; host: string | undefined; idToken: string | undefined }
  | { ok: false; reason: string };

export type SessionTokenCheck =
  | {
      ok: true;
      shop: string;
      /** sub: the staff member signed in to the admin, when Shopify names one. */ user?: string;
    }
  | { ok: false; refusal: SessionTokenRefusal; reason: string };

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
    if (!params.hmac)
      return { ok: false, reason: 'the request is not signed (no hmac): open the app from the Shopify admin' };
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
        if (error instanceof InvalidHmacError)
          return {
            ok: false,
            reason:
              'the link is stale (its timestamp is more than 90 seconds off): open the app again from the Shopify admin',
          };
        throw error;
      }
    }
    if (!signed)
      return { ok: false, reason: 'the request is not signed by Shopify for this app (the hmac does not match)' };
    const shop = this.#apps[0]!.utils.sanitizeShop(params.shop ?? '');
    if (!shop) return { ok: false, reason: 'the shop is not a Shopify shop domain' };
    return { ok: true, shop, embedded: params.embedded === '1', host: params.host, idToken: params.id_token };
  }

  /** A session token App Bridge handed the merchant's page: whose shop it is, if it is good. */
  async sessionToken(token: string): Promise<SessionTokenCheck> {
    let refusal: SessionTokenRefusal = 'malformed';
    for (const app of this.#apps) {
      const verified = await verifySessionToken(token, {
        clientId: app.config.apiKey,
        clientSecret: app.config.apiSecretKey,
      });
      if (!verified.ok) {
        refusal = verified.refusal;
        // Only a signature made with another secret is worth trying the previous secret on.
        if (refusal === 'bad_signature') continue;
        return refused(refusal);
      }
      const dest = text(verified.payload.dest) ?? '';
      const shop = /^https:\/\/([^/]+)$/.exec(dest)?.[1];
      if (!shop || !app.utils.sanitizeShop(shop)) return refused('no_shop');
      if (text(verified.payload.iss) !== `https://${shop}/admin`) return refused('wrong_issuer');
      const user = text(verified.payload.sub);
      // One purpose per token: a customer's (customer-account-token.ts) opens no merchant's page.
      if (user?.startsWith('gid://')) return refused('customer_token');
      return { ok: true, shop, ...(user ? { user } : {}) };
    }
    return refused(refusal);
  }
}

const refused = (refusal: SessionTokenRefusal): SessionTokenCheck => ({
  ok: false,
  refusal,
  reason: SESSION_TOKEN_REFUSALS[refusal],
});
