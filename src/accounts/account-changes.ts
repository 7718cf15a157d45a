// How the registry's changes answer (Change), and the writes of an account record that may be refused: a key
// the store will not keep without SECRETS_KEY, an account changed meanwhile, a reach lost meanwhile.
import type { RecordRole } from '../core/store/ledger-store.ts';
import { BridgeError } from '../errors.ts';
import { type AccountRecord, ACCOUNT_KIND } from './account-records.ts';

/** Whether the caller may still make its change, asked right before it is written. */
export type Still = () => Promise<boolean>;

export type Change<T> = { ok: true; value: T } | { ok: false; status: 400 | 403 | 404 | 409; errors: string[] };

export const defaultIsTheEnvironment = (): { ok: false; status: 409; errors: string[] } => ({
  ok: false,
  status: 409,
  errors: [
    'the default account is the environment’s configuration (LOYALTY_* and the program settings): change it there',
  ],
});

/** The account as read replaced by its next version, unless something else changed it meanwhile (compare-and-set). */
export async function replaceAccount(
  store: RecordRole,
  read: AccountRecord,
  next: AccountRecord,
  still: Still | undefined,
): Promise<{ ok: false; status: 403 | 409; errors: string[] } | undefined> {
  if (still && !(await still()))
    return { ok: false, status: 403, errors: ['this account is no longer this shop’s alone to change'] };
  try {
    const { changed } = await store.changeRecord(ACCOUNT_KIND, read.id, (now) =>
      now && !now.retiredAt && now.updatedAt === read.updatedAt ? { put: next } : undefined,
    );
    if (!changed)
      return { ok: false, status: 409, errors: ['the account changed meanwhile: read it again, then change it'] };
    return undefined;
  } catch (error) {
    if (error instanceof BridgeError && error.code === 'secrets_key_missing')
      return { ok: false, status: 409, errors: [error.message] };
    throw error;
  }
}

/** Saves an account; without SECRETS_KEY outside sandbox mode the store refuses its key, and the line says how to make one. */
export async function keepAccount(
  store: RecordRole,
  record: AccountRecord,
): Promise<{ ok: false; status: 409; errors: string[] } | undefined> {
  try {
    await store.putRecord(ACCOUNT_KIND, record.id, record);
    return undefined;
  } catch (error) {
    if (error instanceof BridgeError && error.code === 'secrets_key_missing')
      return { ok: false, status: 409, errors: [error.message] };
    throw error;
  }
}
