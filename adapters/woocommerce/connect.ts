// Connecting a WooCommerce store through WooCommerce's Application Authentication Endpoint
// (/wc-auth/v1/authorize): the merchant approves in WordPress, WooCommerce POSTs a new key to callback_url
// (https, answered exactly 200 or the key is deleted) and sends the browser to return_url. It hands user_id
// back untouched, so that is the bridge's one-time nonce, kept as its hash. The store's address must be https
// and public (store-address.ts), or it would be a way into this machine's network.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import { recordType, type RecordType } from '../../src/core/store/roles/record-types.ts';
import type { UserAddressPolicy } from '../../src/net/user-address.ts';
import { asRecord } from '../shared/json.ts';
import type { WooKeyPermissions } from './stores.ts';
import { wooShopOf, wooStoreUrl } from './shop-identity.ts';
import { refuseStoreAddress } from './store-address.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

/** Long enough to log in to WordPress and read the consent screen; short enough that a leaked link dies. */
export const CONNECT_TTL_MS = 30 * 60_000;

export const WOO_CALLBACK_PATH = '/woocommerce/auth/callback';

/** A connect under way: the store the merchant was sent to, until when the nonce holds. */
export interface PendingConnect {
  platform: 'woocommerce';
  /** connect: the operator's (its key kept at once); reentry: a merchant's way back to their pages (its key offered). */
  purpose: 'connect' | 'reentry';
  storeUrl: string;
  /** A re-entry: the hash of the secret in the cookie of the browser that started it. */
  browser?: string | undefined;
  /** A connect the operator made for the store's merchant, who sets up their own loyalty account. */
  forMerchant?: boolean | undefined;
  /** The shop it will be, named apart from `shop` so that erasing a shop's records leaves it to expire. */
  forShop: string;
  createdAt: string;
  expiresAt: string;
}

/** A connect in progress, kept beside the stores' connections (the platform's access) until its callback. */
const PENDING = recordType<PendingConnect>(
  'session',
  z.looseObject({
    platform: z.literal('woocommerce'),
    purpose: z.enum(['connect', 'reentry']),
    storeUrl: z.string(),
    browser: z.string().optional(),
    forMerchant: z.boolean().optional(),
    forShop: z.string(),
    createdAt: z.string(),
    expiresAt: z.string(),
  }),
  'woocommerce-connect:',
);

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const nonceRecordId = (nonce: string) => `woocommerce-connect:${sha256(nonce)}`;

export interface BeganConnect {
  authorizeUrl: string;
  shop: string;
  storeUrl: string;
  expiresAt: string;
}

export interface ConnectOptions {
  /** The bridge's public https address. */
  publicUrl: string;
  appName: string;
  /** Where the merchant lands afterwards; WooCommerce adds success and user_id. */
  returnPath: string;
  /** Which store addresses may be connected (ALLOW_PRIVATE_STORE_ADDRESSES). */
  addresses: UserAddressPolicy;
  /** A merchant's re-entry, from the browser whose cookie secret hashes to `browser`. */
  reentry?: { browser: string } | undefined;
  /** The operator connects the store for its merchant, who sets up their own loyalty account. */
  forMerchant?: boolean | undefined;
}

/** Issues a nonce for the store and says where to send the merchant; a StoreAddressError says why not. */
export async function beginWooConnect(
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>,
  address: string,
  urls: ConnectOptions,
  now = new Date(),
): Promise<BeganConnect> {
  const storeUrl = wooStoreUrl(address);
  await refuseStoreAddress(storeUrl, urls.addresses);
  const shop = wooShopOf(storeUrl);
  await forgetExpired(store, now);
  const nonce = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + CONNECT_TTL_MS).toISOString();
  await store.putRecord(PENDING, nonceRecordId(nonce), {
    platform: 'woocommerce',
    purpose: urls.reentry ? 'reentry' : 'connect',
    storeUrl,
    ...(urls.reentry ? { browser: urls.reentry.browser } : {}),
    ...(urls.forMerchant ? { forMerchant: true } : {}),
    forShop: shop,
    createdAt: now.toISOString(),
    expiresAt,
  });
  const base = trimTrailing(urls.publicUrl, '/');
  const authorize = new URL(`${storeUrl}/wc-auth/v1/authorize`);
  authorize.search = new URLSearchParams({
    app_name: urls.appName,
    scope: 'read_write',
    user_id: nonce,
    return_url: `${base}${urls.returnPath}${urls.returnPath.includes('?') ? '&' : '?'}woocommerce_store=${encodeURIComponent(shop)}`,
    callback_url: `${base}${WOO_CALLBACK_PATH}`,
  }).toString();
  return { authorizeUrl: authorize.toString(), shop, storeUrl, expiresAt };
}

async function forgetExpired(store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>, now: Date): Promise<void> {
  for (const { id, value } of await store.listRecords(PENDING)) {
    if (Date.parse(value.expiresAt) <= now.getTime()) await store.deleteRecord(PENDING, id);
  }
}

/** A shop's re-entries started and not yet answered, unexpired: their record ids and when each was made. */
export async function pendingReentries(
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>,
  shop: string,
  now = new Date(),
): Promise<Array<{ type: RecordType<unknown>; id: string; createdAt: string }>> {
  return (await store.listRecords(PENDING))
    .filter(
      ({ value }) =>
        value.purpose === 'reentry' && value.forShop === shop && Date.parse(value.expiresAt) > now.getTime(),
    )
    .map(({ id, value }) => ({ type: PENDING, id, createdAt: value.createdAt }));
}

/** What WooCommerce POSTs to callback_url. */
export interface WooKeys {
  keyId: number | null;
  nonce: string;
  consumerKey: string;
  consumerSecret: string;
  keyPermissions: WooKeyPermissions;
}

export type CallbackResult =
  { ok: true; keys: WooKeys; pending: PendingConnect } | { ok: false; status: 400 | 401; reason: string };

const PERMISSIONS: readonly string[] = ['read', 'write', 'read_write'];

/** The callback's body, read strictly; the reason never repeats a value, since values are secrets. */
export function readWooKeys(
  body: unknown,
): { ok: true; keys: WooKeys } | { ok: false; status: 400 | 401; reason: string } {
  const value = asRecord(body);
  const text = (field: string, pattern: RegExp) =>
    typeof value[field] === 'string' && pattern.test(value[field] as string) ? (value[field] as string) : undefined;
  const nonce = text('user_id', /^[A-Za-z0-9_-]{16,128}$/);
  const consumerKey = text('consumer_key', /^ck_[A-Za-z0-9]{8,128}$/);
  const consumerSecret = text('consumer_secret', /^cs_[A-Za-z0-9]{8,128}$/);
  const permissions = text('key_permissions', /^[a-z_]+$/);
  const missing = [
    ['user_id', nonce],
    ['consumer_key', consumerKey],
    ['consumer_secret', consumerSecret],
    ['key_permissions', permissions && PERMISSIONS.includes(permissions) ? permissions : undefined],
  ]
    .filter(([, found]) => found === undefined)
    .map(([field]) => field);
  // Without a nonce nothing says who sent it: not authentic. With one, a body WooCommerce would never send.
  if (missing.length > 0)
    return { ok: false, status: nonce ? 400 : 401, reason: `the callback body lacks a valid ${missing.join(', ')}` };
  const keyId = typeof value.key_id === 'number' && Number.isSafeInteger(value.key_id) ? value.key_id : null;
  return {
    ok: true,
    keys: {
      keyId,
      nonce: nonce!,
      consumerKey: consumerKey!,
      consumerSecret: consumerSecret!,
      keyPermissions: permissions as WooKeyPermissions,
    },
  };
}

/**
 * Takes the nonce a callback carries: it works once, before it expires.
 * Two callbacks with the same nonce at once get one success between them.
 */
export async function takeWooCallback(
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>,
  body: unknown,
  now = new Date(),
): Promise<CallbackResult> {
  const read = readWooKeys(body);
  if (!read.ok) return read;
  const id = nonceRecordId(read.keys.nonce);
  const taken = await store.exclusive(id, async () => {
    const pending = await store.getRecord(PENDING, id);
    if (pending) await store.deleteRecord(PENDING, id);
    return pending;
  });
  const pending = taken.ran ? taken.value : undefined;
  if (!pending) return { ok: false, status: 401, reason: 'unknown or already used connect nonce (user_id)' };
  if (Date.parse(pending.expiresAt) <= now.getTime())
    return { ok: false, status: 401, reason: 'the connect link expired; start again from the dashboard' };
  return { ok: true, keys: read.keys, pending };
}
