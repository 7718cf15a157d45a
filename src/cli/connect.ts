// loyalty-bridge connect --platform <name> --store <address> [--url <bridge>]
// Connects a store as the dashboard does, for any platform whose module connects a store by its address:
// prints the link to approve on the platform. With --url, a running bridge receives the approval, and this
// waits until the store shows connected. Without it, this command is the bridge for as long as it takes
// (DATA_DIR is locked, so the bridge must be stopped): it serves the module's routes at PORT behind PUBLIC_URL.
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { Config } from '../config.ts';
import type { SubscriptionHealth } from '../core/order-source.ts';
import type { PlatformNames } from '../core/platform-module.ts';
import { reconciliationId } from '../core/reconciler.ts';
import { openStore } from '../composition/open-store.ts';
import type { ConnectView, StoreView } from '../http/admin-stores.ts';
import { bodyReader } from '../http/body-reader.ts';
import { bridgeShopTokens } from '../http/bridge-shop-token.ts';
import { listen } from '../http/listen.ts';
import { modulePagePurpose, moduleSurface, ROUTE_BODY_LIMITS } from '../http/platform-routes.ts';
import type { Logger } from '../logger.ts';
import { buildPlatforms } from '../composition/platforms.ts';
import { fail, out, type Remote } from './common.ts';
import { HEALTH_KIND } from '../core/order-source.ts';

const POLL_MS = 1_000;
/** After the approval came, how long to wait for the bridge's first check of the new webhooks. */
const SETUP_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const minutesLeft = (expiresAt: string) => Math.round((Date.parse(expiresAt) - Date.now()) / 60_000);

const notThisWay = (platform: string) =>
  `connect --platform ${platform}: its stores do not connect this way; they install the bridge as an app from their own admin (README.md, Connect your store)`;

function explain(began: { authorizeUrl: string; shop: string; expiresAt: string }, names: PlatformNames): void {
  out(`Open this link in a browser and approve loyalty-bridge for ${began.shop}, in ${names.admin}:`);
  out('');
  out(`  ${began.authorizeUrl}`);
  out('');
  out(
    `The link works once, for ${minutesLeft(began.expiresAt)} minutes. Waiting for ${names.platform} to send the approval...`,
  );
}

function report(shop: string, health: SubscriptionHealth | null | undefined): number {
  out(`Connected ${shop}.`);
  if (!health) {
    out('  The webhooks are not checked yet; the bridge makes them at its next reconciliation.');
    return 0;
  }
  for (const done of health.repaired) out(`  ${done}`);
  if (health.repaired.length === 0) out(`  webhooks: ${health.healthy} active`);
  for (const problem of health.problems) out(`  !! ${problem.detail}. ${problem.fix}`);
  if (health.error) out(`  !! could not check the webhooks: ${health.error}`);
  return health.problems.length > 0 || health.error ? 1 : 0;
}

export async function connect(
  config: Config,
  logger: Logger,
  remote: Remote | undefined,
  platform: string,
  store: string | undefined,
): Promise<number> {
  if (!store)
    return fail(`connect --platform ${platform} needs --store, the store’s address (like https://store.example)`);
  return remote ? connectThroughBridge(remote, platform, store) : connectAlone(config, logger, platform, store);
}

async function connectThroughBridge(remote: Remote, platform: string, address: string): Promise<number> {
  const started = Date.now();
  const connectable = (await remote.get<{ connect?: ConnectView[] }>('stores')).body.connect ?? [];
  const names = connectable.find((each) => each.platform === platform)?.names;
  if (!names) return fail(notThisWay(platform));
  const began = await remote.post<{ authorizeUrl?: string; shop?: string; expiresAt?: string; error?: string }>(
    `stores/${encodeURIComponent(platform)}/connect`,
    { store: address },
  );
  const { authorizeUrl, shop, expiresAt } = began.body;
  if (began.status !== 201 || !authorizeUrl || !shop || !expiresAt)
    return fail(`connect: ${began.body.error ?? `the bridge answered ${began.status}`}`);
  explain({ authorizeUrl, shop, expiresAt }, names);
  const find = async () =>
    (await remote.get<{ stores: StoreView[] }>('stores')).body.stores.find(
      (each) => each.platform === platform && each.shop === shop,
    );
  for (;;) {
    if (Date.now() > Date.parse(expiresAt))
      return fail(
        `connect: ${shop} was not connected in ${Math.round((Date.parse(expiresAt) - started) / 60_000)} minutes; start again`,
      );
    const found = await find();
    if (found?.via === 'connect' && found.connectedAt && Date.parse(found.connectedAt) >= started - 1_000) {
      // The approval came; the bridge makes the webhooks after its answer to the platform.
      for (const waitUntil = Date.now() + SETUP_WAIT_MS; Date.now() < waitUntil; await sleep(POLL_MS)) {
        const now = await find();
        if (now?.subscriptions && Date.parse(now.subscriptions.checkedAt) >= Date.parse(found.connectedAt))
          return report(shop, now.subscriptions);
      }
      return report(shop, undefined);
    }
    await sleep(POLL_MS);
  }
}

async function connectAlone(config: Config, logger: Logger, platform: string, address: string): Promise<number> {
  const opened = await openStore(config, logger);
  try {
    await opened.store.open();
    const platforms = buildPlatforms(config, opened.store, {}, { logger });
    const built = platforms.modules.find(({ module, parts }) => module.name === platform && parts.connect);
    const connector = built?.parts.connect;
    if (!built || !connector) return fail(notThisWay(platform));
    const problem = connector.problem();
    if (problem) return fail(`connect: ${problem}`);
    let connected: (shop: string) => void = () => undefined;
    const done = new Promise<string>((resolve) => (connected = resolve));
    platforms.onStoreConnected = (from, shop) => {
      if (from === platform) connected(shop);
    };
    const app = express();
    // The module's routes, where the platform sends the approval; no merchant page is opened from here.
    const surface = moduleSurface({
      module: built.module,
      parts: { routes: built.parts.routes },
      tokens: bridgeShopTokens([randomBytes(32).toString('base64url')], Date.now, modulePagePurpose(platform)),
      shopRoutes: (_req, res) => void res.status(404).end(),
      readBody: bodyReader(ROUTE_BODY_LIMITS),
      logger,
    });
    app.use(`/${platform}`, surface.routes);
    // Where the platform sends the browser back.
    app.get('/admin/', (req, res) => {
      const ok = req.query.success === '1';
      res
        .type('text')
        .send(
          ok
            ? 'The store is connected. You can close this tab; the bridge makes its webhooks now.'
            : 'The store was not connected: the request was declined. Run the command again when you are ready.',
        );
    });
    // Refused before anything listens: a wrong address needs no callback.
    const begun = await connector.begin(address, 'dashboard');
    if (!begun.ok) return fail(`connect: --store: ${begun.problem}`);
    const { began } = begun;
    const http = await listen(app, config.PORT, config.HOST);
    try {
      logger.info({ url: http.localUrl, publicUrl: config.PUBLIC_URL }, 'waiting for the store’s approval');
      explain(began, built.module.names);
      const timeout = new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), connector.ttlMs).unref(),
      );
      const shop = await Promise.race([done, timeout]);
      if (!shop)
        return fail(
          `connect: ${began.shop} was not connected in ${connector.ttlMs / 60_000} minutes; run the command again`,
        );
      platforms.storeAdded(platform);
      const source = platforms.sources.find((each) => each.platform === platform);
      let health: SubscriptionHealth | undefined;
      try {
        health = await source?.checkSubscriptions?.(shop);
      } catch (error) {
        health = {
          platform,
          shop,
          checkedAt: new Date().toISOString(),
          healthy: 0,
          repaired: [],
          problems: [],
          error: (error as Error).message,
        };
      }
      if (health) await opened.store.putRecord(HEALTH_KIND, reconciliationId(platform, shop), health);
      return report(shop, health);
    } finally {
      await http.close();
    }
  } finally {
    await opened.store.close();
    await opened.release();
  }
}
