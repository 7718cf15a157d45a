// Composition root: builds the parts from the configuration, starts them, and
// stops them in order. Nothing else in the code reads the configuration.
import { isSandboxMode, type Config } from './config.ts';
import { openEngine, type Engine } from './core/engine.ts';
import { policyFromConfig } from './core/policy-from-config.ts';
import { Reconciler } from './core/reconciler.ts';
import { orderSources, platformAdapters } from './platforms.ts';
import { lockDataDir } from './core/store/data-dir-lock.ts';
import type { PlatformAdapter } from '../adapters/adapter.ts';
import { ResyncJobs } from './core/resync-jobs.ts';
import { adminApi } from './http/admin-api.ts';
import { dashboard } from './http/dashboard.ts';
import { readiness } from './http/readiness.ts';
import { UpstreamHealth } from './loyalty/health.ts';
import { Metrics } from './metrics.ts';
import { createHttpHandler } from './http/app.ts';
import { webhookHandler, type WebhookHandler } from './http/webhook-route.ts';
import { listen, type Listening } from './http/listen.ts';
import { LoyaltyClient } from './loyalty/client.ts';
import type { Logger } from './logger.ts';
import { createSandbox, type Sandbox } from './sandbox/app.ts';

export interface RunningBridge {
  http: Listening;
  client: LoyaltyClient;
  metrics: Metrics;
  health: UpstreamHealth;
  engine: Engine;
  reconciler: Reconciler;
  /** Present in sandbox mode. */
  sandbox?: Sandbox;
  loyaltyBaseUrl: string;
  stop(): Promise<void>;
}

export function sandboxFromConfig(config: Config): Sandbox {
  return createSandbox({
    apiKey: config.SANDBOX_API_KEY,
    brandId: config.SANDBOX_BRAND_ID,
    activities: config.SANDBOX_ACTIVITIES,
    rateLimit: config.SANDBOX_RATE_LIMIT_PER_MINUTE,
    faults: {
      failureRate: config.SANDBOX_FAULT_FAILURE_RATE,
      failureStatus: config.SANDBOX_FAULT_FAILURE_STATUS,
      latencyMs: config.SANDBOX_FAULT_LATENCY_MS,
    },
  });
}

export async function startBridge(config: Config, logger: Logger): Promise<RunningBridge> {
  const sandbox = isSandboxMode(config) ? sandboxFromConfig(config) : undefined;
  // In sandbox mode the bridge calls the sandbox it serves itself, with the
  // sandbox's credentials; its address is known once the server listens.
  let loyaltyBaseUrl = config.LOYALTY_BASE_URL ?? '';
  const metrics = new Metrics();
  const health = new UpstreamHealth();
  /** Closed while stopping: webhooks then get 503 and the platforms send them again later. */
  const gate = { open: true };
  const client = new LoyaltyClient({
    onAttempt: (report) => {
      health.record(report);
      metrics.upstreamCalls.inc({ operation: report.operation, outcome: report.outcome });
      metrics.upstreamLatency.observe({ operation: report.operation }, report.durationMs / 1000);
      if (report.outcome === 'invalid_auth') metrics.authFailures.inc();
    },
    baseUrl: () => loyaltyBaseUrl,
    apiKey: sandbox ? config.SANDBOX_API_KEY : (config.LOYALTY_API_KEY ?? ''),
    brandId: sandbox ? config.SANDBOX_BRAND_ID : (config.LOYALTY_BRAND_ID ?? ''),
    timeoutMs: config.LOYALTY_TIMEOUT_MS,
    maxRetries: config.LOYALTY_MAX_RETRIES,
    rateLimitPerMinute: config.LOYALTY_RATE_LIMIT_PER_MINUTE,
  });

  // The ledger first: a damaged or busy one stops start-up before anything listens.
  const unlock = lockDataDir(config.DATA_DIR);
  const engine = await openEngine({
    dataDir: config.DATA_DIR,
    client,
    policy: policyFromConfig(config),
    earnActivityId: config.LOYALTY_EARN_ACTIVITY_ID,
    logger,
    dedupeWindowMs: config.DEDUPE_WINDOW_DAYS * 24 * 60 * 60_000,
    worker: { concurrency: config.WORKER_CONCURRENCY, maxRetryAgeMs: config.RETRY_MAX_AGE_HOURS * 60 * 60_000, settleAfterMs: config.SETTLE_AFTER_MINUTES * 60_000 },
  }).catch((error: unknown) => {
    unlock();
    throw error;
  });
  const webhooks: Record<string, WebhookHandler> = {};
  const routeOptions = { maxBodyBytes: config.WEBHOOK_MAX_BODY_BYTES, metrics, gate };
  const adapters = platformAdapters(config);
  if (adapters.shopify) webhooks.shopify = webhookHandler(adapters.shopify, engine, logger, routeOptions);
  if (adapters.woocommerce) webhooks.woocommerce = webhookHandler(adapters.woocommerce, engine, logger, routeOptions);
  if (adapters.bigcommerce) webhooks.bigcommerce = webhookHandler(adapters.bigcommerce, engine, logger, routeOptions);
  const reconciler = new Reconciler({
    sources: orderSources(config),
    engine,
    logger,
    intervalMs: config.RECONCILE_INTERVAL_MINUTES * 60_000,
    overlapMs: config.RECONCILE_OVERLAP_MINUTES * 60_000,
    firstLookbackMs: config.RECONCILE_FIRST_LOOKBACK_HOURS * 60 * 60_000,
  });
  const sources = orderSources(config);
  const resyncJobs = new ResyncJobs(sources, engine);
  const admin = adminApi({
    token: config.ADMIN_TOKEN,
    tokenLabel: config.ADMIN_TOKEN_LABEL,
    engine,
    reconciler,
    resyncJobs,
    client,
    health,
    adapters: adapters as Record<string, PlatformAdapter<unknown>>,
    logger,
  });
  metrics.bind({
    jobs: () => engine.worker.stats,
    deadLetters: () => engine.ledger.deadLetters().length,
    limiter: () => client.limiter.stats(),
  });
  const app = createHttpHandler({
    logger,
    metrics,
    readiness: () => readiness(config.DATA_DIR, health, gate),
    webhooks,
    admin,
    dashboard: dashboard(),
    ...(sandbox ? { sandbox: sandbox.app } : {}),
  });
  const http = await listen(app, config.PORT, config.HOST);
  if (sandbox) loyaltyBaseUrl = `${http.localUrl}/sandbox`;
  await engine.startWorker();
  reconciler.start();

  logger.info(
    { port: http.port, url: http.localUrl, mode: sandbox ? 'sandbox' : 'live', loyaltyBaseUrl, dataDir: config.DATA_DIR, webhooks: Object.keys(webhooks), reconciled: reconciler.platforms },
    sandbox
      ? `loyalty-bridge listening on ${http.localUrl} in sandbox mode; the loyalty sandbox answers at ${loyaltyBaseUrl}`
      : `loyalty-bridge listening on ${http.localUrl}; loyalty service at ${loyaltyBaseUrl}`,
  );

  return {
    http,
    client,
    metrics,
    health,
    engine,
    reconciler,
    ...(sandbox ? { sandbox } : {}),
    get loyaltyBaseUrl() {
      return loyaltyBaseUrl;
    },
    async stop() {
      // No new deliveries; calls under way finish (or are left to be made
      // again after restart, which is safe) and the ledger is flushed before
      // the server goes: in sandbox mode those calls go to this very server.
      gate.open = false;
      await reconciler.stop();
      await engine.stop(config.SHUTDOWN_TIMEOUT_MS);
      await http.close();
      unlock();
      logger.info('stopped');
    },
  };
}

export interface RunningSandbox {
  http: Listening;
  sandbox: Sandbox;
  stop(): Promise<void>;
}

/** The sandbox on its own port (SANDBOX_PORT), for developing against it from elsewhere. */
export async function startSandboxServer(config: Config, logger: Logger): Promise<RunningSandbox> {
  const sandbox = sandboxFromConfig(config);
  const http = await listen(sandbox.app, config.SANDBOX_PORT, config.HOST);
  logger.info({ port: http.port, url: http.localUrl }, `loyalty sandbox listening on ${http.localUrl}`);
  return { http, sandbox, stop: () => http.close() };
}
