// Composition root: builds the parts from the configuration, starts them, and stops them in order. Nothing
// else in the code reads the configuration. What each part is wired from lives beside it in this folder.
import { randomBytes, randomUUID } from 'node:crypto';
import { AccountCalls } from '../accounts/account-calls.ts';
import { linkEarlierShops } from '../accounts/earlier-shops.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { bridgeSandboxOf } from '../accounts/sandbox-trials.ts';
import { admitTrial, readmitTrialAccounts } from '../accounts/sandbox-trials.ts';
import { Activity } from '../activity.ts';
import { isSandboxMode, type Config } from '../config.ts';
import type { Engine } from '../core/engine.ts';
import { trimEarlierDeliveries } from '../core/kept-deliveries.ts';

import type { AnyPlatformModule } from '../core/platform-module.ts';
import { Reconciler } from '../core/reconciler.ts';
import { ResyncJobs } from '../core/resync-jobs.ts';
import type { OpenReport } from '../core/store/ledger-store.ts';
import { listen, type Listening } from '../http/listen.ts';
import type { Logger } from '../logger.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import { UpstreamHealth } from '../loyalty/health.ts';
import { Metrics } from '../metrics.ts';
import { shownUrl } from '../net/refusal.ts';
import type { Sandbox } from '../sandbox/app.ts';
import type { SandboxCredentials } from '../sandbox/credentials.ts';
import type { DemoSecrets, DemoStore } from './demo-store.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { loyaltyClientFromConfig, openConfiguredEngine } from './engine-from-config.ts';
import { forgetDemoShops } from './demo-accounts.ts';
import { FirstRun, firstRunConfig, signInUrl, tellSignInLink, type DemoPace } from './first-run.ts';
import { stopInOrder } from './stop-bridge.ts';
import { httpSurface } from './http-surface.ts';
import { bridgeSandboxCredentials } from './kept-sandbox-credentials.ts';
import { openStore } from './open-store.ts';
import { buildPlatforms, storeConnected, type PlatformOverrides, type Platforms } from './platforms.ts';
import { sandboxFromConfig } from './sandbox-server.ts';
import { upstreamReports } from './upstream-reports.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { HEALTH_KIND } from '../core/order-source.ts';

export interface RunningBridge {
  http: Listening;
  client: LoyaltyClient;
  metrics: Metrics;
  health: UpstreamHealth;
  activity: Activity;
  engine: Engine;
  /** The loyalty accounts, which shop earns on which, and the audit of changes to them. */
  accounts: AccountRegistry;
  platforms: Platforms;
  reconciler: Reconciler;
  resyncJobs: ResyncJobs;
  /** Present in sandbox mode. */
  sandbox?: Sandbox;
  /** Present on a first run: the built-in demo store sending its orders. */
  demo?: DemoStore;
  /** Present on a first run: the demo, its shop's page and the links told at the terminal. */
  firstRun?: FirstRun;
  /**
   * In sandbox mode without ADMIN_TOKEN: the dashboard link with this run's
   * one-time token in its fragment (never sent to a server, so never in a log).
   */
  signInUrl?: string;
  loyaltyBaseUrl: string;
  stop(): Promise<void>;
}

export interface BridgeOptions {
  /** Where platform APIs answer, for tests that serve them locally. */
  platformOverrides?: PlatformOverrides;
  /** Between two orders of the demo store's first handful (tests hurry it). */
  demoPaceMs?: number;
  /** How the demo store is paced after it, or its waits counted (tests). */
  demoPace?: Omit<DemoPace, 'paceMs'>;
  /** Between two reconciliations, instead of RECONCILE_INTERVAL_MINUTES (tests hurry it). */
  reconcileIntervalMs?: number;
  /** How long a reward code's make may take before the sweeper repairs it (tests hurry it; 2 minutes). */
  rewardRepairMs?: number;
  /** How often storefront widgets are checked, in ms (STOREFRONT_WIDGET_CHECK_MINUTES otherwise): tests hurry it. */
  widgetCheckMs?: number;
  /** How long an account's calls are used up before it is a problem to show (tests hurry it; 3 minutes). */
  budgetSpentLongMs?: number;
  /** Platforms registered as modules beside the shipped ones; the configuration must be loaded with them too. */
  modules?: readonly AnyPlatformModule[];
  /** Each platform's own options, by its name, as its module reads them (tests hurry its timers). */
  platformOptions?: Readonly<Record<string, unknown>>;
}

/** A token for this run; never one beginning with a dash, which `--token <token>` would read as an option. */
function runToken(): string {
  const token = randomBytes(24).toString('base64url');
  return token.startsWith('-') ? runToken() : token;
}

export async function startBridge(
  configured: Config,
  logger: Logger,
  options: BridgeOptions = {},
): Promise<RunningBridge> {
  // The demo's settings are platforms' only: where to listen, the ledger and the sandbox are the operator's.
  const sandboxMode = isSandboxMode(configured);
  // The sandbox needs no real credentials, so neither does its dashboard: a token for this run only.
  const adminToken = configured.ADMIN_TOKEN ?? (sandboxMode ? runToken() : undefined);
  // In sandbox mode the bridge calls the sandbox it serves itself, with the
  // sandbox's credentials; its address is known once the server listens.
  let loyaltyBaseUrl = configured.LOYALTY_BASE_URL ?? '';
  const metrics = new Metrics({ shopLabels: configured.METRICS_SHOP_LABELS });
  const health = new UpstreamHealth();
  const activity = new Activity();
  const instance = randomUUID();
  /**
   * Draining first (readiness down, deliveries still taken, for
   * SHUTDOWN_GRACE_SECONDS: a load balancer moves to the other instances),
   * then closed: webhooks get 503 and the platforms send them again later.
   */
  const gate = { open: true, draining: false };

  // The ledger first: a damaged or busy one stops start-up before anything listens.
  // Opened before the engine, for the sandbox's credentials kept in it.
  const opened = await openStore(configured, logger, options.modules);
  const { store } = opened;
  let openReport: OpenReport;
  let sandboxCredentials: SandboxCredentials | undefined;
  let config: Config;
  let secrets: DemoSecrets | undefined;
  try {
    openReport = await store.open();
    // A first run's demo, unless an earlier run connected a store of the merchant's: asked of the ledger, before the
    // demo's settings are in the configuration.
    ({ config, secrets } = await firstRunConfig(configured, () => storeConnected(configured, store, options)));
    sandboxCredentials = sandboxMode ? await bridgeSandboxCredentials(config, store) : undefined;
  } catch (error) {
    await opened.release();
    throw error;
  }
  const sandbox = sandboxCredentials ? sandboxFromConfig(config, sandboxCredentials, adminToken) : undefined;
  // Each account's own calls, for its merchant's page (account-calls.ts); the environment's account reports none.
  const accountCalls = new AccountCalls();
  const recordAttempt = upstreamReports({ accountCalls, health, activity, metrics });
  const client = loyaltyClientFromConfig(config, opened, {
    sandbox: sandboxCredentials,
    onAttempt: recordAttempt,
    baseUrl: () => loyaltyBaseUrl,
  });
  let platforms: Platforms;
  try {
    platforms = buildPlatforms(config, store, options.platformOverrides, {
      modules: options.modules ?? [],
      logger,
      platformOptions: options.platformOptions ?? {},
    });
  } catch (error) {
    await opened.release();
    throw error;
  }

  let engine: Engine;
  let accounts: AccountRegistry;
  try {
    ({ engine, accounts } = await openConfiguredEngine(config, {
      opened,
      openReport,
      client,
      logger,
      platforms,
      owner: instance,
      onAttempt: recordAttempt,
      onPauseChange: (paused) => health.setPaused(paused),
      ...(options.budgetSpentLongMs !== undefined ? { budgetSpentLongMs: options.budgetSpentLongMs } : {}),
      // A trial made through another instance, after this one started, is given to this one's sandbox when first used.
      onTrialRuntime: sandbox ? (record) => void admitTrial(sandbox, record, logger) : undefined,
    }));
  } catch (error) {
    await opened.release();
    throw error;
  }

  // Deliveries kept whole by an earlier release trimmed to what is read (core/kept-deliveries.ts); each
  // platform's moves of what earlier releases kept (old shop names to the one name, the inbox folded first when
  // there are any); shops installed before accounts existed kept on the default account.
  try {
    await trimEarlierDeliveries(store, platforms.adapterFor, logger);
    await platforms.prepare(() => engine.foldInbox());
    await linkEarlierShops(store, accounts, logger);
    // A run without the demo (a store of the merchant's is connected): the demo's shops, links and trial accounts go.
    if (!secrets) await forgetDemoShops(accounts, store, logger);
  } catch (error) {
    await engine.stop();
    await opened.release();
    throw error;
  }

  const firstRun = secrets
    ? new FirstRun({
        config,
        platforms,
        secrets,
        engine,
        registry: accounts,
        adminToken,
        logger,
        pace: { paceMs: options.demoPaceMs, ...options.demoPace },
      })
    : undefined;
  // Before the routes are made: the demo shops' storefronts are served by their platforms' storefront routes.
  firstRun?.lendStorefront();
  const webhooks = webhookRoutes({
    config,
    platforms,
    ingest: engine.ingest,
    logger,
    metrics,
    activity,
    gate,
    // The demo's deliveries are told by the demo, one line an order; a store's own keep their line.
    ...(firstRun
      ? {
          ownLine: (platform: string, shop: string) => firstRun.isDemoShop(platform, shop),
          refusedShop: (platform: string, shop: string) => firstRun.refusedShop(platform, shop),
        }
      : {}),
  });
  const reconciler = new Reconciler({
    sources: platforms.sources,
    store,
    ingest: engine.ingest,
    logger,
    intervalMs: options.reconcileIntervalMs ?? config.RECONCILE_INTERVAL_MINUTES * 60_000,
    overlapMs: config.RECONCILE_OVERLAP_MINUTES * 60_000,
    firstLookbackMs: config.RECONCILE_FIRST_LOOKBACK_HOURS * 60 * 60_000,
    onHealth: (report) => metrics.reportSubscriptions(report),
    discover: () => platforms.discoverStores(),
  });
  // While the demo plays, its shops answer resync from what they sent (demo-source.ts).
  const resyncJobs = new ResyncJobs(
    firstRun ? () => [...firstRun.sources, ...platforms.sources] : platforms.sources,
    store,
    engine.ingest,
    logger,
  );
  // A store connected or installed: its recent orders read and its webhooks made, after the platform's request
  // was answered; the demo stops, as the merchant's own store is here.
  const storeAdded = (platform: string) => async (shop: string) => {
    firstRun?.stop();
    platforms.storeAdded(platform);
    await reconciler.run(platform, shop);
  };
  platforms.onStoreConnected = (platform, shop) =>
    void storeAdded(platform)(shop).catch((error: unknown) =>
      logger.warn({ err: error, platform }, 'could not read a newly connected store; the next reconciliation tries'),
    );
  platforms.onShopUninstalled = (platform, shop) => engine.privacy.shopUninstalled(platform, shop);
  platforms.onSubscriptionsChanged = (platform, shop) =>
    void reconciler
      .checkAllSubscriptions(platform, shop)
      .catch((error: unknown) =>
        logger.warn({ err: error, platform, shop }, 'could not check the shop again; the next reconciliation tries'),
      );
  const surface = await httpSurface({
    config,
    store,
    platforms,
    reconciler,
    logger,
    adminToken,
    storeAdded,
    engine,
    accounts,
    resyncJobs,
    client,
    health,
    activity,
    metrics,
    accountCalls,
    webhooks,
    gate,
    sandbox: sandbox && sandboxCredentials ? { app: sandbox, credentials: sandboxCredentials } : undefined,
    loyaltyBaseUrl: () => loyaltyBaseUrl,
    demo: firstRun,
    rewardRepairMs: options.rewardRepairMs,
    widgetCheckMs: options.widgetCheckMs,
  });
  const http = await listen(surface.handler, config.PORT, config.HOST);
  if (sandbox) {
    loyaltyBaseUrl = `${http.localUrl}/sandbox`;
    // Merchants' trials on this sandbox, which forgot them when the last run stopped.
    await readmitTrialAccounts(store, sandbox, logger);
  }
  await engine.startWorker();
  reconciler.start();
  for (const work of surface.background) work.start();
  // What the last checks found stays visible in the metrics across a restart, until the next check says otherwise.
  for (const { value } of await store.listRecords(HEALTH_KIND)) metrics.reportSubscriptions(value);
  // Subscriptions kept right without a command: checked now, in the background, and on every reconciliation.
  void reconciler
    .checkAllSubscriptions()
    .catch((error: unknown) => logger.warn({ err: error }, 'could not check the subscriptions'));

  // Origin and path only: logs are collected and read widely, and an address can carry a key.
  const shownBaseUrl = trimTrailing(shownUrl(loyaltyBaseUrl), '/');
  logger.info(
    {
      port: http.port,
      url: http.localUrl,
      instance,
      mode: sandbox ? 'sandbox' : 'live',
      store: store.kind,
      loyaltyBaseUrl: shownBaseUrl,
      dataDir: store.kind === 'lowdb' ? config.DATA_DIR : undefined,
      webhooks: Object.keys(webhooks),
      reconciled: reconciler.platforms,
    },
    sandbox
      ? `loyalty-bridge listening on ${http.localUrl} in sandbox mode; the loyalty sandbox answers at ${shownBaseUrl}`
      : `loyalty-bridge listening on ${http.localUrl}; loyalty service at ${shownBaseUrl}`,
  );
  // A first run is sandbox mode: the demo's shops get their trial accounts on this bridge's sandbox.
  const demo =
    firstRun && sandbox
      ? await firstRun.start(
          http.localUrl,
          bridgeSandboxOf(sandbox, () => loyaltyBaseUrl),
        )
      : undefined;
  // On a first run the demo's page is told with the sign-in, and again below the demo's first orders.
  if (firstRun) firstRun.tellLinks();
  else tellSignInLink(config, adminToken, http.localUrl, logger);
  const signIn = signInUrl(config, adminToken, http.localUrl);

  return {
    http,
    client,
    metrics,
    health,
    activity,
    engine,
    accounts,
    platforms,
    reconciler,
    resyncJobs,
    ...(sandbox ? { sandbox } : {}),
    ...(demo ? { demo } : {}),
    ...(firstRun ? { firstRun } : {}),
    ...(signIn ? { signInUrl: signIn } : {}),
    get loyaltyBaseUrl() {
      return loyaltyBaseUrl;
    },
    stop: () =>
      stopInOrder({
        config,
        logger,
        gate,
        demo,
        reconciler,
        waitingOnPlatforms: [
          ...surface.background.map(({ what, stop }) => ({ what, done: stop })),
          { what: 'a resync', done: () => resyncJobs.idle() },
        ],
        engine,
        http,
        release: () => opened.release(),
      }),
  };
}
