// The credentials of the sandbox the bridge serves at /sandbox in sandbox mode: the operator's SANDBOX_API_KEY and
// SANDBOX_BRAND_ID when set, else random ones made at the first start (the bridge may listen for anyone, so never
// public defaults). Kept in the ledger: they outlive a restart, reach the CLI's local commands, are shared by
// instances on one PostgreSQL (one key, one rate budget), and are sealed there with the ledger's other secrets.
import type { Config } from '../config.ts';
import { z } from 'zod';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import { recordType } from '../core/store/roles/record-types.ts';
import { arePublic, randomSandboxCredentials, type SandboxCredentials } from '../sandbox/credentials.ts';

// Read as whatever they hold: credentials damaged by hand are made again (below), not an error.
const KIND = recordType<{ apiKey: unknown; brandId: unknown }>(
  'sandbox-credentials',
  z.looseObject({ apiKey: z.unknown(), brandId: z.unknown() }).catch({ apiKey: undefined, brandId: undefined }),
);
const ID = 'bridge';

type RecordAccess = Pick<LedgerStore, 'addRecord' | 'putRecord'>;

/** For the bridge's own sandbox and its client: never the public defaults. The store must be open. */
export async function bridgeSandboxCredentials(config: Config, store: RecordAccess): Promise<SandboxCredentials> {
  const configured = { apiKey: config.SANDBOX_API_KEY, brandId: config.SANDBOX_BRAND_ID };
  if (!arePublic(configured)) return configured;
  // The first instance to start makes them; every other one (and every later start) reads them.
  const { value } = await store.addRecord(KIND, ID, randomSandboxCredentials());
  if (isUsable(value)) return value;
  // Damaged by hand: nothing outside the bridge holds them, so new ones do no harm.
  const fresh = randomSandboxCredentials();
  await store.putRecord(KIND, ID, fresh);
  return fresh;
}

const isUsable = (value: { apiKey: unknown; brandId: unknown }): value is SandboxCredentials => {
  const { apiKey, brandId } = value;
  return (
    typeof apiKey === 'string' &&
    typeof brandId === 'string' &&
    apiKey !== '' &&
    brandId !== '' &&
    !arePublic({ apiKey, brandId })
  );
};
