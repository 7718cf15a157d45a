// Admin API access per shop, whichever way the merchant gives it:
//   own store          client credentials grant (SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_SHOP):
//                      a token valid 24 h, fetched when first needed
//   install by OAuth   expiring offline tokens (60 minutes) with a refresh token that
//                      rotates on each use, one session per installed shop
//   legacy custom app  a fixed token (SHOPIFY_ADMIN_TOKEN)
// A token is shared by every caller for its shop: one fetch or refresh at a
// time (across instances too, through the store's exclusive lock), renewed a
// few minutes before it expires and once more after a 401. Tokens live in
// the ledger (owner-only files, or the database) as 'session' records and
// never appear in a log line, an error or an answer.
import type { Shopify } from '@shopify/shopify-api';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';

export type SessionMode = 'client_credentials' | 'oauth_expiring' | 'oauth' | 'legacy';

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
  updatedAt: string;
}

export const sessionId = (shop: string) => `shopify:${shop}`;

/** What @shopify/shopify-api hands back from a grant, an exchange or a refresh. */
type GrantedSession = { shop: string; accessToken?: string | undefined; expires?: Date | undefined; refreshToken?: string | undefined; refreshTokenExpires?: Date | undefined; scope?: string | undefined };

/** Both tokens of one grant in one record, so that one write never pairs a new access token with an old refresh token. */
function sessionOf(granted: GrantedSession, mode: SessionMode, now: Date, shop = granted.shop): ShopifySession {
  return {
    platform: 'shopify',
    shop,
    mode,
    accessToken: granted.accessToken ?? '',
    expiresAt: granted.expires?.toISOString() ?? null,
    ...(granted.refreshToken ? { refreshToken: granted.refreshToken, refreshTokenExpiresAt: granted.refreshTokenExpires?.toISOString() } : {}),
    scope: granted.scope,
    updatedAt: now.toISOString(),
  };
}

/** Renew this long before a token expires, so that no call goes out with one about to die. */
const RENEW_BEFORE_MS = 5 * 60_000;

export class ShopifyAccessError extends Error {
  readonly code: 'no_access' | 'refused' | 'unavailable';
  constructor(message: string, code: ShopifyAccessError['code']) {
    super(message);
    this.name = 'ShopifyAccessError';
    this.code = code;
  }
}

export interface ShopifyAccessOptions {
  store: LedgerStore;
  /** The library, for the grants; absent when only a legacy token is configured. */
  app?: Shopify | undefined;
  /** The merchant's own store, reached by the client credentials grant (or the legacy token). */
  ownShop?: string | undefined;
  legacyToken?: string | undefined;
  now?: () => Date;
}

export class ShopifyAccess {
  readonly #o: ShopifyAccessOptions;
  readonly #now: () => Date;
  /** One renewal at a time per shop in this process; the store's lock covers other instances. */
  readonly #renewing = new Map<string, Promise<ShopifySession>>();

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
    const installed = (await this.#o.store.listRecords<ShopifySession>('session'))
      .map(({ value }) => value)
      .filter((session) => session.platform === 'shopify')
      .map((session) => session.shop);
    return [...new Set([...(this.ownShopMode ? [this.#o.ownShop!] : []), ...installed])].sort();
  }

  async hasAccess(shop: string): Promise<boolean> {
    if (shop === this.#o.ownShop && this.ownShopMode) return true;
    return (await this.#o.store.getRecord<ShopifySession>('session', sessionId(shop))) !== undefined;
  }

  /**
   * A token for the shop. `renew`: the last one was refused (401), so a new
   * one is fetched even if this one looks alive, unless another caller
   * already replaced it.
   */
  async token(shop: string, { renew = false, refused }: { renew?: boolean; refused?: string } = {}): Promise<string> {
    if (shop === this.#o.ownShop && this.#o.legacyToken) {
      if (renew) throw new ShopifyAccessError(`Shopify refused the Admin API token of ${shop}; check SHOPIFY_ADMIN_TOKEN and the app's scopes`, 'refused');
      return this.#o.legacyToken;
    }
    const session = await this.#o.store.getRecord<ShopifySession>('session', sessionId(shop));
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
    const before = await this.#o.store.getRecord<ShopifySession>('session', sessionId(shop));
    for (let attempt = 0; attempt < 50; attempt++) {
      const result = await this.#o.store.exclusive(`shopify-token:${shop}`, async () => {
        // Another instance may have renewed it while we waited: use that one.
        const current = await this.#o.store.getRecord<ShopifySession>('session', sessionId(shop));
        if (current && current.accessToken !== before?.accessToken && !this.#expiring(current)) return current;
        return this.#fetchNew(shop, current);
      });
      if (result.ran) return result.value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new ShopifyAccessError(`could not renew the Admin API token of ${shop}: another instance holds the renewal`, 'unavailable');
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
        session = sessionOf(renewed, 'oauth_expiring', this.#now(), shop);
      } else if (shop === this.#o.ownShop) {
        const { session: granted } = await app.auth.clientCredentials({ shop });
        session = sessionOf(granted, 'client_credentials', this.#now(), shop);
      } else {
        throw new ShopifyAccessError(`the Admin API token of ${shop} cannot be renewed: install the app again (GET /shopify/auth?shop=${shop})`, 'no_access');
      }
    } catch (error) {
      throw describeGrantError(error, shop);
    }
    if (!session.accessToken) throw new ShopifyAccessError(`Shopify answered the token request for ${shop} without a token`, 'unavailable');
    // Both tokens in one record, one write: never a new access token with an old refresh token.
    await this.#o.store.putRecord('session', sessionId(shop), session);
    return session;
  }

  /** OAuth's answer for a shop: kept as its session, replacing any earlier one. */
  async saveInstalled(session: GrantedSession): Promise<void> {
    await this.#o.store.putRecord<ShopifySession>('session', sessionId(session.shop), sessionOf(session, session.refreshToken ? 'oauth_expiring' : 'oauth', this.#now()));
  }

  /** What the admin may see of a shop's access: never a token. */
  async describe(shop: string): Promise<{ shop: string; mode: SessionMode | 'none'; expiresAt: string | null; scope: string | null }> {
    if (shop === this.#o.ownShop && this.#o.legacyToken) return { shop, mode: 'legacy', expiresAt: null, scope: null };
    const session = await this.#o.store.getRecord<ShopifySession>('session', sessionId(shop));
    if (!session) return { shop, mode: shop === this.#o.ownShop && this.#o.app ? 'client_credentials' : 'none', expiresAt: null, scope: null };
    return { shop, mode: session.mode, expiresAt: session.expiresAt, scope: session.scope ?? null };
  }
}

/** The library's errors carry Shopify's answer; ours say what to fix, and never the secret or a token. */
function describeGrantError(error: unknown, shop: string): ShopifyAccessError {
  if (error instanceof ShopifyAccessError) return error;
  const response = (error as { response?: { code?: number; body?: unknown } }).response;
  const status = response?.code;
  const body = response?.body as { error?: string; error_description?: string } | undefined;
  if (status === 400 || status === 401 || status === 403) {
    const what = body?.error === 'invalid_grant' ? 'the refresh token was refused (expired or revoked): install the app again' : `${body?.error ?? 'refused'}: check SHOPIFY_API_KEY, SHOPIFY_API_SECRET and that the app is installed on ${shop}`;
    return new ShopifyAccessError(`Shopify refused a token for ${shop} (${status}): ${what}`, 'refused');
  }
  return new ShopifyAccessError(`Shopify did not answer the token request for ${shop}${status ? ` (${status})` : ''}: ${(error as Error).name}`, 'unavailable');
}
