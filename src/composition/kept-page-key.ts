// The key of the sessions the bridge hands a WooCommerce store's page
// (http/woocommerce-pages.ts). Shopify and BigCommerce give the bridge a
// client secret to derive such a key from; WooCommerce gives none, so the
// bridge makes its own: random, made by the first instance that needs it,
// kept in the ledger (sealed, as every secret there is), so that every
// instance on one PostgreSQL takes the sessions of every other, and a
// restart ends none.
import { randomBytes } from 'node:crypto';
import type { LedgerStore } from '../core/store/ledger-store.ts';

const KIND = 'page-key';
const ID = 'woocommerce-store-page';

export async function keptPageKey(store: Pick<LedgerStore, 'addRecord' | 'putRecord'>): Promise<string> {
  const { value } = await store.addRecord<{ key: string }>(KIND, ID, { key: randomBytes(32).toString('base64url') });
  if (typeof value?.key === 'string' && value.key.length >= 32) return value.key;
  // Damaged by hand: a new key ends the sessions of the hour, nothing more.
  const fresh = { key: randomBytes(32).toString('base64url') };
  await store.putRecord(KIND, ID, fresh);
  return fresh.key;
}
