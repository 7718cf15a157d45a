// The loyalty client and the engine as the configuration describes them,
// shared by the running bridge (src/composition/main.ts), the CLI's local commands and
// the upgrade test.
import { isSandboxMode, type Config } from '../config.ts';
import { openEngine, type Engine, type EngineOptions } from '../core/engine.ts';
import type { OpenReport } from '../core/store/ledger-store.ts';
import { accountsFromConfig, type AccountsParts } from '../accounts/from-config.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Accounts } from '../core/accounts.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { OpenedStore } from '../core/store/opened-store.ts';
import type { Logger } from '../logger.ts';
import { LoyaltyClient, type LoyaltyClientOptions } from '../loyalty/client.ts';
import { limiterForKey } from '../loyalty/rate-limiter.ts';
import type { SandboxCredentials } from '../sandbox/credentials.ts';
import type { Platforms } from './platforms.ts';

/**
 * In sandbox mode the client uses the bridge's sandbox's credentials (from
 * bridgeSandboxCredentials, never the public defaults); with a shared store,
 * the shared rate limit.
 */
export function loyaltyClientFromConfig(
  config: Config,
  opened: Pick<OpenedStore, 'sharedLimiter'>,
  extra: Pick<LoyaltyClientOptions, 'baseUrl' | 'onAttempt'> & { sandbox?: SandboxCredentials | undefined },
): LoyaltyClient {
  const { sandbox, ...options } = extra;
  const credentials = isSandboxMode(config)
    ? sandbox
    : { apiKey: config.LOYALTY_API_KEY ?? '', brandId: config.LOYALTY_BRAND_ID ?? '' };
  if (!credentials)
    throw new Error('in sandbox mode the loyalty client needs the sandbox credentials (bridgeSandboxCredentials)');
  const { apiKey, brandId } = credentials;
  return new LoyaltyClient({
    ...options,
    apiKey,
    brandId,
    timeoutMs: config.LOYALTY_TIMEOUT_MS,
    maxRetries: config.LOYALTY_MAX_RETRIES,
    limiter: limiterForKey(
      opened.sharedLimiter,
      config.LOYALTY_RATE_LIMIT_PER_MINUTE,
      apiKey,
      config.LOYALTY_RATE_LIMIT_WINDOW_SECONDS * 1000,
    ),
  });
}

export function engineOptionsFromConfig(
  config: Config,
  parts: { store: LedgerStore; accounts: Accounts; logger: Logger; platforms: Platforms },
): EngineOptions {
  const { store, accounts, logger, platforms } = parts;
  return {
    store,
    accounts,
    logger,
    dedupeWindowMs: config.DEDUPE_WINDOW_DAYS * 24 * 60 * 60_000,
    adapterFor: platforms.adapterFor,
    orderIdPrefixes: canonicalPrefixTargets(config.LOYALTY_ORDER_ID_PREFIXES, platforms),
    ...(store.kind === 'postgres' ? { pollMs: 1_000 } : {}),
    worker: {
      concurrency: config.WORKER_CONCURRENCY,
      backfillMinShare: config.BACKFILL_MIN_SHARE,
      maxRetryAgeMs: config.RETRY_MAX_AGE_HOURS * 60 * 60_000,
      maxUnknownFailures: config.LOYALTY_UNKNOWN_FAILURE_RETRIES,
      leaseMs: config.WORKER_LEASE_SECONDS * 1000,
    },
    intake: { maxRetryAgeMs: config.RETRY_MAX_AGE_HOURS * 60 * 60_000, leaseMs: config.WORKER_LEASE_SECONDS * 1000 },
  };
}

export interface ConfiguredEngineParts {
  opened: OpenedStore;
  /** What the store's open() said (read before the engine: the client may need the ledger first). */
  openReport: OpenReport;
  /** The default account's client (loyaltyClientFromConfig). */
  client: LoyaltyClient;
  logger: Logger;
  platforms: Platforms;
  owner?: string;
  onAttempt?: AccountsParts['onAttempt'];
  onPauseChange?: AccountsParts['onPauseChange'];
  onTrialRuntime?: AccountsParts['onTrialRuntime'];
  /** How long a budget is spent before it is a problem (tests hurry it). */
  budgetSpentLongMs?: number;
}

/**
 * The engine and its loyalty accounts, as the bridge and the CLI's local
 * commands open them: the accounts wake the engine's waiting orders (a shop
 * linked, an account let in again), so they are bound to it once it exists.
 */
export async function openConfiguredEngine(
  config: Config,
  parts: ConfiguredEngineParts,
): Promise<{ engine: Engine; accounts: AccountRegistry }> {
  const { opened, openReport, client, logger, platforms, owner, onAttempt, onPauseChange, onTrialRuntime } = parts;
  let engine: Engine | undefined;
  const accounts = accountsFromConfig(config, {
    store: opened.store,
    opened,
    client,
    logger,
    chosenByOperator: (platform, shop) => platforms.chosenByOperator(platform, shop),
    ...(onAttempt ? { onAttempt } : {}),
    ...(onPauseChange ? { onPauseChange } : {}),
    onTrialRuntime,
    wakeWaiting: async (match) => engine?.wakeWaiting(match),
  });
  const options = engineOptionsFromConfig(config, { store: opened.store, accounts, logger, platforms });
  if (parts.budgetSpentLongMs !== undefined)
    options.worker = { ...options.worker, budgetSpentLongMs: parts.budgetSpentLongMs };
  engine = await openEngine({
    ...options,
    opened: openReport,
    ...(owner ? { owner } : {}),
  });
  return { engine, accounts };
}

/**
 * LOYALTY_ORDER_ID_PREFIXES names shops as the merchant wrote them ("<platform>:www.store.example"): each in
 * its platform's one name (PlatformModule.shopName), so that the prefix still applies.
 */
function canonicalPrefixTargets(
  prefixes: Readonly<Record<string, string>>,
  platforms: Pick<Platforms, 'modules'>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(prefixes).map(([target, prefix]) => {
      const at = target.indexOf(':');
      const module = at > 0 ? platforms.modules.find((built) => built.module.name === target.slice(0, at)) : undefined;
      const shopName = module?.module.shopName;
      return [shopName ? `${target.slice(0, at)}:${shopName(target.slice(at + 1))}` : target, prefix];
    }),
  );
}
