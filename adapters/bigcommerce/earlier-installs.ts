// Stores that installed the app under a release that allowed any store keep earning after the upgrade:
// at the first start, every store the app is installed on is allowed by record, once, and named in the
// log, so that the operator can list it in BIGCOMMERCE_STORES. The allowances are written before the
// 'migration' record that marks it done, so a crash in between only does it again.
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';
import type { Logger } from '../../src/logger.ts';
import type { AllowedStores } from './allowed-shops.ts';

export const EARLIER_INSTALLS_MIGRATION = 'bigcommerce-allowed-stores';

interface EarlierInstallsDone {
  doneAt: string;
  allowed: string[];
}

const DONE = recordType<EarlierInstallsDone>(
  'migration',
  z.looseObject({ doneAt: z.string(), allowed: z.array(z.string()) }),
  EARLIER_INSTALLS_MIGRATION,
);

export async function allowEarlierInstalls(
  store: RecordRole,
  allowed: AllowedStores,
  installedStores: () => Promise<string[]>,
  logger: Logger,
): Promise<string[]> {
  if (await store.getRecord(DONE, EARLIER_INSTALLS_MIGRATION)) return [];
  const earlier: string[] = [];
  for (const storeHash of await installedStores()) {
    // Open installs let every store in, but only while they stay open: an earlier install is kept either way.
    const allowance = await allowed.check(storeHash);
    if (allowance.allowed && allowance.why !== 'open') continue;
    await allowed.allow(storeHash, 'installed before stores had to be allowed');
    earlier.push(storeHash);
  }
  await store.putRecord(DONE, EARLIER_INSTALLS_MIGRATION, {
    doneAt: new Date().toISOString(),
    allowed: earlier,
  });
  if (earlier.length > 0) {
    logger.warn(
      { platform: 'bigcommerce', stores: earlier },
      `BigCommerce stores now earn only when allowed. These installed the app before, and stay allowed: ${earlier.join(', ')}. ` +
        'List them in BIGCOMMERCE_STORES to say so in the configuration',
    );
  }
  return earlier;
}
