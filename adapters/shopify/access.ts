// Admin API access per shop, whichever way the merchant gives it: the client credentials grant (the own
// store, 24-hour tokens), OAuth or token exchange (expiring offline tokens, 60 minutes, with a refresh
// token that rotates on each use), or a legacy custom app's fixed token. A token is shared by every caller
// for its shop and renewed one at a time, across instances too (the store's exclusive lock). Tokens are
// 'session' records, never in a log line, an error or an answer.
import { InvalidJwtError, RequestedTokenType, type Shopify } from '@shopify/shopify-api';
import { z } from 'zod';
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import { refusalOf, refusalText } from '../../src/net/refusal.ts';
import { BridgeError } from '../../src/errors.ts';

export type SessionMode = 'client_credentials' | 'oauth_expiring' | 'oauth' | 'token_exchange' | 'legacy';

export interface ShopifySession {
  platform: 'shopify';
  shop: string;
  mode: SessionMode;
  accessToken: string;
  /** null: the token does not expire (legacy, or an offline token from before expiry). */
  expiresAt: string | null;
  refreshToken?: string | undefined;
  refreshTokenExpiresAt?: string | undefined;
  scope?: string | undefined;
  /** Shopify refused to renew this session (its refresh token was revoked or expired): the merchant's next open gets a new one. */
  renewalRefusedAt?: string | undefined;
  updatedAt: string;
}

export const sessionId = (shop: string) => `shopify:${shop}`;

/** A shop's access tokens, kept as the platform's access to it. */
export const SHOPIFY_SESSION = recordType<ShopifySession>(
  'session',
  z.looseObject({
    platform: z.literal('shopify'),
    shop: z.string(),
    mode: z.enum(['client_credentials', 'oauth_expiring', 'oauth', 'token_exchange', 'legacy']),
    accessToken: z.string(),
    expiresAt: z.string().nullable(),
    refreshToken: z.string().optional(),
    refreshTokenExpiresAt: z.string().optional(),
    scope: z.string().optional(),
    renewalRefusedAt: z.string().optional(),
    updatedAt: z.string(),
  }),
  'shopify:',
);

/** What @shopify/shopify-api hands back from a grant, an exchange or a refresh. */
type GrantedSession = {
  shop: string;
  accessToken?: string | undefined;
  expires?: Date | undefined;
  refreshToken?: string | undefined;
  refreshTokenExpires?: Date | undefined;
  scope?: string | undefined;
};

/** Both tokens of one grant in one record, so that one write never pairs a new access token with an old refresh token. */
function sessionOf(granted: GrantedSession, mode: SessionMode, now: Date, shop = granted.shop): ShopifySession {
  return {
    platform: 'shopify',
    shop,
    mode,
    accessToken: granted.accessToken ?? '',
    expiresAt: granted.expires?.toISOString() ?? null,
    ...(granted.refreshToken
      ? { refreshToken: granted.refreshToken, refreshTokenExpiresAt: granted.refreshTokenExpires?.toISOString() }
      : {}),
    scope: granted.scope,
    updatedAt: now.toISOString(),
  };
}

/** Renew this long before a token expires, so that no call goes out with one about to die. */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * invalid_session: the session token given to token exchange was not
 * accepted (the library's own check, or Shopify's invalid_subject_token):
 * what shopify-app-js treats as an invalid session, which a fresh token from
 * App Bridge puts right.
 */
export class ShopifyAccessError extends BridgeError<'no_access' | 'refused' | 'invalid_session' | 'unavailable'> {
  constructor(message: string, code: ShopifyAccessError['code']) {
    super(code, message, {
      fix:
        code === 'unavailable'
          ? undefined
          : "Open the app from the shop's Shopify admin (or install it again) so the bridge gets a new token",
    });
  }
}

export interface ShopifyAccessOptions {
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>;
  /** The library, for the grants; absent when only a legacy token is configured. */
  app?: Shopify | undefined;
  /** The library with the previous client secret, during a rotation: session tokens Shopify still signs with it are exchanged with it. */
  previousApp?: Shopify | undefined;
  /** The merchant's own store, reached by the client credentials grant (or the legacy token). */
  ownShop?: string | undefined;
  legacyToken?: string | undefined;
  now?: () => Date;
}

export class ShopifyAccess {
  readonly #o: ShopifyAccessOptions;
  readonly #now: () => Date;
  /** One renewal (or exchange) at a time per shop in this process; the store's lock covers other instances. */
  readonly #renewing = new Map<string, Promise<ShopifySession>>();
  readonly #exchanging = new Map<string, Promise<void>>();

  constructor(options: ShopifyAccessOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** How access to the own shop is had, if configured. */
  get ownShopMode(): SessionMode | undefined {
    if (!this.#o.ownShop) return undefined;
    if (this.#o.legacyToken) return 'legacy';
    return this.#o.app ? 'client_credentials' : undefined;
  }

  get canInstall(): boolean {
    return Boolean(this.#o.app);
  }

  /** Every shop the bridge can read: the own shop, and every shop installed by OAuth. */
  async shops(): Promise<string[]> {
    const installed = (await this.#o.store.listRecords(SHOPIFY_SESSION)).map(({ value }) => value.shop);
    return [...new Set([...(this.ownShopMode ? [this.#o.ownShop!] : []), ...installed])].sort();
  }

  async hasAccess(shop: string): Promise<boolean> {
    if (shop === this.#o.ownShop && this.ownShopMode) return true;
    return (await this.#o.store.getRecord(SHOPIFY_SESSION, sessionId(shop))) !== undefined;
  }

  /**
   * Whether the bridge can call the shop's Admin API without the merchant:
   * a token that is alive, or a refresh token to get the next one with.
   */
  async hasWorkingAccess(shop: string): Promise<boolean> {
    if (shop === this.#o.ownShop && this.ownShopMode) return true;
    const session = await this.#o.store.getRecord(SHOPIFY_SESSION, sessionId(shop));
    if (!session?.accessToken || session.renewalRefusedAt) return false;
    if (session.expiresAt === null || !this.#expiring(session)) return true;
    return (
      Boolean(session.refreshToken) &&
      (!session.refreshTokenExpiresAt || Date.parse(session.refreshTokenExpiresAt) > this.#now().getTime())
    );
  }

  /**
   * An embedded shop without working access: the session token App Bridge
   * gave the merchant's page is exchanged for the shop's expiring offline
   * token (token exchange). Once per shop across instances: under the same
   * lock as renewals, and not at all when another caller got access first.
   */
  exchange(shop: string, sessionToken: string): Promise<void> {
    let exchanging = this.#exchanging.get(shop);
    if (!exchanging) {
      exchanging = this.#exchangeExclusively(shop, sessionToken).finally(() => this.#exchanging.delete(shop));
      this.#exchanging.set(shop, exchanging);
    }
    return exchanging;
  }

  async #exchangeExclusively(shop: string, sessionToken: string): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const result = await this.#o.store.exclusive(`shopify-token:${shop}`, async () => {
        if (await this.hasWorkingAccess(shop)) return;
        const session = await this.#tokenExchange(shop, sessionToken);
        await this.#o.store.putRecord(SHOPIFY_SESSION, sessionId(shop), session);
      });
      if (result.ran) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new ShopifyAccessError(
      `could not get Admin API access to ${shop}: another instance holds the token exchange`,
      'unavailable',
    );
  }

  async #tokenExchange(shop: string, sessionToken: string): Promise<ShopifySession> {
    const apps = [this.#o.app, this.#o.previousApp].filter((app): app is Shopify => app !== undefined);
    if (apps.length === 0)
      throw new ShopifyAccessError(`loyalty-bridge has no app configured to get access to ${shop}`, 'no_access');
    for (const [i, app] of apps.entries()) {
      try {
        const { session } = await app.auth.tokenExchange({
          shop,
          sessionToken,
          requestedTokenType: RequestedTokenType.OfflineAccessToken,
          expiring: true,
        });
        if (!session.accessToken)
          throw new ShopifyAccessError(
            `Shopify answered the token exchange for ${shop} without a token`,
            'unavailable',
          );
        return sessionOf(session, 'token_exchange', this.#now(), shop);
      } catch (error) {
        // The library checks the session token before sending it; its message quotes the token, so it goes no further.
        if (error instanceof InvalidJwtError) {
          if (i < apps.length - 1) continue;
          throw new ShopifyAccessError(`the session token for ${shop} was not valid`, 'invalid_session');
        }
        throw describeGrantError(error, shop);
      }
    }
    throw new ShopifyAccessError(`the session token for ${shop} was not valid`, 'invalid_session');
  }

  /**
   * A token for the shop. `renew`: the last one was refused (401), so a new
   * one is fetched even if this one looks alive, unless another caller
   * already replaced it.
   */
  async token(shop: string, { renew = false, refused }: { renew?: boolean; refused?: string } = {}): Promise<string> {
    if (shop === this.#o.ownShop && this.#o.legacyToken) {
      if (renew)
        throw new ShopifyAccessError(
          `Shopify refused the Admin API token of ${shop}; check SHOPIFY_ADMIN_TOKEN and the app's scopes`,
          'refused',
        );
      return this.#o.legacyToken;
    }
    const session = await this.#o.store.getRecord(SHOPIFY_SESSION, sessionId(shop));
    const fresh = session && !(renew && session.accessToken === refused) && !this.#expiring(session);
    if (fresh) return session.accessToken;
    return (await this.#renew(shop)).accessToken;
  }

  #expiring(session: ShopifySession): boolean {
    return session.expiresAt !== null && Date.parse(session.expiresAt) - RENEW_BEFORE_MS <= this.#now().getTime();
  }

  #renew(shop: string): Promise<ShopifySession> {
    let renewing = this.#renewing.get(shop);
    if (!renewing) {
      renewing = this.#renewExclusively(shop).finally(() => this.#renewing.delete(shop));
      this.#renewing.set(shop, renewing);
    }
    return renewing;
  }

  async #renewExclusively(shop: string): Promise<ShopifySession> {
    const before = await this.#o.store.getRecord(SHOPIFY_SESSION, sessionId(shop));
    for (let attempt = 0; attempt < 50; attempt++) {
      const result = await this.#o.store.exclusive(`shopify-token:${shop}`, async () => {
        // Another instance may have renewed it while we waited: use that one.
        const current = await this.#o.store.getRecord(SHOPIFY_SESSION, sessionId(shop));
        if (current && current.accessToken !== before?.accessToken && !this.#expiring(current)) return current;
        return this.#fetchNew(shop, current);
      });
      if (result.ran) return result.value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new ShopifyAccessError(
      `could not renew the Admin API token of ${shop}: another instance holds the renewal`,
      'unavailable',
    );
  }

  async #fetchNew(shop: string, current: ShopifySession | undefined): Promise<ShopifySession> {
    const app = this.#o.app;
    if (!app) throw new ShopifyAccessError(`loyalty-bridge has no Admin API access to ${shop}`, 'no_access');
    let session: ShopifySession;
    try {
      if (current?.refreshToken) {
        // Shopify keeps the old refresh token valid until the new access token is used, so a crash
        // before the save below strands nothing: the old one is simply used again.
        const { session: renewed } = await app.auth.refreshToken({ shop, refreshToken: current.refreshToken });
        session = sessionOf(
          renewed,
          current.mode === 'token_exchange' ? 'token_exchange' : 'oauth_expiring',
          this.#now(),
          shop,
        );
      } else if (shop === this.#o.ownShop) {
        const { session: granted } = await app.auth.clientCredentials({ shop });
        session = sessionOf(granted, 'client_credentials', this.#now(), shop);
      } else {
        throw new ShopifyAccessError(
          `the Admin API token of ${shop} cannot be renewed: open the app from the shop's Shopify admin, or install it again (GET /shopify/auth?shop=${shop})`,
          'no_access',
        );
      }
    } catch (error) {
      const described = describeGrantError(error, shop);
      // Kept, so that the shop is still listed and described; marked, so that the next open of the app replaces it.
      if (described.code === 'refused' && current?.refreshToken)
        await this.#o.store.putRecord(SHOPIFY_SESSION, sessionId(shop), {
          ...current,
          renewalRefusedAt: this.#now().toISOString(),
        });
      throw described;
    }
    if (!session.accessToken)
      throw new ShopifyAccessError(`Shopify answered the token request for ${shop} without a token`, 'unavailable');
    // Both tokens in one record, one write: never a new access token with an old refresh token.
    await this.#o.store.putRecord(SHOPIFY_SESSION, sessionId(shop), session);
    return session;
  }

  /** OAuth's answer for a shop: kept as its session, replacing any earlier one. */
  async saveInstalled(session: GrantedSession): Promise<void> {
    await this.#o.store.putRecord(
      SHOPIFY_SESSION,
      sessionId(session.shop),
      sessionOf(session, session.refreshToken ? 'oauth_expiring' : 'oauth', this.#now()),
    );
  }

  /** What the admin may see of a shop's access: never a token. */
  async describe(
    shop: string,
  ): Promise<{ shop: string; mode: SessionMode | 'none'; expiresAt: string | null; scope: string | null }> {
    if (shop === this.#o.ownShop && this.#o.legacyToken) return { shop, mode: 'legacy', expiresAt: null, scope: null };
    const session = await this.#o.store.getRecord(SHOPIFY_SESSION, sessionId(shop));
    if (!session)
      return {
        shop,
        mode: shop === this.#o.ownShop && this.#o.app ? 'client_credentials' : 'none',
        expiresAt: null,
        scope: null,
      };
    return { shop, mode: session.mode, expiresAt: session.expiresAt, scope: session.scope ?? null };
  }
}

/** The library's errors carry Shopify's answer; ours say what to fix, and never the secret or a token. */
function describeGrantError(error: unknown, shop: string): ShopifyAccessError {
  if (error instanceof ShopifyAccessError) return error;
  const refusal = refusalOf(error);
  // Shopify's token endpoint never redirects: the app's secret and the shop's codes go to it alone.
  if (refusal)
    return new ShopifyAccessError(`the token request for ${shop} went no further: ${refusalText(refusal)}`, 'refused');
  const response = (error as { response?: { code?: number; body?: unknown } }).response;
  const status = response?.code;
  const body = response?.body as { error?: string; error_description?: string } | undefined;
  // Token exchange: the session token expired on its way, or was used already.
  if (status === 400 && body?.error === 'invalid_subject_token')
    return new ShopifyAccessError(
      `Shopify did not accept the session token for ${shop} (invalid_subject_token)`,
      'invalid_session',
    );
  if (status === 400 || status === 401 || status === 403) {
    const what =
      body?.error === 'invalid_grant'
        ? 'the refresh token was refused (expired or revoked): install the app again'
        : `${body?.error ?? 'refused'}: check SHOPIFY_API_KEY, SHOPIFY_API_SECRET and that the app is installed on ${shop}`;
    return new ShopifyAccessError(`Shopify refused a token for ${shop} (${status}): ${what}`, 'refused');
  }
  return new ShopifyAccessError(
    `Shopify did not answer the token request for ${shop}${status ? ` (${status})` : ''}: ${(error as Error).name}`,
    'unavailable',
  );
}
