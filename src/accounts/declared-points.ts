// Each account's declared points per activity, read from the configuration and the ledger without making
// runtimes: for `status` run on the ledger itself, with no bridge running.
import { activityPointsOf, type Config } from '../config.ts';
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import type { RecordRole } from '../core/store/roles/records.ts';
import type { PointsAccount, PointsAccounts } from '../core/order-points-view.ts';

import { programDefaults, readSavedSettings } from './program-settings.ts';
import { ACCOUNT_KIND } from './account-records.ts';

export async function declaredPoints(config: Config, store: Pick<RecordRole, 'listRecords'>): Promise<PointsAccounts> {
  const known = new Map<string, PointsAccount>([
    [
      DEFAULT_ACCOUNT,
      {
        activityPoints: activityPointsOf(config),
        earnActivityId: config.LOYALTY_EARN_ACTIVITY_ID,
        policy: { earnBands: config.LOYALTY_EARN_ACTIVITIES ?? [] },
      },
    ],
  ]);
  const defaults = programDefaults();
  // A ledger whose sealed records cannot be read here shows the default account's points alone.
  const records = await store.listRecords(ACCOUNT_KIND).catch(() => []);
  for (const { value } of records) {
    const read = readSavedSettings(value.settings, defaults);
    if (!read.ok) continue;
    known.set(value.id, {
      activityPoints: read.settings.LOYALTY_ACTIVITY_POINTS ?? {},
      earnActivityId: read.settings.LOYALTY_EARN_ACTIVITY_ID,
      policy: { earnBands: read.settings.LOYALTY_EARN_ACTIVITIES ?? [] },
    });
  }
  return { runtime: async (id) => known.get(id) };
}
