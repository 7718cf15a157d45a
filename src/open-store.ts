// Which store the configuration asks for: PostgreSQL when DATABASE_URL is set
// (many bridges behind one address share it), else the lowdb files under
// DATA_DIR, held by this one process with a kernel lock.
import type { Config } from './config.ts';
import { lockDataDir } from './core/store/lowdb/data-dir-lock.ts';
import { LowdbStore } from './core/store/lowdb/lowdb-store.ts';
import type { OpenedStore } from './core/store/opened-store.ts';
import type { Logger } from './logger.ts';

export async function openStore(config: Config, logger: Logger): Promise<OpenedStore> {
  const dedupeWindowMs = config.DEDUPE_WINDOW_DAYS * 24 * 60 * 60_000;
  if (config.DATABASE_URL) {
    const { openPostgresStore } = await import('./core/store/postgres/open-postgres.ts');
    return openPostgresStore({ url: config.DATABASE_URL, dedupeWindowMs, logger, poolSize: config.DATABASE_POOL_SIZE });
  }
  const unlock = await lockDataDir(config.DATA_DIR);
  return {
    store: new LowdbStore({
      dataDir: config.DATA_DIR,
      dedupeWindowMs,
      settleAfterMs: config.SETTLE_AFTER_MINUTES * 60_000,
    }),
    release: async () => unlock(),
  };
}
