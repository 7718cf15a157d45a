// The BigCommerce stores one bridge serves: the one configured by environment
// (BIGCOMMERCE_STORE_HASH and BIGCOMMERCE_ACCESS_TOKEN, a store API account),
// and every store that installed the bridge as a single-click app, whose
// access token and hook header secret are 'session' records in the ledger
// (never in a log line, an error or an answer). A store is named by its hash,
// which deliveries carry as their producer ("stores/<hash>").
//
// One API client per store and token, shared by every caller, so that each
// store's rate limit is honoured by all of them together.
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { CachedRecords } from '../shared/cached-records.ts';
import { BigCommerceApi } from './rest-api.ts';

/** A store that installed the app: its token, and the secret the bridge's hooks carry in a header. */
export interface BigCommerceInstall {
  platform: 'bigcommerce';
  shop: string;
  accessToken: string;
  scope: string;
  headerSecret: string;
  accountUuid: string | null;
  installedAt: string;
  updatedAt: string;
}

export const bigCommerceInstallId = (storeHash: string) => `bigcommerce:${storeHash}`;

export interface BigCommerceEnvironment {
  storeHash?: string | undefined;
  accessToken?: string | undefined;
  /** BIGCOMMERCE_WEBHOOK_SECRET: the header secret of hooks `register` made. */
  headerSecret?: string | undefined;
}

export interface BigCommerceStore {
  shop: string;
  via: 'environment' | 'app';
  api: BigCommerceApi;
  /** The secret the bridge's hooks carry; undefined: none can be created that the bridge could check. */
  headerSecret: string | undefined;
  installedAt: string | null;
}

export interface BigCommerceStoresOptions {
  store: LedgerStore;
  env: BigCommerceEnvironment;
  /** https://api.bigcommerce.com, or a test double. */
  apiUrl: string;
  now?: () => number;
}

export class BigCommerceStores {
  readonly #o: BigCommerceStoresOptions;
  readonly #apis = new Map<string, BigCommerceApi>();
  /** Installs, cached for the acknowledgement path (a delivery's header secret). */
  readonly #cache: CachedRecords<BigCommerceInstall>;

  constructor(options: BigCommerceStoresOptions) {
    this.#o = options;
    this.#cache = new CachedRecords(options.store, bigCommerceInstallId, options.now);
  }

  get environmentShop(): string | undefined {
    return this.#o.env.storeHash && this.#o.env.accessToken ? this.#o.env.storeHash : undefined;
  }

  #installs(): Promise<BigCommerceInstall[]> {
    return this.#cache.all('bigcommerce', (value) => typeof value.accessToken === 'string');
  }

  #install(storeHash: string, fresh = false): Promise<BigCommerceInstall | undefined> {
    return this.#cache.get(storeHash, fresh);
  }

  /** Header secrets a delivery from this store may carry: BIGCOMMERCE_WEBHOOK_SECRET, and the installed store's own. */
  async headerSecretsFor(storeHash: string | undefined): Promise<string[]> {
    const install = storeHash ? await this.#install(storeHash) : undefined;
    return [this.#o.env.headerSecret, install?.headerSecret].filter((secret): secret is string => Boolean(secret));
  }

  async list(): Promise<BigCommerceStore[]> {
    const installs = await this.#installs();
    const shops = new Set([...(this.environmentShop ? [this.environmentShop] : []), ...installs.map((each) => each.shop)]);
    return [...shops].sort().flatMap((shop) => this.#storeOf(shop, installs.find((each) => each.shop === shop)) ?? []);
  }

  async get(storeHash: string): Promise<BigCommerceStore | undefined> {
    return this.#storeOf(storeHash, await this.#install(storeHash, true));
  }

  #storeOf(shop: string, install: BigCommerceInstall | undefined): BigCommerceStore | undefined {
    if (install) return { shop, via: 'app', api: this.#api(shop, install.accessToken, 'the app’s access token for this store (install the app again from the BigCommerce control panel)'), headerSecret: install.headerSecret, installedAt: install.installedAt };
    if (shop !== this.environmentShop) return undefined;
    return { shop, via: 'environment', api: this.#api(shop, this.#o.env.accessToken!, undefined), headerSecret: this.#o.env.headerSecret, installedAt: null };
  }

  #api(shop: string, accessToken: string, tokenSettings: string | undefined): BigCommerceApi {
    const id = `${shop}\n${accessToken}`;
    let api = this.#apis.get(id);
    if (!api) {
      api = new BigCommerceApi({ storeHash: shop, accessToken, baseUrl: this.#o.apiUrl.replace(/\/+$/, ''), tokenSettings });
      this.#apis.set(id, api);
    }
    return api;
  }

  async save(install: BigCommerceInstall): Promise<void> {
    await this.#o.store.putRecord<BigCommerceInstall>('session', bigCommerceInstallId(install.shop), install);
    this.#cache.set(install.shop, install);
  }

  async existing(storeHash: string): Promise<BigCommerceInstall | undefined> {
    return this.#install(storeHash, true);
  }

  /** The app's token for a store, read fresh, with the API client it is used through; undefined when the app is not installed there. */
  async appAccess(storeHash: string): Promise<{ accessToken: string; api: BigCommerceApi } | undefined> {
    const install = await this.#install(storeHash, true);
    if (!install) return undefined;
    return { accessToken: install.accessToken, api: this.#storeOf(storeHash, install)!.api };
  }

  /**
   * The app was uninstalled: its token is forgotten (BigCommerce revoked it
   * anyway). With `onlyToken`, only while the install still holds that token:
   * a reinstall meanwhile brought a new one, which stays.
   */
  async forget(storeHash: string, onlyToken?: string): Promise<void> {
    if (onlyToken !== undefined && (await this.#install(storeHash, true))?.accessToken !== onlyToken) return;
    await this.#o.store.deleteRecord('session', bigCommerceInstallId(storeHash));
    this.#cache.set(storeHash, undefined);
  }
}
