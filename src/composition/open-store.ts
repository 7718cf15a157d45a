// Which store the configuration asks for: PostgreSQL when DATABASE_URL is set
// (many bridges behind one address share it), else the lowdb files under
// DATA_DIR, held by this one process with a kernel lock. Either seals the
// secrets of its records as the configuration says (recordSecretsFromConfig).
import { isSandboxMode, type Config } from '../config.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { lockDataDir } from '../core/store/lowdb/data-dir-lock.ts';
import { LowdbStore } from '../core/store/lowdb/lowdb-store.ts';
import type { OpenedStore } from '../core/store/opened-store.ts';
import { RecordSecrets } from '../core/store/record-secrets.ts';
import type { Logger } from '../logger.ts';
import { SecretBox, secretsKeyFrom } from '../secrets/secret-box.ts';
import { SHIPPED_MODULES } from '../platform-registry.ts';

/**
 * Secrets at rest as the configuration asks: sealed under SECRETS_KEY (and
 * opened with SECRETS_KEY_PREVIOUS too, during a rotation). Without a key,
 * kept plain in sandbox mode, and refused elsewhere when new.
 */
export function recordSecretsFromConfig(config: Config, modules: readonly AnyPlatformModule[] = []): RecordSecrets {
  const box = config.SECRETS_KEY
    ? new SecretBox(
        secretsKeyFrom(config.SECRETS_KEY),
        config.SECRETS_KEY_PREVIOUS ? secretsKeyFrom(config.SECRETS_KEY_PREVIOUS) : undefined,
      )
    : undefined;
  // Each platform's own record kinds and their secret fields, shipped and registered alike.
  const declared = [...SHIPPED_MODULES, ...modules].flatMap((module: AnyPlatformModule) =>
    module.records ? [module.records] : [],
  );
  return new RecordSecrets({ box, plainAllowed: isSandboxMode(config), declared });
}

export async function openStore(
  config: Config,
  logger: Logger,
  modules: readonly AnyPlatformModule[] = [],
): Promise<OpenedStore> {
  const dedupeWindowMs = config.DEDUPE_WINDOW_DAYS * 24 * 60 * 60_000;
  const secrets = recordSecretsFromConfig(config, modules);
  if (config.DATABASE_URL) {
    const { openPostgresStore } = await import('../core/store/postgres/open-postgres.ts');
    return openPostgresStore({
      url: config.DATABASE_URL,
      dedupeWindowMs,
      logger,
      poolSize: config.DATABASE_POOL_SIZE,
      secrets,
    });
  }
  const unlock = await lockDataDir(config.DATA_DIR);
  return {
    store: new LowdbStore({
      dataDir: config.DATA_DIR,
      dedupeWindowMs,
      settleAfterMs: config.SETTLE_AFTER_MINUTES * 60_000,
      secrets,
    }),
    release: async () => unlock(),
  };
}
