// Composition root: builds the parts from the configuration, starts them, and
// stops them in order. Nothing else in the code reads the configuration.
import express, { type RequestHandler } from 'express';
import { laneStatus } from '../core/lanes.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { isSandboxMode, runsDemoStore, type Config } from '../config.ts';
import type { Engine } from '../core/engine.ts';
import type { SubscriptionHealth } from '../core/order-source.ts';
import { Reconciler } from '../core/reconciler.ts';
import { waitAtMost } from '../core/wait-at-most.ts';
import { ResyncJobs } from '../core/resync-jobs.ts';
import { openStore } from './open-store.ts';
import { adminApi } from '../http/admin-api.ts';
import { adminStores } from '../http/admin-stores.ts';
import { createHttpHandler } from '../http/app.ts';
import { bigCommerceApp } from '../http/bigcommerce-app.ts';
import { bodyReader } from '../http/body-reader.ts';
import { wooCallbackRoutes } from '../http/woocommerce-connect.ts';
import { wooPageTokens, wooStorePages } from '../http/woocommerce-pages.ts';
import { dashboard } from '../http/dashboard.ts';
import { merchantAssets } from '../http/merchant-page.ts';
import { listen, type Listening } from '../http/listen.ts';
import { readiness } from '../http/readiness.ts';
import { shopAdminApi } from '../http/shop-admin-api.ts';
import { bigCommerceMerchantDoor } from '../http/bigcommerce-merchant-door.ts';
import { RemovedUsers } from '../../adapters/bigcommerce/removed-users.ts';
import { BIGCOMMERCE_STORE_PAGE, bridgeShopTokens } from '../http/bridge-shop-token.ts';
import { shopifySurface } from '../http/shopify-surface.ts';
import { webhookHandler, type WebhookHandler } from '../http/webhook-route.ts';
import type { Logger } from '../logger.ts';
import type { AttemptReport, LoyaltyClient } from '../loyalty/client.ts';
import { accountLoads, publicView } from '../accounts/account-load.ts';
import { defaultAccountView } from '../accounts/account-view.ts';
import { AccountCalls } from '../accounts/account-calls.ts';
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import { linkEarlierShops } from '../accounts/earlier-shops.ts';
import { admitTrial, readmitTrialAccounts } from '../accounts/sandbox-trials.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { loyaltyClientFromConfig, openConfiguredEngine } from './engine-from-config.ts';
import { trimEarlierDeliveries } from '../core/kept-deliveries.ts';
import { UpstreamHealth } from '../loyalty/health.ts';
import { Activity } from '../activity.ts';
import { Metrics } from '../metrics.ts';
import { tellThePersonAtTheTerminal } from '../terminal-notice.ts';
import { buildPlatforms, type PlatformOverrides, type Platforms } from './platforms.ts';
import { createSandbox, type Sandbox } from '../sandbox/app.ts';
import { arePublic, publicBeyondLoopback, type SandboxCredentials } from '../sandbox/credentials.ts';
import { bridgeSandboxCredentials } from './kept-sandbox-credentials.ts';
import type { LedgerStore, OpenReport } from '../core/store/ledger-store.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { modulePagePurpose, moduleSurface, ROUTE_BODY_LIMITS } from '../http/platform-routes.ts';
import { keptPageKey } from './kept-page-key.ts';
import { SecretsKeyMissingError } from '../core/store/record-secrets.ts';
import { DEMO_SHOPIFY_SHOP, DEMO_WOO_SITE, DemoStore, demoSecrets } from '../sandbox/demo-store.ts';
import { shownUrl } from '../net/refusal.ts';
import { trimTrailing } from '../trim-trailing.ts';

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
  /**
   * In sandbox mode without ADMIN_TOKEN: the dashboard link with this run's
   * one-time token in its fragment (never sent to a server, so never in a log).
   */
  signInUrl?: string;
  loyaltyBaseUrl: string;
  stop(): Promise<void>;
}

/** The sandbox as configured, taking these credentials, its state and controls opened by the admin token too. */
export function sandboxFromConfig(
  config: Config,
  credentials: SandboxCredentials,
  adminToken: string | undefined,
  loopbackHostOnly = false,
): Sandbox {
  return createSandbox({
    ...credentials,
    adminToken,
    loopbackHostOnly,
    activities: config.SANDBOX_ACTIVITIES,
    rateLimit: config.SANDBOX_RATE_LIMIT_PER_MINUTE,
    replyStyle: config.SANDBOX_REPLY_STYLE,
    faults: {
      failureRate: config.SANDBOX_FAULT_FAILURE_RATE,
      failureStatus: config.SANDBOX_FAULT_FAILURE_STATUS,
      latencyMs: config.SANDBOX_FAULT_LATENCY_MS,
    },
  });
}

export interface BridgeOptions {
  /** Where platform APIs answer, for tests that serve them locally. */
  platformOverrides?: PlatformOverrides;
  /** Between two deliveries of the demo store (tests hurry it). */
  demoPaceMs?: number;
  /** Between two reconciliations, instead of RECONCILE_INTERVAL_MINUTES (tests hurry it). */
  reconcileIntervalMs?: number;
  /** When pending BigCommerce uninstalls are checked again (tests hurry it). */
  bigCommerceUninstallChecks?: { recheckDelaysMs?: readonly number[]; passMs?: number };
  /** Platforms registered as modules beside the shipped ones; the configuration must be loaded with them too. */
  modules?: readonly AnyPlatformModule[];
}

export async function startBridge(
  configured: Config,
  logger: Logger,
  options: BridgeOptions = {},
): Promise<RunningBridge> {
  // A first run: the demo store's deliveries are checked with secrets made for this run.
  const secrets = runsDemoStore(configured) ? demoSecrets() : undefined;
  const config: Config = secrets
    ? {
        ...configured,
        SHOPIFY_API_SECRET: secrets.shopify,
        SHOPIFY_SHOPS: [DEMO_SHOPIFY_SHOP],
        WOOCOMMERCE_WEBHOOK_SECRET: secrets.woocommerce,
        WOOCOMMERCE_URL: DEMO_WOO_SITE,
      }
    : configured;
  const sandboxMode = isSandboxMode(config);
  // The sandbox needs no real credentials, so neither does its dashboard: a token for this run only.
  const adminToken = config.ADMIN_TOKEN ?? (sandboxMode ? randomBytes(24).toString('base64url') : undefined);
  // In sandbox mode the bridge calls the sandbox it serves itself, with the
  // sandbox's credentials; its address is known once the server listens.
  let loyaltyBaseUrl = config.LOYALTY_BASE_URL ?? '';
  const metrics = new Metrics({ shopLabels: config.METRICS_SHOP_LABELS });
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
  const opened = await openStore(config, logger);
  const { store } = opened;
  let openReport: OpenReport;
  let sandboxCredentials: SandboxCredentials | undefined;
  try {
    openReport = await store.open();
    sandboxCredentials = sandboxMode ? await bridgeSandboxCredentials(config, store) : undefined;
  } catch (error) {
    await opened.release();
    throw error;
  }
  const sandbox = sandboxCredentials ? sandboxFromConfig(config, sandboxCredentials, adminToken) : undefined;
  // Each account's own calls, for its merchant's page (account-calls.ts); the environment's account reports none.
  const accountCalls = new AccountCalls();
  const recordAttempt = (report: AttemptReport & { account?: string }) => {
    accountCalls.record(report.account ?? DEFAULT_ACCOUNT);
    // Refused credentials in the bridge's own health (/readyz, the status banner) are the environment's account's:
    // a merchant's account whose key the service refuses is paused on its own, and must not take the instance out
    // of its load balancer. Reachability (last success, failures in a row) counts every account's calls.
    health.record(report, { ownCredentials: (report.account ?? DEFAULT_ACCOUNT) === DEFAULT_ACCOUNT });
    activity.recordCall(report.outcome);
    metrics.upstreamCalls.inc({ operation: report.operation, outcome: report.outcome });
    metrics.upstreamLatency.observe({ operation: report.operation }, report.durationMs / 1000);
    if (report.outcome === 'invalid_auth') metrics.authFailures.inc();
  };
  const client = loyaltyClientFromConfig(config, opened, {
    sandbox: sandboxCredentials,
    onAttempt: recordAttempt,
    baseUrl: () => loyaltyBaseUrl,
  });
  let platforms: Platforms;
  try {
    platforms = buildPlatforms(config, store, options.platformOverrides, { modules: options.modules ?? [], logger });
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
      // A trial made through another instance, after this one started, is given to this one's sandbox when first used.
      onTrialRuntime: sandbox ? (record) => void admitTrial(sandbox, record, logger) : undefined,
    }));
  } catch (error) {
    await opened.release();
    throw error;
  }

  // Deliveries kept whole by an earlier release trimmed to what is read (core/kept-deliveries.ts); old
  // WooCommerce shop names moved to the one name, with the inbox folded first when there are any; shops
  // installed before accounts existed kept on the default account.
  try {
    await trimEarlierDeliveries(store, platforms.adapterFor, logger);
    await platforms.prepare(() => engine.foldInbox());
    await linkEarlierShops(store, accounts, logger);
  } catch (error) {
    await engine.stop();
    await opened.release();
    throw error;
  }

  const onDelivery = (platform: string, result: string) => activity.recordDelivery(platform, result);
  const onShopRefused = (platform: string, shop: string) => activity.recordRefusedShop(platform, shop);
  const webhooks: Record<string, WebhookHandler> = {};
  // One reader for every platform's route: the limits on bodies read at once hold across them.
  const readBody = bodyReader({
    maxBytes: config.WEBHOOK_MAX_BODY_BYTES,
    deadlineMs: config.WEBHOOK_BODY_TIMEOUT_SECONDS * 1000,
    concurrentReads: config.WEBHOOK_CONCURRENT_READS,
  });
  const routeOptions = { readBody, metrics, gate, onDelivery, onShopRefused };
  // One route per platform's adapter, with what its module says of the shops it serves and of what was stored.
  for (const { module, parts } of platforms.modules)
    if (parts.adapter)
      webhooks[module.name] = webhookHandler(parts.adapter, engine.ingest, logger, {
        ...routeOptions,
        ...(parts.admitShop ? { admitShop: parts.admitShop.bind(parts) } : {}),
        ...(parts.onStored ? { onStored: parts.onStored.bind(parts) } : {}),
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
  platforms.onSubscriptionsChanged = (platform, shop) => {
    void reconciler
      .checkAllSubscriptions(platform, shop)
      .catch((error: unknown) =>
        logger.warn(
          { err: error, platform, shop },
          'could not check the shop’s subscriptions again; the next reconciliation tries again',
        ),
      );
  };
  const resyncJobs = new ResyncJobs(platforms.sources, store, engine.ingest, logger);
  // A store connected or installed: its webhooks made and its recent orders read, after the platform's request was answered.
  let demo: DemoStore | undefined;
  const storeAdded = (platform: string) => async (shop: string) => {
    demo?.stop();
    platforms.storeAdded(platform);
    await reconciler.run(platform, shop);
  };
  platforms.onStoreConnected = (platform, shop) => {
    demo?.stop();
    void reconciler
      .run(platform, shop)
      .catch((error: unknown) =>
        logger.warn({ err: error, platform }, 'could not read a newly connected store; the next reconciliation tries'),
      );
  };
  // The admin API as a merchant's own page calls it, behind each platform's door (Shopify's, BigCommerce's).
  const shopRoutes = shopAdminApi({
    store,
    shopify: platforms.shopify,
    accounts,
    privacy: engine.privacy,
    retryDeadLetter: (letter, lane) => engine.retryDeadLetter(letter, lane),
    resyncJobs,
    // In sandbox mode a merchant may try the bridge on its sandbox before entering their own account.
    bridgeSandbox: sandbox
      ? {
          url: () => loyaltyBaseUrl,
          addAccount: (input) => sandbox.addAccount(input),
          removeAccount: (brandId) => sandbox.removeAccount(brandId),
        }
      : undefined,
    ingest: engine.ingest,
    accountCalls,
    adjustments: engine.adjustments,
    logger,
  });
  const shopify = shopifySurface({
    platforms,
    store,
    reconciler,
    logger,
    adminToken,
    apiKey: config.SHOPIFY_API_KEY,
    secrets: [config.SHOPIFY_API_SECRET, config.SHOPIFY_API_SECRET_PREVIOUS].filter((secret): secret is string =>
      Boolean(secret),
    ),
    shopRoutes,
  });
  // A BigCommerce store's own pages: the load callback hands them a session, which BigCommerce's door lets in.
  const bigCommercePages =
    config.BIGCOMMERCE_CLIENT_SECRET && platforms.bigcommerce
      ? bridgeShopTokens([config.BIGCOMMERCE_CLIENT_SECRET], Date.now, BIGCOMMERCE_STORE_PAGE)
      : undefined;
  const removedUsers = new RemovedUsers(store);
  const bigCommerceDoor =
    bigCommercePages && platforms.bigcommerce && platforms.bigcommerceAllowed
      ? bigCommerceMerchantDoor(
          {
            tokens: bigCommercePages,
            stores: platforms.bigcommerce,
            allowed: platforms.bigcommerceAllowed,
            removedUsers,
            logger,
          },
          shopRoutes,
        )
      : undefined;
  const bigcommerce =
    config.BIGCOMMERCE_CLIENT_ID && config.BIGCOMMERCE_CLIENT_SECRET && config.PUBLIC_URL && bigCommercePages
      ? bigCommerceApp({
          store,
          stores: platforms.bigcommerce,
          allowed: platforms.bigcommerceAllowed,
          clientId: config.BIGCOMMERCE_CLIENT_ID,
          clientSecret: config.BIGCOMMERCE_CLIENT_SECRET,
          loginUrl: config.BIGCOMMERCE_LOGIN_URL,
          publicUrl: config.PUBLIC_URL,
          logger,
          onInstalled: storeAdded('bigcommerce'),
          uninstallChecks: options.bigCommerceUninstallChecks,
          pageTokens: bigCommercePages,
          removedUsers,
        })
      : undefined;
  const operatorAndShopify = shopify.admin(
    adminApi({
      token: adminToken,
      sandbox: Boolean(sandbox),
      demo: Boolean(secrets),
      tokenLabel: config.ADMIN_TOKEN_LABEL,
      accounts,
      // The environment's account, its key as its last four characters; its address is known once the server listens.
      defaultAccount: () =>
        defaultAccountView({
          baseUrl: trimTrailing(shownUrl(loyaltyBaseUrl), '/'),
          apiKey: sandboxCredentials?.apiKey ?? config.LOYALTY_API_KEY ?? '',
          brandId: sandboxCredentials?.brandId ?? config.LOYALTY_BRAND_ID ?? '',
          rateLimitPerMinute: config.LOYALTY_RATE_LIMIT_PER_MINUTE,
        }),
      engine,
      platforms,
      reconciler,
      resyncJobs,
      client,
      health,
      activity,
      logger,
    }),
  );
  // A WooCommerce store's own pages: a merchant signs in by approving in their store's WordPress.
  const wooPages = wooStorePages({
    store,
    stores: platforms.woocommerce,
    publicUrl: config.PUBLIC_URL,
    appName: config.WOOCOMMERCE_APP_NAME,
    addresses: platforms.storeAddresses,
    tokens: await wooPageTokens(store, config.PUBLIC_URL),
    shopRoutes,
    logger,
  });
  const moduleSurfaces = await registeredSurfaces(platforms.modules, store, shopRoutes, logger);
  const doors = [bigCommerceDoor, wooPages.door, ...moduleSurfaces.map(({ door }) => door)].filter(
    (door) => door !== undefined,
  );
  const admin = doors.length > 0 ? express.Router().use(...doors, operatorAndShopify) : operatorAndShopify;
  metrics.bind({
    inFlight: () => engine.worker.stats.inFlight,
    store: () => store.stats(),
    deadLetters: () => store.countDeadLetters(),
    limiter: () => client.limiter.stats(),
    paused: async () => (await engine.accounts.all()).some((account) => account.authPause.paused),
    lanes: async () => laneStatus(await store.laneCounts(), engine.worker.lanes, new Date()),
    // Scraped without credentials: each account's own calls and spent budget only (account-load.ts).
    accounts: () =>
      accountLoads({ accounts, store, view: publicView(() => engine.worker.spentAccounts, accountCalls) }),
  });
  const app = createHttpHandler({
    logger,
    metrics,
    readiness: () => readiness({ store, dataDir: store.kind === 'lowdb' ? config.DATA_DIR : undefined, health, gate }),
    webhooks,
    admin,
    dashboard: dashboard(),
    merchantAssets: merchantAssets(),
    ...(shopify.routes ? { shopifyAuth: shopify.routes } : {}),
    adminStores: adminStores({ token: adminToken, store, platforms, appName: config.WOOCOMMERCE_APP_NAME, logger }),
    woocommerceAuth: express.Router().use(
      wooCallbackRoutes({
        store,
        stores: platforms.woocommerce,
        logger,
        addresses: platforms.storeAddresses,
        onConnected: storeAdded('woocommerce'),
      }),
      wooPages.routes,
    ),
    ...(bigcommerce ? { bigcommerceApp: bigcommerce.routes } : {}),
    platformRoutes: Object.fromEntries(moduleSurfaces.map(({ name, routes }) => [name, routes])),
    ...(sandbox ? { sandbox: sandbox.app } : {}),
  });
  const http = await listen(app, config.PORT, config.HOST);
  if (sandbox) {
    loyaltyBaseUrl = `${http.localUrl}/sandbox`;
    // Merchants' trials on this sandbox, which forgot them when the last run stopped.
    await readmitTrialAccounts(store, sandbox, logger);
  }
  await engine.startWorker();
  reconciler.start();
  bigcommerce?.start();
  // What the last checks found stays visible in the metrics across a restart, until the next check says otherwise.
  for (const { value } of await store.listRecords<SubscriptionHealth>('platform-health'))
    metrics.reportSubscriptions(value);
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

  // A store connected through the dashboard is the merchant's own: no demo then.
  const connected =
    (await platforms.woocommerce.list()).some((each) => each.via === 'connect') ||
    (await platforms.bigcommerce.list()).some((each) => each.via === 'app');
  demo =
    secrets && !connected
      ? new DemoStore({
          url: http.localUrl,
          secrets,
          logger,
          ...(options.demoPaceMs ? { paceMs: options.demoPaceMs } : {}),
        })
      : undefined;
  if (demo) {
    demo.start();
    logger.info(
      { demo: { shopify: DEMO_SHOPIFY_SHOP, woocommerce: DEMO_WOO_SITE } },
      'no store is connected yet, so a built-in demo store sends a few orders to show the bridge at work. Connect a real store (README.md, Connecting a store) and the demo stops',
    );
  }
  const signInUrl = !config.ADMIN_TOKEN && adminToken ? `${http.localUrl}/admin/#token=${adminToken}` : undefined;
  // For the person at this terminal, never a log line; the fragment never reaches a server.
  if (signInUrl)
    tellThePersonAtTheTerminal({
      text: `Open the dashboard: ${signInUrl}\n(a sign-in for this run only; set ADMIN_TOKEN for one that lasts)`,
      fileName: 'sign-in-link.txt',
      dataDir: config.DATA_DIR,
      logger,
    });

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
    ...(signInUrl ? { signInUrl } : {}),
    get loyaltyBaseUrl() {
      return loyaltyBaseUrl;
    },
    async stop() {
      // No new deliveries; calls under way finish (or are left to be made
      // again after restart, which is safe) and the ledger is flushed before
      // the server goes: in sandbox mode those calls go to this very server.
      demo?.stop();
      gate.draining = true;
      if (config.SHUTDOWN_GRACE_SECONDS > 0) {
        logger.info(
          { seconds: config.SHUTDOWN_GRACE_SECONDS },
          'stopping: not ready any more, still taking deliveries while the load balancer moves away',
        );
        await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_SECONDS * 1000));
      }
      gate.open = false;
      // One deadline for all the work under way: each part may wait on a platform or the loyalty service, and a
      // hung one must not hold the stop open. What is left then is made again after restart, as after a crash.
      const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS;
      const left = () => Math.max(0, deadline - Date.now());
      const unfinished: string[] = [];
      if (!(await reconciler.stop(left()))) unfinished.push('a reconciliation');
      if (bigcommerce && !(await waitAtMost(bigcommerce.stop(), left()))) unfinished.push('uninstall checks');
      if (!(await waitAtMost(resyncJobs.idle(), left()))) unfinished.push('a resync');
      if (unfinished.length > 0)
        logger.warn({ unfinished }, 'stopping without waiting for work still waiting on a platform; it runs again');
      await engine.stop(left());
      await http.close();
      await opened.release();
      logger.info('stopped');
    },
  };
}

/**
 * Each registered platform's routes and merchant-page door, its sessions keyed from a key the bridge keeps
 * for it. Outside sandbox mode without SECRETS_KEY no key can be kept: its routes are mounted, its page not.
 */
async function registeredSurfaces(
  built: Platforms['modules'],
  store: LedgerStore,
  shopRoutes: RequestHandler,
  logger: Logger,
): Promise<Array<{ name: string; routes: express.Router; door: RequestHandler | undefined }>> {
  const surfaces = [];
  // One reader for every module's routes: the limits on bodies read at once hold across them.
  const readBody = bodyReader(ROUTE_BODY_LIMITS);
  for (const { module, parts } of built) {
    let key: string | undefined;
    try {
      key = parts.door ? await keptPageKey(store, `${module.name}-store-page`) : undefined;
    } catch (error) {
      if (!(error instanceof SecretsKeyMissingError)) throw error;
      logger.warn({ platform: module.name }, 'its merchant page needs SECRETS_KEY to keep its sign-ins; it is off');
    }
    const tokens = bridgeShopTokens(
      [key ?? randomBytes(32).toString('base64url')],
      Date.now,
      modulePagePurpose(module.name),
    );
    const surface = moduleSurface({
      module,
      parts: key ? parts : { ...parts, door: undefined },
      tokens,
      shopRoutes,
      readBody,
      logger,
    });
    surfaces.push({ name: module.name, ...surface });
  }
  return surfaces;
}

export interface RunningSandbox {
  http: Listening;
  sandbox: Sandbox;
  stop(): Promise<void>;
}

/**
 * The sandbox on its own port (SANDBOX_PORT), for developing against it from
 * elsewhere. With the public credentials it listens on loopback only, and its
 * state and controls take a token made for the run, printed for the person
 * at this terminal (never logged).
 */
export async function startSandboxServer(config: Config, logger: Logger): Promise<RunningSandbox> {
  const credentials = { apiKey: config.SANDBOX_API_KEY, brandId: config.SANDBOX_BRAND_ID };
  const refusal = publicBeyondLoopback(credentials, config.HOST);
  if (refusal) throw new Error(refusal);
  const runToken = !config.ADMIN_TOKEN && arePublic(credentials) ? randomBytes(24).toString('base64url') : undefined;
  const sandbox = sandboxFromConfig(config, credentials, config.ADMIN_TOKEN ?? runToken, arePublic(credentials));
  const http = await listen(sandbox.app, config.SANDBOX_PORT, config.HOST);
  logger.info({ port: http.port, url: http.localUrl }, `loyalty sandbox listening on ${http.localUrl}`);
  if (runToken) {
    tellThePersonAtTheTerminal({
      text: `The sandbox's state and controls (${http.localUrl}/_sandbox/state, /_sandbox/reset, /_sandbox/faults) take\n  Authorization: Bearer ${runToken}\n(for this run only; set ADMIN_TOKEN for one that lasts)`,
      fileName: 'sandbox-token.txt',
      dataDir: config.DATA_DIR,
      logger,
    });
  }
  return { http, sandbox, stop: () => http.close() };
}
