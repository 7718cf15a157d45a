// The fake BigCommerce's shapes (fake-bigcommerce.ts serves them): a store as the fake holds it, the app as the
// Developer Portal registers it, and the fake's handle, apart from the server so that each part of the fake
// (fake-bigcommerce-*.ts) can name them without importing the server that imports it.
import type express from 'express';
import type { Response } from 'express';
import type { PostAnswer } from './outbound-post.ts';

export type ChannelStatus =
  'prelaunch' | 'active' | 'inactive' | 'connected' | 'disconnected' | 'archived' | 'deleted' | 'terminated';

export interface FakeChannel {
  id: number;
  name: string;
  type: 'storefront' | 'marketplace' | 'marketing' | 'pos';
  /** bigcommerce: a Stencil (or Blueprint) storefront BigCommerce hosts; catalyst, next, …: a headless one. */
  platform: string;
  status: ChannelStatus;
}

export interface FakeHook {
  id: number;
  scope: string;
  destination: string;
  is_active: boolean;
  headers: Record<string, string> | null;
  created_at: number;
  updated_at: number;
  /** The client secret BigCommerce signs its deliveries with: the creator's. */
  signingSecret?: string | undefined;
}

export interface FakeStore {
  hash: string;
  orders: Map<number, Record<string, unknown>>;
  hooks: FakeHook[];
  /** Token to the client secret of who holds it (the store API account's, or the app's). */
  tokens: Map<string, string>;
  /** The scopes an app's token was granted (an API account's token: all, in these tests). */
  tokenScopes: Map<string, string>;
  /** The store's name, as its owner set it (Settings, Store profile); "The <hash> Shop" by default. */
  name: string;
  /**
   * The store's default currency (Settings, Currencies), which v2/store answers and a promotion without its own
   * currency_code is in; "USD" for a new store, as a test sets it otherwise.
   */
  currency: string;
  /** The store's sales channels (the Channels API, fake-bigcommerce-channels.ts): channel 1 first, always. */
  channels: FakeChannel[];
  /** Told with an app's client secret when its access is revoked: fakes of more of the API clean up after it. */
  revoked?: Array<(clientSecret: string) => void>;
}

export interface FakeApp {
  clientId: string;
  clientSecret: string;
  authCallback: string;
  loadCallback: string;
  uninstallCallback: string;
  /** Only with Multiple Users enabled. */
  removeUserCallback?: string;
  scope: string;
}

export interface FakeBigCommerce {
  url: string;
  /**
   * The store API's router, mounted at /stores/<hash> behind the token check and rate limit: a fake of more of
   * the API (test/helpers/fake-bigcommerce-*.ts) adds its routes here, and finds the store with fakeStoreOf.
   */
  storeApi: express.Router;
  storeHash: string;
  /** The first store's orders and hooks. */
  orders: Map<number, Record<string, unknown>>;
  hooks: FakeHook[];
  stores: Map<string, FakeStore>;
  /** Answers for orders not in `orders` (a store with very many orders, for the bench). */
  orderFor: ((id: number) => Record<string, unknown> | undefined) | undefined;
  requests: Array<{ method: string; path: string; status: number; store: string }>;
  hangMs: number;
  hold(): () => void;
  readonly waiting: number;
  quota: { requests: number; windowMs: number };
  /** A store with an API account token (its client secret signs the hooks that token makes). */
  addStore(hash: string, accessToken: string, accountClientSecret?: string): FakeStore;
  /** The app as registered in the Developer Portal. */
  registerApp(app: FakeApp): void;
  /** The merchant installs the app on a store: their browser follows the auth callback. */
  install(hash: string): Promise<PostAnswer>;
  /** The merchant opens the app (the browser loads the load callback); a JWT can be given in place of BigCommerce's. */
  load(hash: string, jwt?: string): Promise<PostAnswer>;
  /**
   * The merchant uninstalls the app: BigCommerce revokes the app's token,
   * removes its hooks and calls the uninstall callback. With a JWT given, only
   * the call is made, with that JWT (a test's own request, not an uninstall).
   */
  uninstall(hash: string, jwt?: string): Promise<PostAnswer>;
  /** What uninstalling does on BigCommerce's side, alone: the app's token revoked, its hooks removed. */
  revokeApp(hash: string): void;
  /** The store owner revokes a user's access: the remove_user callback. */
  removeUser(hash: string, jwt?: string): Promise<PostAnswer>;
  /** A signed_payload_jwt for the app, with claims changed as given. */
  signedPayload(hash: string, claims?: Record<string, unknown>, secret?: string): string;
  /**
   * Posts a webhook for an order to every active hook of the scope, as
   * BigCommerce does (signWith: sign with this secret instead of the creator's;
   * null: no signature). Returns the status of each.
   */
  deliver(
    scope: string,
    orderId: number,
    options?: { signWith?: string | null; hash?: string; createdAt?: number; store?: string },
  ): Promise<number[]>;
  close(): Promise<void>;
}

/** The store a call of the store API is for, in a route added to FakeBigCommerce.storeApi. */
export const fakeStoreOf = (res: Response) => res.locals.store as FakeStore;
/** The scopes of the token a call carries; undefined for a store API account's token (all scopes, in these tests). */
export const fakeScopeOf = (res: Response) => res.locals.scope as string | undefined;
