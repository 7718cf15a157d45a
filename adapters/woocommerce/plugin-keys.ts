// The key a store's WordPress plugin signs with (docs/wordpress-plugin.md §1): made by the bridge when the plugin
// connects, one per store, a later connect replacing it. Kept as a `woo-plugin-key` record whose key field the
// store seals (records.ts); it names the platform and shop, so it goes when the shop is erased.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';

export interface PluginKey {
  platform: 'woocommerce';
  shop: string;
  /** "pk_" and 12 random base64url characters: which key signed, so a replaced key's signatures open nothing. */
  keyId: string;
  /** 32 random bytes, base64url: a secret, sealed at rest. */
  key: string;
  /** The store's address as the plugin gave it (home_url), in the bridge's form (shop-identity.ts). */
  storeUrl: string;
  /** Its wp-admin (admin_url()), with a trailing slash, where the plugin told it; `<storeUrl>/wp-admin/` otherwise. */
  adminUrl?: string | undefined;
  pluginVersion?: string | undefined;
  connectedAt: string;
}

const KIND = recordType<PluginKey>(
  'woo-plugin-key',
  z.looseObject({
    platform: z.literal('woocommerce'),
    shop: z.string(),
    keyId: z.string(),
    key: z.string(),
    storeUrl: z.string(),
    adminUrl: z.string().optional(),
    pluginVersion: z.string().optional(),
    connectedAt: z.string(),
  }),
  'woocommerce:',
);

/** What checks a signature: the store's current key and its id. */
export type KeyOf = (shop: string) => Promise<Pick<PluginKey, 'keyId' | 'key'> | undefined>;

export const pluginKeyRecordId = (shop: string) => `woocommerce:${shop}`;

export function newPluginKey(): Pick<PluginKey, 'keyId' | 'key'> {
  return { keyId: `pk_${randomBytes(9).toString('base64url')}`, key: randomBytes(32).toString('base64url') };
}

/** The store's current plugin key, if its plugin is connected. */
export function pluginKeyOf(store: Pick<RecordRole, 'getRecord'>, shop: string): Promise<PluginKey | undefined> {
  return store.getRecord(KIND, pluginKeyRecordId(shop));
}

/** Keeps a store's new key, replacing any earlier one: what that one signed opens nothing from now on. */
export function keepPluginKey(store: Pick<RecordRole, 'putRecord'>, key: PluginKey): Promise<void> {
  return store.putRecord(KIND, pluginKeyRecordId(key.shop), key);
}

/**
 * Forgets the store's key if it is still `keyId` (in one step with the check: a key made by a connect since stays):
 * whether it did.
 */
export async function forgetPluginKey(
  store: Pick<RecordRole, 'changeRecord'>,
  shop: string,
  keyId: string,
): Promise<boolean> {
  const { changed } = await store.changeRecord(KIND, pluginKeyRecordId(shop), (current) =>
    current?.keyId === keyId ? { delete: true } : undefined,
  );
  return changed;
}
