// startBridge's phases (main.ts), in the order they run: the ledger opened, the core built on it, the ledger
// prepared for this release, the background work wired, then served. The first three release the ledger if they
// fail, so a failed start leaves it free for the next; a failure once the work is wired is the process's end.
import { AccountCalls } from '../accounts/account-calls.ts';
import { linkEarlierShops } from '../accounts/earlier-shops.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { admitTrial, bridgeSandboxOf, readmitTrialAccounts } from '../accounts/sandbox-trials.ts';
import type { Activity } from '../activity.ts';
import type { Config } from '../config.ts';
import type { Engine } from '../core/engine.ts';
import { trimEarlierDeliveries } from '../core/kept-deliveries.ts';
import { HEALTH_KIND } from '../core/order-source.ts';
import { Reconciler } from '../core/reconciler.ts';
import { ResyncJobs } from '../core/resync-jobs.ts';
import type { OpenReport } from '../core/store/ledger-store.ts';
import { listen, type Listening } from '../http/listen.ts';
import type { Logger } from '../logger.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Metrics } from '../metrics.ts';
import { shownUrl } from '../net/refusal.ts';
import type { Sandbox } from '../sandbox/app.ts';
import type { SandboxCredentials } from '../sandbox/credentials.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { forgetDemoShops } from './demo-accounts.ts';
import type { DemoSecrets } from './demo-store.ts';
import { loyaltyClientFromConfig, openConfiguredEngine } from './engine-from-config.ts';
import { FirstRun, firstRunConfig, signInUrl, tellSignInLink } from './first-run.ts';
import { httpSurface } from './http-surface.ts';
import { bridgeSandboxCredentials } from './kept-sandbox-credentials.ts';
import type { BridgeOptions, RunningBridge } from './running-bridge.ts';
import { openStore } from './open-store.ts';
import { buildPlatforms, storeConnected, type Platforms } from './platforms.ts';
import { sandboxFromConfig } from './sandbox-server.ts';
import { stopInOrder } from './stop-bridge.ts';
import { upstreamReports } from './upstream-reports.ts';
import { webhookRoutes } from './webhook-routes.ts';

/** What every phase shares: made before the ledger is opened, for the whole run. */
export interface BridgeRun {
  logger: Logger;
  options: BridgeOptions;
  adminToken: string | undefined;
  /** The loyalty service's address: the sandbox's own is known only once the server listens. */
  loyalty: { baseUrl: string };
  metrics: Metrics;
  health: UpstreamHealth;
  activity: Activity;
  instance: string;
  gate: { open: boolean; draining: boolean };
}

interface Ledger {
  opened: Awaited<ReturnType<typeof openStore>>;
  openReport: OpenReport;
  config: Config;
  /** A first run's demo; undefined once a store of the merchant's is connected. */
  secrets: DemoSecrets | undefined;
  sandboxCredentials: SandboxCredentials | undefined;
}

interface Core {
  client: LoyaltyClient;
  platforms: Platforms;
  engine: Engine;
  accounts: AccountRegistry;
  accountCalls: AccountCalls;
  sandbox: Sandbox | undefined;
}

interface Work {
  firstRun: FirstRun | undefined;
  webhooks: ReturnType<typeof webhookRoutes>;
  reconciler: Reconciler;
  resyncJobs: ResyncJobs;
  storeAdded: (platform: string) => (shop: string) => Promise<void>;
}

/** Released if what follows fails: a failed start leaves the ledger free. */
async function releasedOnFailure<T>(opened: Ledger['opened'], step: () => Promise<T>, stop?: () => Promise<void>) {
  try {
    return await step();
  } catch (error) {
    await stop?.();
    await opened.release();
    throw error;
  }
}

// The ledger first: a damaged or busy one stops start-up before anything listens. Opened before the engine, for the
// sandbox's credentials kept in it.
export async function openLedger(configured: Config, sandboxMode: boolean, run: BridgeRun): Promise<Ledger> {
  const opened = await openStore(configured, run.logger, run.options.modules);
  const { store } = opened;
  return releasedOnFailure(opened, async () => {
    const openReport = await store.open();
    // A first run's demo, unless an earlier run connected a store of the merchant's: asked of the ledger, before the
    // demo's settings are in the configuration.
    const { config, secrets } = await firstRunConfig(configured, () => storeConnected(configured, store, run.options));
    const sandboxCredentials = sandboxMode ? await bridgeSandboxCredentials(config, store) : undefined;
    return { opened, openReport, config, secrets, sandboxCredentials };
  });
}

export async function buildCore(ledger: Ledger, run: BridgeRun): Promise<Core> {
  const { opened, config, sandboxCredentials } = ledger;
  const { logger, options } = run;
  const sandbox = sandboxCredentials ? sandboxFromConfig(config, sandboxCredentials, run.adminToken) : undefined;
  // Each account's own calls, for its merchant's page (account-calls.ts); the environment's account reports none.
  const accountCalls = new AccountCalls();
  const recordAttempt = upstreamReports({
    accountCalls,
    health: run.health,
    activity: run.activity,
    metrics: run.metrics,
  });
  const client = loyaltyClientFromConfig(config, opened, {
    sandbox: sandboxCredentials,
    onAttempt: recordAttempt,
    baseUrl: () => run.loyalty.baseUrl,
  });
  const platforms = await releasedOnFailure(opened, async () =>
    buildPlatforms(config, opened.store, options.platformOverrides, {
      modules: options.modules ?? [],
      logger,
      platformOptions: options.platformOptions ?? {},
    }),
  );
  const { engine, accounts } = await releasedOnFailure(opened, () =>
    openConfiguredEngine(config, {
      opened,
      openReport: ledger.openReport,
      client,
      logger,
      platforms,
      owner: run.instance,
      onAttempt: recordAttempt,
      onPauseChange: (paused) => run.health.setPaused(paused),
      ...(options.budgetSpentLongMs !== undefined ? { budgetSpentLongMs: options.budgetSpentLongMs } : {}),
      // A trial made through another instance, after this one started, is given to this one's sandbox when first used.
      onTrialRuntime: sandbox ? (record) => void admitTrial(sandbox, record, logger) : undefined,
    }),
  );
  return { client, platforms, engine, accounts, accountCalls, sandbox };
}

// Deliveries kept whole by an earlier release trimmed to what is read (core/kept-deliveries.ts); each platform's
// moves of what earlier releases kept (old shop names to the one name, the inbox folded first when there are any);
// shops installed before accounts existed kept on the default account.
export async function prepareLedger(ledger: Ledger, core: Core, { logger }: BridgeRun): Promise<void> {
  const { store } = ledger.opened;
  const { engine, platforms, accounts } = core;
  await releasedOnFailure(
    ledger.opened,
    async () => {
      await trimEarlierDeliveries(store, platforms.adapterFor, logger);
      await platforms.prepare(() => engine.foldInbox());
      await linkEarlierShops(store, accounts, logger);
      // A run without the demo (a store of the merchant's is connected): the demo's shops, links and trial accounts go.
      if (!ledger.secrets) await forgetDemoShops(accounts, store, logger);
    },
    () => engine.stop(),
  );
}

export function wireWork(ledger: Ledger, core: Core, run: BridgeRun): Work {
  const { config, secrets, opened } = ledger;
  const { platforms, engine } = core;
  const { logger, options } = run;
  const firstRun = secrets
    ? new FirstRun({
        config,
        platforms,
        secrets,
        engine,
        registry: core.accounts,
        adminToken: run.adminToken,
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
    metrics: run.metrics,
    activity: run.activity,
    gate: run.gate,
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
    store: opened.store,
    ingest: engine.ingest,
    logger,
    intervalMs: options.reconcileIntervalMs ?? config.RECONCILE_INTERVAL_MINUTES * 60_000,
    overlapMs: config.RECONCILE_OVERLAP_MINUTES * 60_000,
    firstLookbackMs: config.RECONCILE_FIRST_LOOKBACK_HOURS * 60 * 60_000,
    onHealth: (report) => run.metrics.reportSubscriptions(report),
    discover: () => platforms.discoverStores(),
  });
  // While the demo plays, its shops answer resync from what they sent (demo-source.ts).
  const resyncJobs = new ResyncJobs(
    firstRun ? () => [...firstRun.sources, ...platforms.sources] : platforms.sources,
    opened.store,
    engine.ingest,
    logger,
  );
  const work = {
    firstRun,
    webhooks,
    reconciler,
    resyncJobs,
    storeAdded: storeAddedOf(firstRun, platforms, reconciler),
  };
  tellPlatformEvents(core, work, logger);
  return work;
}

// A store connected or installed: its recent orders read and its webhooks made, after the platform's request was
// answered; the demo stops, as the merchant's own store is here.
const storeAddedOf =
  (firstRun: FirstRun | undefined, platforms: Platforms, reconciler: Reconciler) =>
  (platform: string) =>
  async (shop: string) => {
    firstRun?.stop();
    platforms.storeAdded(platform);
    await reconciler.run(platform, shop);
  };

function tellPlatformEvents({ platforms, engine }: Core, { reconciler, storeAdded }: Work, logger: Logger): void {
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
}

export async function serve(ledger: Ledger, core: Core, work: Work, run: BridgeRun): Promise<RunningBridge> {
  const { config, opened, sandboxCredentials } = ledger;
  const { store } = opened;
  const { engine, sandbox } = core;
  const { reconciler, firstRun, resyncJobs } = work;
  const { logger, options } = run;
  const surface = await httpSurface({
    config,
    store,
    platforms: core.platforms,
    reconciler,
    logger,
    adminToken: run.adminToken,
    storeAdded: work.storeAdded,
    engine,
    accounts: core.accounts,
    resyncJobs,
    client: core.client,
    health: run.health,
    activity: run.activity,
    metrics: run.metrics,
    accountCalls: core.accountCalls,
    webhooks: work.webhooks,
    gate: run.gate,
    sandbox: sandbox && sandboxCredentials ? { app: sandbox, credentials: sandboxCredentials } : undefined,
    loyaltyBaseUrl: () => run.loyalty.baseUrl,
    demo: firstRun,
    rewardRepairMs: options.rewardRepairMs,
    widgetCheckMs: options.widgetCheckMs,
  });
  const http = await listen(surface.handler, config.PORT, config.HOST);
  if (sandbox) {
    run.loyalty.baseUrl = `${http.localUrl}/sandbox`;
    // Merchants' trials on this sandbox, which forgot them when the last run stopped.
    await readmitTrialAccounts(store, sandbox, logger);
  }
  await engine.startWorker();
  reconciler.start();
  for (const each of surface.background) each.start();
  // What the last checks found stays visible in the metrics across a restart, until the next check says otherwise.
  for (const { value } of await store.listRecords(HEALTH_KIND)) run.metrics.reportSubscriptions(value);
  // Subscriptions kept right without a command: checked now, in the background, and on every reconciliation.
  void reconciler
    .checkAllSubscriptions()
    .catch((error: unknown) => logger.warn({ err: error }, 'could not check the subscriptions'));
  tellListening(ledger, core, work, run, http);
  return running(ledger, core, work, run, { http, background: surface.background });
}

function tellListening(ledger: Ledger, core: Core, work: Work, run: BridgeRun, http: Listening): void {
  const { store } = ledger.opened;
  // Origin and path only: logs are collected and read widely, and an address can carry a key.
  const shownBaseUrl = trimTrailing(shownUrl(run.loyalty.baseUrl), '/');
  run.logger.info(
    {
      port: http.port,
      url: http.localUrl,
      instance: run.instance,
      mode: core.sandbox ? 'sandbox' : 'live',
      store: store.kind,
      loyaltyBaseUrl: shownBaseUrl,
      dataDir: store.kind === 'lowdb' ? ledger.config.DATA_DIR : undefined,
      webhooks: Object.keys(work.webhooks),
      reconciled: work.reconciler.platforms,
    },
    core.sandbox
      ? `loyalty-bridge listening on ${http.localUrl} in sandbox mode; the loyalty sandbox answers at ${shownBaseUrl}`
      : `loyalty-bridge listening on ${http.localUrl}; loyalty service at ${shownBaseUrl}`,
  );
}

async function running(
  ledger: Ledger,
  core: Core,
  work: Work,
  run: BridgeRun,
  served: { http: Listening; background: Awaited<ReturnType<typeof httpSurface>>['background'] },
): Promise<RunningBridge> {
  const { config, opened } = ledger;
  const { engine, sandbox } = core;
  const { firstRun, reconciler, resyncJobs } = work;
  const { http } = served;
  // A first run is sandbox mode: the demo's shops get their trial accounts on this bridge's sandbox.
  const demo =
    firstRun && sandbox
      ? await firstRun.start(
          http.localUrl,
          bridgeSandboxOf(sandbox, () => run.loyalty.baseUrl),
        )
      : undefined;
  // On a first run the demo's page is told with the sign-in, and again below the demo's first orders.
  if (firstRun) firstRun.tellLinks();
  else tellSignInLink(config, run.adminToken, http.localUrl, run.logger);
  const signIn = signInUrl(config, run.adminToken, http.localUrl);
  return {
    http,
    client: core.client,
    metrics: run.metrics,
    health: run.health,
    activity: run.activity,
    engine,
    accounts: core.accounts,
    platforms: core.platforms,
    reconciler,
    resyncJobs,
    ...(sandbox ? { sandbox } : {}),
    ...(demo ? { demo } : {}),
    ...(firstRun ? { firstRun } : {}),
    ...(signIn ? { signInUrl: signIn } : {}),
    get loyaltyBaseUrl() {
      return run.loyalty.baseUrl;
    },
    stop: () =>
      stopInOrder({
        config,
        logger: run.logger,
        gate: run.gate,
        demo,
        reconciler,
        waitingOnPlatforms: [
          ...served.background.map(({ what, stop }) => ({ what, done: stop })),
          { what: 'a resync', done: () => resyncJobs.idle() },
        ],
        engine,
        http,
        release: () => opened.release(),
      }),
  };
}
