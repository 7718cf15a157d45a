// The WooCommerce stores one bridge serves: the one configured by environment, and every store connected
// through WooCommerce's app authentication, whose keys and webhook secret are 'session' records. Both are
// named the same way (shop-identity.ts), so a store connected after being configured is one store.
// Deliveries are verified before the answer, so the secrets are cached (shared/cached-records.ts).
import { DEFAULT_ACCOUNT } from '../../src/core/accounts.ts';
import { z } from 'zod';
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { OutboundPolicy } from '../../src/net/outbound.ts';
import type { UserAddressPolicy } from '../../src/net/user-address.ts';
import { CachedRecords } from '../shared/cached-records.ts';
import { WooRestClient, WooRestError, type WooAuthMode } from './admin-api.ts';
import { wooShopOf, wooStoreUrl } from './shop-identity.ts';

export type WooKeyPermissions = 'read' | 'write' | 'read_write';

/** A store connected through /wc-auth: what WooCommerce sent, and the secret of the webhooks the bridge made. */
export interface WooConnection {
  platform: 'woocommerce';
  shop: string;
  url: string;
  consumerKey: string;
  consumerSecret: string;
  keyId: number | null;
  keyPermissions: WooKeyPermissions;
  webhookSecret: string;
  /** How the key gets through this store's server (query string where it drops the Authorization header). */
  authMode?: WooAuthMode | undefined;
  /** Connected by the operator for its merchant, who sets up their own loyalty account (not the operator's). */
  forMerchant?: boolean | undefined;
  connectedAt: string;
  updatedAt: string;
}

export const wooConnectionId = (shop: string) => `woocommerce:${shop}`;

/** A store's connection, kept as the platform's access to it (a connect in progress lives beside it: connect.ts). */
export const WOO_CONNECTION = recordType<WooConnection>(
  'session',
  z.looseObject({
    platform: z.literal('woocommerce'),
    shop: z.string(),
    url: z.string(),
    consumerKey: z.string(),
    consumerSecret: z.string(),
    keyId: z.number().nullable(),
    keyPermissions: z.enum(['read', 'write', 'read_write']),
    webhookSecret: z.string(),
    authMode: z.enum(['basic', 'query']).optional(),
    forMerchant: z.boolean().optional(),
    connectedAt: z.string(),
    updatedAt: z.string(),
  }),
  'woocommerce:',
);

/** Which loyalty account a store earns on (the core keeps the link), as the store's own page asks. */
const LINKED_ACCOUNT = recordType<{ account: string }>(
  'shop-link',
  z.looseObject({ account: z.string() }),
  'woocommerce:',
);

export interface WooEnvironment {
  url?: string | undefined;
  consumerKey?: string | undefined;
  consumerSecret?: string | undefined;
  webhookSecret?: string | undefined;
}

/** A store as the rest of the bridge sees it. */
export interface WooStore {
  shop: string;
  url: string;
  via: 'environment' | 'connect';
  /** REST access, when the bridge has a key. */
  rest: WooRestClient | undefined;
  /** What the key may do, when the bridge knows. */
  keyPermissions: WooKeyPermissions | undefined;
  /** The secret the bridge creates webhooks with. */
  webhookSecret: string | undefined;
  /** Its merchant sets up their own loyalty account: it does not earn on the operator's. */
  forMerchant: boolean;
  connectedAt: string | null;
}

export interface WooStoresOptions {
  store: RecordRole;
  env: WooEnvironment;
  /** Where a store's REST API answers instead of its address (tests). */
  requestUrl?: ((url: string) => string) | undefined;
  /** A connected store's address came from a user: whether it may be private (ALLOW_PRIVATE_STORE_ADDRESSES), and the resolver. */
  storeAddresses: UserAddressPolicy;
  now?: () => number;
}

export class WooStores {
  readonly #o: WooStoresOptions;
  readonly #envShop: string | undefined;
  readonly #clients = new Map<string, WooRestClient>();
  readonly #cache: CachedRecords<WooConnection>;
  /** The loyalty account each store name is linked to ('shop-link' records, src/accounts/account-records.ts). */
  readonly #links: CachedRecords<{ account: string }>;

  constructor(options: WooStoresOptions) {
    this.#o = options;
    this.#envShop = options.env.url ? wooShopOf(options.env.url) : undefined;
    this.#cache = new CachedRecords(options.store, WOO_CONNECTION, wooConnectionId, options.now);
    this.#links = new CachedRecords(options.store, LINKED_ACCOUNT, wooConnectionId, options.now);
  }

  /** The shop of the environment-configured store, if there is one. */
  get environmentShop(): string | undefined {
    return this.#envShop;
  }

  #connections(): Promise<WooConnection[]> {
    return this.#cache.all();
  }

  #connection(shop: string, fresh = false): Promise<WooConnection | undefined> {
    return this.#cache.get(shop, fresh);
  }

  /**
   * The secrets a delivery from this shop may be signed with: the connected
   * store's, and WOOCOMMERCE_WEBHOOK_SECRET for the configured store (its
   * hand-made webhooks carry it). With WOOCOMMERCE_URL set that secret signs
   * for that store alone (and a delivery that names none); without it, for a store that is neither connected
   * nor linked to an account of its own. Whoever reads that secret in the
   * configured store's WordPress must not sign for another merchant's store.
   */
  async secretsFor(shop: string | undefined): Promise<string[]> {
    const connection = shop ? await this.#connection(shop) : undefined;
    const env = this.#o.env.webhookSecret;
    const envSigns = env !== undefined && (await this.#envSecretSigns(shop, connection));
    return [...(connection ? [connection.webhookSecret] : []), ...(envSigns ? [env] : [])];
  }

  async #envSecretSigns(shop: string | undefined, connection: WooConnection | undefined): Promise<boolean> {
    // A delivery naming no store is counted as the configured store's (adapter.ts).
    if (this.#envShop !== undefined) return shop === undefined || shop === this.#envShop;
    if (connection) return false;
    const link = shop ? await this.#links.get(shop) : undefined;
    return link === undefined || link.account === DEFAULT_ACCOUNT;
  }

  async list(): Promise<WooStore[]> {
    const connected = await this.#connections();
    const shops = new Set([
      // The configured store is one even with webhooks alone (no key to read its orders with): it sends orders,
      // and they earn. Those that read orders look at `rest`.
      ...(this.#envShop ? [this.#envShop] : []),
      ...connected.map((each) => each.shop),
    ]);
    const stores: WooStore[] = [];
    for (const shop of [...shops].sort()) {
      const store = this.#storeOf(
        shop,
        connected.find((each) => each.shop === shop),
      );
      if (store) stores.push(store);
    }
    return stores;
  }

  async get(shop: string): Promise<WooStore | undefined> {
    return this.#storeOf(shop, await this.#connection(shop, true));
  }

  #envRest(): boolean {
    const { url, consumerKey, consumerSecret } = this.#o.env;
    return Boolean(url && consumerKey && consumerSecret);
  }

  #storeOf(shop: string, connection: WooConnection | undefined): WooStore | undefined {
    const env = this.#o.env;
    if (connection) {
      return {
        shop,
        url: connection.url,
        via: 'connect',
        rest: this.#client(
          shop,
          connection.url,
          connection.consumerKey,
          connection.consumerSecret,
          connection.authMode,
          'connect',
        ),
        keyPermissions: connection.keyPermissions,
        webhookSecret: connection.webhookSecret,
        forMerchant: connection.forMerchant === true,
        connectedAt: connection.connectedAt,
      };
    }
    if (shop !== this.#envShop || !env.url) return undefined;
    return {
      shop,
      url: wooStoreUrl(env.url),
      via: 'environment',
      rest: this.#envRest()
        ? this.#client(shop, wooStoreUrl(env.url), env.consumerKey!, env.consumerSecret!, undefined, 'environment')
        : undefined,
      keyPermissions: undefined,
      webhookSecret: env.webhookSecret,
      forMerchant: false,
      connectedAt: null,
    };
  }

  /**
   * One client per store and key, so that the way its server takes the key
   * is learnt once.
   */
  #client(
    shop: string,
    url: string,
    consumerKey: string,
    consumerSecret: string,
    authMode: WooAuthMode | undefined,
    via: WooStore['via'],
  ): WooRestClient {
    const id = `${shop}\n${consumerKey}`;
    let client = this.#clients.get(id);
    if (!client) {
      const connected = via === 'connect';
      client = new WooRestClient({
        url,
        consumerKey,
        consumerSecret,
        authMode,
        keySettings: connected
          ? 'the key of the connected store (connect the store again from the dashboard)'
          : 'WOOCOMMERCE_CONSUMER_KEY and WOOCOMMERCE_CONSUMER_SECRET',
        addressSetting: connected ? undefined : 'WOOCOMMERCE_URL',
        outbound: this.#outbound(via),
        requestUrl: this.#o.requestUrl?.(url),
        onAuthMode: (mode) => void this.#rememberAuthMode(shop, consumerKey, mode),
      });
      this.#clients.set(id, client);
    }
    return client;
  }

  /** Where a store's requests may go: a connected store's address is a user's, and must reach the internet; the configured one is the operator's. */
  #outbound(via: WooStore['via']): OutboundPolicy {
    const { allowPrivate, lookup } = this.#o.storeAddresses;
    return via === 'connect' ? { userAddress: true, allowPrivate, lookup } : { userAddress: false, lookup };
  }

  /** Where the store's public pages are read (its REST index, which names it), without its key. */
  async site(
    shop: string,
  ): Promise<{ url: string; requestUrl: string | undefined; outbound: OutboundPolicy } | undefined> {
    const known = await this.get(shop);
    if (!known) return undefined;
    return { url: known.url, requestUrl: this.#o.requestUrl?.(known.url), outbound: this.#outbound(known.via) };
  }

  /** Kept with a connected store, so that a restart does not learn it again; the configured store learns it once per run. */
  async #rememberAuthMode(shop: string, consumerKey: string, mode: WooAuthMode): Promise<void> {
    // In one step, and only while the store still has the key that learnt it: a key replaced meanwhile stays replaced.
    await this.#o.store.changeRecord(WOO_CONNECTION, wooConnectionId(shop), (connection) =>
      connection?.consumerKey === consumerKey
        ? { put: { ...connection, authMode: mode, updatedAt: new Date().toISOString() } }
        : undefined,
    );
    this.#cache.forget(shop);
  }

  /**
   * Whether the store at its connected address takes this key: a key a
   * re-entry's callback offered, tried before it replaces the store's own
   * (any callback with a known nonce is believed, but only this store can
   * say the key is one of its own). Read-only, and never the cached client.
   */
  async tryKey(
    shop: string,
    key: { consumerKey: string; consumerSecret: string },
  ): Promise<'accepted' | 'refused' | 'unreachable'> {
    const connection = await this.#connection(shop, true);
    if (!connection) return 'refused';
    const client = new WooRestClient({
      url: connection.url,
      ...key,
      authMode: connection.authMode,
      outbound: this.#outbound('connect'),
      requestUrl: this.#o.requestUrl?.(connection.url),
    });
    try {
      const answer = await client.json('GET', 'webhooks', { searchParams: { per_page: '1' } });
      return answer.status === 200 ? 'accepted' : 'refused';
    } catch (error) {
      if (error instanceof WooRestError && error.code === 'refused') return 'refused';
      return 'unreachable';
    }
  }

  /**
   * A store's new key, in place of its old one, only if the store is still
   * the connection `since` names (the same address, connected at the same
   * time): one step against the ledger, so a disconnect or a connect again
   * in between is never undone. False when it is not.
   */
  async replaceKey(
    shop: string,
    since: Pick<WooConnection, 'url' | 'connectedAt'>,
    key: Pick<WooConnection, 'consumerKey' | 'consumerSecret' | 'keyId' | 'keyPermissions'>,
  ): Promise<boolean> {
    const { changed, value } = await this.#o.store.changeRecord(WOO_CONNECTION, wooConnectionId(shop), (current) =>
      current?.url === since.url && current.connectedAt === since.connectedAt
        ? { put: { ...current, ...key, updatedAt: new Date().toISOString() } }
        : undefined,
    );
    if (changed && value) this.#keep(value);
    return changed;
  }

  /** Keeps a store's connection (a new one, or new keys for a store connected before, whose webhook secret stays). */
  async save(connection: WooConnection): Promise<void> {
    await this.#o.store.putRecord(WOO_CONNECTION, wooConnectionId(connection.shop), connection);
    this.#keep(connection);
  }

  /** The connection as now saved: cached, and the clients of its earlier keys let go. */
  #keep(connection: WooConnection): void {
    this.#cache.set(connection.shop, connection);
    for (const id of [...this.#clients.keys()].filter((key) => key.startsWith(`${connection.shop}\n`)))
      this.#clients.delete(id);
  }
}
