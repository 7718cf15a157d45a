// The credentials of the sandbox the bridge serves at /sandbox in sandbox
// mode. The bridge listens for anyone who can reach it (HOST is 0.0.0.0 by
// default) and a merchant may try it with a real store, so its sandbox never
// takes the public defaults: the operator's own SANDBOX_API_KEY and
// SANDBOX_BRAND_ID when set, else random ones made at the first start and
// kept in the ledger. Kept, because they must outlive a restart and reach the
// CLI's local commands; in the ledger, because instances on one PostgreSQL
// then share them (one key, one rate budget), and because the ledger seals
// its secrets, this key among them (core/store/record-secrets.ts).
import type { Config } from '../config.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { arePublic, randomSandboxCredentials, type SandboxCredentials } from '../sandbox/credentials.ts';

const KIND = 'sandbox-credentials';
const ID = 'bridge';

type RecordAccess = Pick<LedgerStore, 'addRecord' | 'putRecord'>;

/** For the bridge's own sandbox and its client: never the public defaults. The store must be open. */
export async function bridgeSandboxCredentials(config: Config, store: RecordAccess): Promise<SandboxCredentials> {
  const configured = { apiKey: config.SANDBOX_API_KEY, brandId: config.SANDBOX_BRAND_ID };
  if (!arePublic(configured)) return configured;
  // The first instance to start makes them; every other one (and every later start) reads them.
  const { value } = await store.addRecord<SandboxCredentials>(KIND, ID, randomSandboxCredentials());
  if (isUsable(value)) return value;
  // Damaged by hand: nothing outside the bridge holds them, so new ones do no harm.
  const fresh = randomSandboxCredentials();
  await store.putRecord(KIND, ID, fresh);
  return fresh;
}

const isUsable = (value: unknown): value is SandboxCredentials => {
  const { apiKey, brandId } = (value ?? {}) as Partial<Record<keyof SandboxCredentials, unknown>>;
  return (
    typeof apiKey === 'string' &&
    typeof brandId === 'string' &&
    apiKey !== '' &&
    brandId !== '' &&
    !arePublic({ apiKey, brandId })
  );
};
