// The BigCommerce stores one bridge serves: the store configured by hand (a store API account) and every
// store that installed the single-click app, whose token is a 'session' record in the ledger. An app's
// deliveries count by the app's signature alone. The hooks of the store configured by hand are signed with
// its API account's secret, which the bridge does not hold, so they carry BIGCOMMERCE_WEBHOOK_SECRET in a
// header (docs/bigcommerce.md). One API client per store and token, so that all callers share its rate limit.
import { z } from 'zod';
import type { RecordRole } from '../../src/core/store/ledger-store.ts';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import { CachedRecords } from '../shared/cached-records.ts';
import { BigCommerceApi } from './admin-api.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

/** A store that installed the app: its token. */
export interface BigCommerceInstall {
  platform: 'bigcommerce';
  shop: string;
  accessToken: string;
  scope: string;
  /** Left by earlier releases, which put it on the hooks they made; it authenticates nothing now. */
  headerSecret?: string | undefined;
  accountUuid: string | null;
  installedAt: string;
  updatedAt: string;
}

export const bigCommerceInstallId = (storeHash: string) => `bigcommerce:${storeHash}`;

/** A store's install, kept as the platform's access to it. */
export const BIGCOMMERCE_INSTALL = recordType<BigCommerceInstall>(
  'session',
  z.looseObject({
    platform: z.literal('bigcommerce'),
    shop: z.string(),
    accessToken: z.string(),
    scope: z.string(),
    headerSecret: z.string().optional(),
    accountUuid: z.string().nullable(),
    installedAt: z.string(),
    updatedAt: z.string(),
  }),
  'bigcommerce:',
);

export interface BigCommerceEnvironment {
  storeHash?: string | undefined;
  accessToken?: string | undefined;
  /** BIGCOMMERCE_WEBHOOK_SECRET: the header secret of hooks `register` made. */
  headerSecret?: string | undefined;
}

/** What shows that a delivery of the store is BigCommerce's, and so what a hook the bridge makes for it must carry. */
export type DeliveryProof =
  /** The app's client secret signs it (Standard Webhooks). */
  | { by: 'signature' }
  /** BIGCOMMERCE_WEBHOOK_SECRET in a header; undefined when unset (no hook can be made that the bridge could check). */
  | { by: 'header'; secret: string | undefined };

export interface BigCommerceStore {
  shop: string;
  via: 'environment' | 'app';
  api: BigCommerceApi;
  proof: DeliveryProof;
  installedAt: string | null;
}

/** What forgetting a token found: it deleted; no install at all; or another token (a reinstall), which stays. */
export type ForgetOutcome = 'forgotten' | 'none' | 'replaced';

export interface BigCommerceStoresOptions {
  store: RecordRole;
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
    this.#cache = new CachedRecords(options.store, BIGCOMMERCE_INSTALL, bigCommerceInstallId, options.now);
  }

  get environmentShop(): string | undefined {
    return this.#o.env.storeHash && this.#o.env.accessToken ? this.#o.env.storeHash : undefined;
  }

  #installs(): Promise<BigCommerceInstall[]> {
    return this.#cache.all();
  }

  #install(storeHash: string, fresh = false): Promise<BigCommerceInstall | undefined> {
    return this.#cache.get(storeHash, fresh);
  }

  /**
   * Header secrets a delivery naming this store may carry: BIGCOMMERCE_WEBHOOK_SECRET
   * for the store configured by hand (or a delivery naming no store, which is
   * counted as that store's), none for any other: an app's store is checked
   * by signature alone, installed on the same store or not.
   */
  async headerSecretsFor(storeHash: string | undefined): Promise<string[]> {
    const own = this.environmentShop;
    const secret = this.#o.env.headerSecret;
    return secret && own && (storeHash === undefined || storeHash === own) ? [secret] : [];
  }

  async list(): Promise<BigCommerceStore[]> {
    const installs = await this.#installs();
    const shops = new Set([
      ...(this.environmentShop ? [this.environmentShop] : []),
      ...installs.map((each) => each.shop),
    ]);
    return [...shops].sort().flatMap(
      (shop) =>
        this.#storeOf(
          shop,
          installs.find((each) => each.shop === shop),
        ) ?? [],
    );
  }

  async get(storeHash: string): Promise<BigCommerceStore | undefined> {
    return this.#storeOf(storeHash, await this.#install(storeHash, true));
  }

  #storeOf(shop: string, install: BigCommerceInstall | undefined): BigCommerceStore | undefined {
    if (install) {
      const api = this.#api(
        shop,
        install.accessToken,
        'the app’s access token for this store (install the app again from the BigCommerce control panel)',
      );
      return { shop, via: 'app', api, proof: { by: 'signature' }, installedAt: install.installedAt };
    }
    if (shop !== this.environmentShop) return undefined;
    const api = this.#api(shop, this.#o.env.accessToken!, undefined);
    return {
      shop,
      via: 'environment',
      api,
      proof: { by: 'header', secret: this.#o.env.headerSecret },
      installedAt: null,
    };
  }

  #api(shop: string, accessToken: string, tokenSettings: string | undefined): BigCommerceApi {
    const id = `${shop}\n${accessToken}`;
    let api = this.#apis.get(id);
    if (!api) {
      api = new BigCommerceApi({
        storeHash: shop,
        accessToken,
        baseUrl: trimTrailing(this.#o.apiUrl, '/'),
        tokenSettings,
      });
      this.#apis.set(id, api);
    }
    return api;
  }

  async save(install: BigCommerceInstall): Promise<void> {
    await this.#o.store.putRecord(BIGCOMMERCE_INSTALL, bigCommerceInstallId(install.shop), install);
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
   * anyway), but only while the install still holds that token, checked and
   * deleted in one compare-and-set across bridges: a reinstall saved at any
   * moment brought a new token, which stays.
   */
  async forget(storeHash: string, token: string): Promise<ForgetOutcome> {
    const { changed, value } = await this.#o.store.changeRecord(
      BIGCOMMERCE_INSTALL,
      bigCommerceInstallId(storeHash),
      (current) => (current?.accessToken === token ? { delete: true } : undefined),
    );
    this.#cache.set(storeHash, value);
    if (changed) return 'forgotten';
    return value === undefined ? 'none' : 'replaced';
  }
}
