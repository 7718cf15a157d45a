// The bridge's HTTP surface put together: the admin API behind the operator's token and each platform's door
// for a merchant's own page, the platforms' flows and routes, the webhooks, the dashboard, health and metrics.
import express from 'express';
import type { RequestListener } from 'node:http';
import type { AccountCalls } from '../accounts/account-calls.ts';
import { accountLoads, publicView } from '../accounts/account-load.ts';
import { defaultAccountView } from '../accounts/account-view.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import { bridgeSandboxOf } from '../accounts/sandbox-trials.ts';
import type { Activity } from '../activity.ts';
import type { Engine } from '../core/engine.ts';
import { laneStatus } from '../core/lanes.ts';
import type { ResyncJobs } from '../core/resync-jobs.ts';
import { adminApi } from '../http/admin-api.ts';
import { adminStores } from '../http/admin-stores.ts';
import { operatorWords } from '../http/admin-words.ts';
import { createHttpHandler } from '../http/app.ts';
import { dashboard } from '../http/dashboard.ts';
import { merchantAssets } from '../http/merchant-page.ts';
import { readiness } from '../http/readiness.ts';
import { shopAdminApi } from '../http/shop-admin-api.ts';
import { merchantService } from '../services/merchant.ts';
import type { WebhookHandler } from '../http/webhook-route.ts';
import type { LoyaltyClient } from '../loyalty/client.ts';
import type { UpstreamHealth } from '../loyalty/health.ts';
import type { Metrics } from '../metrics.ts';
import { shownUrl } from '../net/refusal.ts';
import type { Sandbox } from '../sandbox/app.ts';
import type { SandboxCredentials } from '../sandbox/credentials.ts';
import { operatorService } from '../services/operator.ts';
import { trimTrailing } from '../trim-trailing.ts';
import { DEMO_PAGE_PREFIX } from './demo-page.ts';
import type { FirstRun } from './first-run.ts';
import type { FlowContext } from './flow-context.ts';
import { registeredSurfaces } from './module-surfaces.ts';
import { storefrontReader } from './storefront-reader.ts';
import { storefrontRoutes } from '../http/storefront-routes.ts';

/** What a platform's flows run beside the requests (a module's own checks), by what the log calls it. */
export interface BackgroundWork {
  what: string;
  start(): void;
  stop(): Promise<void>;
}

export interface HttpSurfaceParts extends Omit<FlowContext, 'shopRoutes'> {
  engine: Engine;
  accounts: AccountRegistry;
  resyncJobs: ResyncJobs;
  client: LoyaltyClient;
  health: UpstreamHealth;
  activity: Activity;
  metrics: Metrics;
  accountCalls: AccountCalls;
  webhooks: Record<string, WebhookHandler>;
  gate: { open: boolean; draining: boolean };
  /** In sandbox mode: the sandbox the bridge serves, and the credentials it calls it with. */
  sandbox: { app: Sandbox; credentials: SandboxCredentials } | undefined;
  /** Where the loyalty service answers; in sandbox mode known once the server listens. */
  loyaltyBaseUrl(): string;
  /** A first run: the built-in demo store, and its shop's own page. */
  demo: Pick<FirstRun, 'page' | 'running' | 'shops'> | undefined;
  /** How long a reward code's make may take before the sweeper repairs it (tests hurry it; 2 minutes). */
  rewardRepairMs?: number | undefined;
  widgetCheckMs?: number | undefined;
}

export async function httpSurface(
  parts: HttpSurfaceParts,
): Promise<{ handler: RequestListener; background: BackgroundWork[] }> {
  const { config, store, platforms, logger, adminToken } = parts;
  const sandbox = parts.sandbox?.app;
  // In sandbox mode a merchant may try the bridge on its sandbox before entering their own account; the operator may
  // make an account there too.
  const bridgeSandbox = sandbox ? bridgeSandboxOf(sandbox, parts.loyaltyBaseUrl) : undefined;
  const storefront = storefrontReader(parts);
  const shopRoutes = merchantRoutes(parts, storefront, bridgeSandbox);
  const registered = await registeredSurfaces(
    platforms.modules,
    store,
    shopRoutes,
    logger,
    adminToken,
    (platform, { storefront: identity }) =>
      storefrontRoutes({ platform, storefront: identity, service: storefront.service }),
  );
  const demoPage = parts.demo?.page(shopRoutes);
  const operator = operatorActions(parts, bridgeSandbox);
  const adminRoutes = adminApi({ token: adminToken, tokenLabel: config.ADMIN_TOKEN_LABEL, operator, logger });
  const doors = [...registered.map(({ door }) => door), demoPage?.door].filter((door) => door !== undefined);
  const admin = doors.length > 0 ? express.Router().use(...doors, adminRoutes) : adminRoutes;
  bindMetrics(parts);
  const handler = createHttpHandler({
    logger,
    metrics: parts.metrics,
    readiness: () =>
      readiness({
        store,
        dataDir: store.kind === 'lowdb' ? config.DATA_DIR : undefined,
        health: parts.health,
        gate: parts.gate,
      }),
    webhooks: parts.webhooks,
    admin,
    dashboard: dashboard(),
    merchantAssets: merchantAssets(),
    adminStores: adminStores({ token: adminToken, operator, logger }),
    platformRoutes: Object.fromEntries(registered.map(({ name, routes }) => [name, routes])),
    ...(demoPage ? { demoPage: { prefix: DEMO_PAGE_PREFIX, routes: demoPage.routes, origin: demoPage.origin } } : {}),
    ...(sandbox ? { sandbox: sandbox.app } : {}),
  });
  return {
    handler,
    background: [...modulesWork(platforms), storefront.background, storefront.widgetChecks],
  };
}

type BridgeSandbox = ReturnType<typeof bridgeSandboxOf> | undefined;

/** The merchant's service, and the admin API as a shop's own page calls it. */
function merchantRoutes(
  parts: HttpSurfaceParts,
  storefront: ReturnType<typeof storefrontReader>,
  bridgeSandbox: BridgeSandbox,
): express.Router {
  const { store, platforms, engine, accounts, logger } = parts;
  const partsOf = (platform: string) => platforms.modules.find(({ module }) => module.name === platform)?.parts;
  const merchant = merchantService({
    store,
    partsOf,
    accounts,
    privacy: engine.privacy,
    retryDeadLetter: (letter, lane) => engine.retryDeadLetter(letter, lane),
    resyncJobs: parts.resyncJobs,
    bridgeSandbox,
    ingest: engine.ingest,
    accountCalls: parts.accountCalls,
    adjustments: engine.adjustments,
    // The merchant's view, as on /metrics: spent only where the account's own orders found it so, not where another
    // account on the same key spent it (its traffic is not this merchant's to read).
    spentSince: (account) =>
      engine.worker.spentAccounts.has(account.id)
        ? engine.worker.spentBudgetsSince.get(account.budgetId ?? account.id)
        : undefined,
    spentLongMs: engine.worker.budgetSpentLongMs,
    logger,
  });
  return shopAdminApi({
    merchant,
    store,
    partsOf,
    accounts,
    storefrontTurnedOn: (platform, shop) => storefront.reader.forgetRefusals(platform, shop),
    rewardsChanged: () => void storefront.sweeper.sweep().catch(() => undefined),
    storefrontWidget: storefront.widgets,
    logger,
  });
}

/** The operator's actions, served by the admin API and its stores' routes. */
function operatorActions(parts: HttpSurfaceParts, bridgeSandbox: BridgeSandbox) {
  const { config, engine, platforms, accounts } = parts;
  return operatorService({
    sandbox: parts.sandbox !== undefined,
    bridgeSandbox: bridgeSandbox ?? null,
    demo: () => parts.demo?.running ?? false,
    demoShops: () => parts.demo?.shops ?? [],
    accounts,
    // The environment's account, its key as its last four characters; its address is known once the server listens.
    defaultAccount: () =>
      defaultAccountView({
        baseUrl: trimTrailing(shownUrl(parts.loyaltyBaseUrl()), '/'),
        apiKey: parts.sandbox?.credentials.apiKey ?? config.LOYALTY_API_KEY ?? '',
        brandId: parts.sandbox?.credentials.brandId ?? config.LOYALTY_BRAND_ID ?? '',
        rateLimitPerMinute: config.LOYALTY_RATE_LIMIT_PER_MINUTE,
      }),
    engine,
    platforms,
    resyncJobs: parts.resyncJobs,
    client: parts.client,
    health: parts.health,
    activity: parts.activity,
    logger: parts.logger,
    words: operatorWords({ engine, platforms, accounts }),
  });
}

function bindMetrics({ metrics, engine, store, accounts, client, accountCalls }: HttpSurfaceParts): void {
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
}

/** What a platform's module runs beside the requests, by what the log calls it. */
const modulesWork = (platforms: HttpSurfaceParts['platforms']): BackgroundWork[] =>
  platforms.modules.flatMap(({ module, parts: built }) =>
    built.background
      ? [
          {
            what: `${module.names.platform}'s own checks`,
            start: () => built.background!.start(),
            stop: () => built.background!.stop(),
          },
        ]
      : [],
  );
