// loyalty-bridge migrate --to <DATABASE_URL>: copies the lowdb ledger under DATA_DIR into PostgreSQL, so that
// several bridges can share it. The bridge must be stopped (DATA_DIR stays locked while this runs). Running it
// again doubles nothing: every item is an upsert, and an order changed in the database since (a higher
// version) is left as it is there.
import type { Config } from '../config.ts';
import type { LedgerItem } from '../core/store/ledger-store.ts';
import { lockDataDir } from '../core/store/lowdb/data-dir-lock.ts';
import { LowdbStore } from '../core/store/lowdb/lowdb-store.ts';
import type { Logger } from '../logger.ts';
import { recordSecretsFromConfig } from '../composition/open-store.ts';
import { fail, out } from './common.ts';

const BATCH = 500;

export async function migrate(config: Config, logger: Logger, to: string | undefined): Promise<number> {
  if (!to || !/^postgres(ql)?:\/\//.test(to)) return fail('migrate needs --to postgres://user@host:5432/database');
  const unlock = await lockDataDir(config.DATA_DIR);
  // One key for both: the source's secrets are opened, and sealed again in the database.
  const secrets = recordSecretsFromConfig(config);
  const source = new LowdbStore({ dataDir: config.DATA_DIR, readOnly: true, secrets });
  const { openPostgresStore } = await import('../core/store/postgres/open-postgres.ts');
  const target = await openPostgresStore({
    url: to,
    dedupeWindowMs: config.DEDUPE_WINDOW_DAYS * 24 * 60 * 60_000,
    logger,
    secrets,
  });
  try {
    await source.open();
    await target.store.open();
    const counts: Record<string, number> = {};
    let batch: LedgerItem[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await target.store.importItems(batch);
      batch = [];
      out(
        `copied ${Object.entries(counts)
          .map(([type, count]) => `${count} ${type}`)
          .join(', ')}`,
      );
    };
    for await (const item of source.exportAll()) {
      counts[item.type] = (counts[item.type] ?? 0) + 1;
      batch.push(item);
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    await target.store.finishImport();
    const [orders, deadLetters] = await Promise.all([target.store.countOrders(), target.store.countDeadLetters()]);
    const inDatabase = Object.values(orders.byState).reduce((sum, count) => sum + count, 0);
    out(
      `done: the database holds ${inDatabase} orders and ${deadLetters} dead letters (${counts.order ?? 0} orders and ${counts['dead-letter'] ?? 0} dead letters came from ${config.DATA_DIR})`,
    );
    out(`Start the bridge with DATABASE_URL set to run on it; ${config.DATA_DIR} is left as it was.`);
    return 0;
  } finally {
    await target.store.close();
    await target.release();
    unlock();
  }
}
