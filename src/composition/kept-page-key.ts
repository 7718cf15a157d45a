// The key of the sessions the bridge hands a store's page where the platform gives no client secret to derive
// one from (platforms written as modules): random, made by the first instance that needs
// it, kept sealed in the ledger, so every instance on one PostgreSQL takes every other's sessions, and a
// restart ends none.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { recordType } from '../core/store/roles/record-types.ts';

// Read as whatever it holds: a key damaged by hand is made again (below), not an error.
const KIND = recordType<{ key: unknown }>('page-key', z.looseObject({ key: z.unknown() }).catch({ key: undefined }));

/** `id`: whose pages the key signs sessions for; each platform without a client secret has its own. */
export async function keptPageKey(store: Pick<LedgerStore, 'addRecord' | 'putRecord'>, id: string): Promise<string> {
  const { value } = await store.addRecord(KIND, id, { key: randomBytes(32).toString('base64url') });
  if (typeof value.key === 'string' && value.key.length >= 32) return value.key;
  // Damaged by hand: a new key ends the sessions of the hour, nothing more.
  const fresh = { key: randomBytes(32).toString('base64url') };
  await store.putRecord(KIND, id, fresh);
  return fresh.key;
}
