// The loyalty accounts of a bridge, from its configuration and its ledger: the default account is the
// environment's; every other account is kept in the ledger and gets a client of its own, with its own rate
// limit (shared by every instance on one PostgreSQL, by API key) and its own pause. An account's address is
// a user's, so it goes through the outbound policy for user-given addresses.
import { createHash } from 'node:crypto';
import { isSandboxMode, type Config } from '../config.ts';
import { DEFAULT_ACCOUNT, type AccountRuntime } from '../core/accounts.ts';
import type { WaitingMatch, OrderWorkRole, RecordRole } from '../core/store/ledger-store.ts';
import type { OpenedStore } from '../core/store/opened-store.ts';
import { AuthPause } from '../core/worker/auth-pause.ts';
import { pauseOf } from '../core/worker/worker.ts';
import type { Logger } from '../logger.ts';
import { LoyaltyClient, type AttemptReport, type LoyaltyClientOptions } from '../loyalty/client.ts';
import { limiterForKey, type RateLimiter } from '../loyalty/rate-limiter.ts';
import { isSecureTransport } from '../net/addresses.ts';
import { policyFromConfig } from './policy-from-config.ts';
import type { AccountRecord } from './account-records.ts';
import { poolKey, poolsFrom } from './account-pools.ts';
import { programDefaults, programSettingsOf, type ProgramSettings } from './program-settings.ts';
import { AccountRegistry, credentialsCheckOf } from './registry.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { ACCOUNT_KIND } from './account-records.ts';

/** A read that changes nothing at the service: let in (or told "no such customer"), the credentials work. */
export const probeRead = (client: Pick<LoyaltyClient, 'transactions'>) =>
  client.transactions({ type: 'earn', email: 'credentials-probe@loyalty-bridge.invalid' });

export interface AccountsParts {
  store: OrderWorkRole & RecordRole;
  opened: Pick<OpenedStore, 'sharedLimiter'>;
  /** The default account's client (the configuration's). */
  client: LoyaltyClient;
  logger: Logger;
  chosenByOperator: (platform: string, shop: string) => Promise<boolean>;
  /** Every attempt of every account's client (metrics, the upstream health panel). */
  onAttempt?: (report: AttemptReport & { account: string }) => void;
  /** The default account's pause, for the health panel. */
  onPauseChange?: (paused: boolean) => void;
  configDir?: string;
  /** Makes due what waits for an account (let in again, or a shop linked to it); bound once the engine exists. */
  wakeWaiting: (match: WaitingMatch) => Promise<unknown>;
  /** Told of a trial account on the bridge's sandbox each time its runtime is made: this instance's sandbox must know it. */
  onTrialRuntime?: ((record: AccountRecord) => void) | undefined;
}

export function accountsFromConfig(config: Config, parts: AccountsParts): AccountRegistry {
  const { store, opened, client, logger } = parts;
  const windowMs = config.LOYALTY_RATE_LIMIT_WINDOW_SECONDS * 1000;
  const pauseFor = pauseMaker(parts);

  const defaultSettings = programSettingsOf(config);
  const budgetIdOf = budgetIds();
  const { envKey, poolFor } = accountPools(config, store);
  const defaultAccount: AccountRuntime = {
    id: DEFAULT_ACCOUNT,
    name: 'default',
    client,
    policy: policyFromConfig(defaultSettings),
    earnActivityId: config.LOYALTY_EARN_ACTIVITY_ID,
    redeemReturnActivities: config.REDEEM_RETURN_ACTIVITIES,
    activityPoints: defaultSettings.LOYALTY_ACTIVITY_POINTS,
    authPause: pauseFor(DEFAULT_ACCOUNT, 'default', () => probeRead(client), parts.onPauseChange),
    reserveCall: (share) => client.limiter.reserve(share),
    budgetId: budgetIdOf(client.limiter),
    pool: poolFor(DEFAULT_ACCOUNT, envKey),
  };

  const limiterFor = limitersByKey(config, client, opened, windowMs);
  const clientOf = (record: AccountRecord) => ledgerAccountClient(config, client, parts, limiterFor, record);

  const registry = new AccountRegistry({
    store,
    logger,
    defaultAccount,
    defaultSettings,
    programDefaults: programDefaults(parts.configDir),
    makeRuntime: (record: AccountRecord, settings: ProgramSettings): AccountRuntime => {
      if (record.onBridgeSandbox) parts.onTrialRuntime?.(record);
      const accountClient = clientOf(record);
      return {
        id: record.id,
        name: record.name,
        client: accountClient,
        policy: policyFromConfig(settings),
        earnActivityId: settings.LOYALTY_EARN_ACTIVITY_ID,
        redeemReturnActivities: settings.REDEEM_RETURN_ACTIVITIES,
        activityPoints: settings.LOYALTY_ACTIVITY_POINTS ?? {},
        authPause: pauseFor(record.id, record.name, () => probeRead(accountClient)),
        reserveCall: (share) => accountClient.limiter.reserve(share),
        budgetId: budgetIdOf(accountClient.limiter),
        pool: poolFor(record.id, poolKey(budgetKeyOf(record.baseUrl, record.apiKey))),
      };
    },
    probe: (record) => probeAccount(config, client, record),
    chosenByOperator: parts.chosenByOperator,
    onCredentialsWork: async (account) => {
      await parts.wakeWaiting({ waitingFor: pauseOf(account) });
    },
    onLinked: async (shop) => {
      await parts.wakeWaiting({ waitingFor: 'account', platform: shop.platform, shop: shop.shop });
    },
    checkBaseUrl: (url) => baseUrlProblem(url),
  });
  return registry;
}

/** An account's pause, which makes due what waited for it once its credentials work again. */
function pauseMaker(parts: AccountsParts) {
  const { logger } = parts;
  return (id: string, name: string, probe: () => Promise<unknown>, onChange?: (paused: boolean) => void) =>
    new AuthPause({
      account: { id, name },
      probe,
      logger,
      onResume: () => void parts.wakeWaiting({ waitingFor: pauseOf(id) }).catch(() => undefined),
      ...(onChange ? { onChange } : {}),
    });
}

/**
 * The worker keeps accounts on one limiter as one budget (their places, holds and spent budgets): a number per
 * limiter, of this process only (not the limiter's digest of service and key).
 */
function budgetIds(): (limiter: RateLimiter) => string {
  const budgetIds = new WeakMap<RateLimiter, string>();
  let budgetCount = 0;
  return (limiter) => {
    let id = budgetIds.get(limiter);
    if (id === undefined) {
      id = `budget-${++budgetCount}`;
      budgetIds.set(limiter, id);
    }
    return id;
  };
}

/** Accounts with the same service and key share their customers' points (account-pools.ts), whatever their limits. */
function accountPools(config: Config, store: AccountsParts['store']) {
  const envKey =
    config.LOYALTY_BASE_URL && config.LOYALTY_API_KEY
      ? poolKey(budgetKeyOf(config.LOYALTY_BASE_URL, config.LOYALTY_API_KEY))
      : undefined;
  const poolFor = poolsFrom(async () => [
    ...(envKey ? [{ id: DEFAULT_ACCOUNT, key: envKey, createdAt: '' }] : []),
    ...(await store.listRecords(ACCOUNT_KIND)).map(({ value }) => ({
      id: value.id,
      key: poolKey(budgetKeyOf(value.baseUrl, value.apiKey)),
      createdAt: value.createdAt,
    })),
  ]);
  return { envKey, poolFor };
}

/**
 * One limiter per service, API key and limit, kept across the runtimes an account's changes make (a setting
 * changed makes a new runtime): a service counts calls by key, and a fresh limiter would hand out a fresh
 * minute. The service's address is part of it: an account someone points at a server of their own with a key
 * they learned spends no budget of the account that key belongs to, and learns nothing of its calls.
 * A new limit starts a new limiter: for the minute after, calls under the old one still count at the service,
 * and a 429 there (retried after its Retry-After) is possible once.
 */
function limitersByKey(
  config: Config,
  client: LoyaltyClient,
  opened: AccountsParts['opened'],
  windowMs: number,
): (record: AccountRecord) => RateLimiter {
  const limiters = new Map<string, RateLimiter>();
  const budgetKey = budgetKeyOf;
  const limiterId = (key: string, limit: number) => `${createHash('sha256').update(key).digest('hex')}:${limit}`;
  // An account kept in the ledger with the environment's service and key shares the default account's budget.
  if (config.LOYALTY_BASE_URL && config.LOYALTY_API_KEY)
    limiters.set(
      limiterId(budgetKey(config.LOYALTY_BASE_URL, config.LOYALTY_API_KEY), config.LOYALTY_RATE_LIMIT_PER_MINUTE),
      client.limiter,
    );
  return (record) => {
    const key = budgetKey(record.baseUrl, record.apiKey);
    const id = limiterId(key, record.rateLimitPerMinute);
    let limiter = limiters.get(id);
    if (!limiter) {
      // Shared through PostgreSQL under a digest of service and key (never the key itself).
      limiter = limiterForKey(opened.sharedLimiter, record.rateLimitPerMinute, key, windowMs);
      limiters.set(id, limiter);
    }
    return limiter;
  };
}

/** A client of an account kept in the ledger, on its own (shared) limiter. */
function ledgerAccountClient(
  config: Config,
  client: LoyaltyClient,
  parts: AccountsParts,
  limiterFor: (record: AccountRecord) => RateLimiter,
  record: AccountRecord,
): LoyaltyClient {
  return new LoyaltyClient({
    ...whereCallsGo(config, client, record),
    apiKey: record.apiKey,
    brandId: record.brandId,
    timeoutMs: config.LOYALTY_TIMEOUT_MS,
    maxRetries: config.LOYALTY_MAX_RETRIES,
    // The service counts by API key: instances on one PostgreSQL share each key's budget.
    limiter: limiterFor(record),
    ...(parts.onAttempt
      ? { onAttempt: (report: AttemptReport) => parts.onAttempt?.({ ...report, account: record.id }) }
      : {}),
  });
}

/** Whether an account's credentials work, as its form is saved. */
async function probeAccount(config: Config, client: LoyaltyClient, record: AccountRecord) {
  const at = new Date().toISOString();
  try {
    // One call, not retried: the person saving the account waits for the answer.
    await probeRead(new LoyaltyClient({ ...clientOptionsOnce(config, client, record) }));
    return credentialsCheckOf(undefined, at);
  } catch (error) {
    return credentialsCheckOf(error, at);
  }
}

/**
 * An account's address and how far calls to it may go: a merchant's address
 * is a user's (no loopback or private address unless the operator allows
 * them); a trial account's is the bridge's own sandbox, in sandbox mode the
 * default account's address, reached as the operator's calls reach it.
 */
function whereCallsGo(
  config: Config,
  defaultClient: Pick<LoyaltyClient, 'baseUrl'>,
  record: AccountRecord,
): Pick<LoyaltyClientOptions, 'baseUrl' | 'outbound'> {
  if (record.onBridgeSandbox && isSandboxMode(config))
    return { baseUrl: () => defaultClient.baseUrl, outbound: { userAddress: false } };
  return {
    baseUrl: record.baseUrl,
    outbound: { userAddress: true, allowPrivate: config.ALLOW_PRIVATE_STORE_ADDRESSES },
  };
}

const clientOptionsOnce = (config: Config, defaultClient: Pick<LoyaltyClient, 'baseUrl'>, record: AccountRecord) => ({
  ...whereCallsGo(config, defaultClient, record),
  apiKey: record.apiKey,
  brandId: record.brandId,
  timeoutMs: Math.min(config.LOYALTY_TIMEOUT_MS, 10_000),
  maxRetries: 0,
  rateLimitPerMinute: record.rateLimitPerMinute,
});

/**
 * A service's address and key, as one: what a limiter and a pool of points are kept by. The address as calls reach
 * it (the URL's own form: scheme and host in any case, a default port written or not, are one service), else a
 * second store typed "https://API.example.com" would be another pool of the same customers and another budget.
 */
const budgetKeyOf = (baseUrl: string, apiKey: string) => `${serviceAddress(baseUrl)}\n${apiKey}`;

function serviceAddress(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return trimTrailing(`${url.origin}${url.pathname}`, '/');
  } catch {
    return trimTrailing(baseUrl, '/');
  }
}

/** An account's base URL: https (plain http only to this machine), and nothing in it but scheme, host, port and path. */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an address like https://www.ref-r.com';
  }
  if (!isSecureTransport(url)) return 'must be https (every call carries the API key): plain http only to this machine';
  if (url.username || url.password || url.search || url.hash)
    return 'must hold no user name, password, query or fragment: give the key in apiKey';
  return undefined;
}
