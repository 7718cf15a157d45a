// loyalty-bridge connect --platform woocommerce --store <address> [--url <bridge>]
// Connects a WooCommerce store as the dashboard does: prints the link to the store's WordPress, where the
// merchant approves. With --url, a running bridge receives the key, and this waits until the store shows
// connected. Without it, this command is the bridge for as long as it takes (DATA_DIR is locked, so the
// bridge must be stopped): it listens at PORT behind PUBLIC_URL for the callback, makes the webhooks, exits.
import express from 'express';
import { beginWooConnect, CONNECT_TTL_MS } from '../../adapters/woocommerce/connect.ts';
import { StoreAddressError } from '../../adapters/woocommerce/shop-identity.ts';
import type { Config } from '../config.ts';
import type { SubscriptionHealth } from '../core/order-source.ts';
import { reconciliationId } from '../core/reconciler.ts';
import { openStore } from '../composition/open-store.ts';
import { listen } from '../http/listen.ts';
import { wooCallbackRoutes, wooConnectProblem } from '../http/woocommerce-connect.ts';
import type { StoreView } from '../http/admin-stores.ts';
import type { Logger } from '../logger.ts';
import { buildPlatforms } from '../composition/platforms.ts';
import { fail, out, type Remote } from './common.ts';

const POLL_MS = 1_000;
/** After the keys came, how long to wait for the bridge's first check of the new webhooks. */
const SETUP_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function explain(authorizeUrl: string, shop: string): void {
  out(
    `Open this link in a browser, log in to the WordPress of ${shop} as an administrator, and approve loyalty-bridge:`,
  );
  out('');
  out(`  ${authorizeUrl}`);
  out('');
  out(
    `The link works once, for ${CONNECT_TTL_MS / 60_000} minutes. Waiting for WooCommerce to send the store's key...`,
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
  if (platform !== 'woocommerce')
    return fail(
      `connect --platform ${platform}: only WooCommerce connects this way; a BigCommerce store installs the bridge as an app from its control panel, a Shopify shop from /shopify/auth (README.md)`,
    );
  if (!store)
    return fail('connect --platform woocommerce needs --store, the store’s address (like https://store.example)');
  return remote ? connectThroughBridge(remote, store) : connectAlone(config, logger, store);
}

async function connectThroughBridge(remote: Remote, address: string): Promise<number> {
  const started = Date.now();
  const began = await remote.post<{ authorizeUrl?: string; shop?: string; error?: string }>(
    'stores/woocommerce/connect',
    { store: address },
  );
  if (began.status !== 201 || !began.body.authorizeUrl || !began.body.shop)
    return fail(`connect: ${began.body.error ?? `the bridge answered ${began.status}`}`);
  const shop = began.body.shop;
  explain(began.body.authorizeUrl, shop);
  const find = async () =>
    (await remote.get<{ stores: StoreView[] }>('stores')).body.stores.find(
      (each) => each.platform === 'woocommerce' && each.shop === shop,
    );
  for (;;) {
    if (Date.now() - started > CONNECT_TTL_MS)
      return fail(`connect: ${shop} was not connected in ${CONNECT_TTL_MS / 60_000} minutes; start again`);
    const found = await find();
    if (found?.via === 'connect' && found.connectedAt && Date.parse(found.connectedAt) >= started - 1_000) {
      // The keys came; the bridge makes the webhooks after its answer to WooCommerce.
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

async function connectAlone(config: Config, logger: Logger, address: string): Promise<number> {
  const problem = wooConnectProblem(config.PUBLIC_URL);
  if (problem) return fail(`connect: ${problem}`);
  const opened = await openStore(config, logger);
  try {
    await opened.store.open();
    const platforms = buildPlatforms(config, opened.store, {}, { logger });
    let connected: (shop: string) => void = () => undefined;
    const done = new Promise<string>((resolve) => (connected = resolve));
    const app = express();
    app.use(
      '/woocommerce',
      wooCallbackRoutes({
        store: opened.store,
        stores: platforms.woocommerce,
        logger,
        addresses: platforms.storeAddresses,
        onConnected: async (shop) => connected(shop),
      }),
    );
    // Where WooCommerce sends the merchant back.
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
    let began;
    try {
      began = await beginWooConnect(opened.store, address, {
        publicUrl: config.PUBLIC_URL!,
        appName: config.WOOCOMMERCE_APP_NAME,
        returnPath: '/admin/',
        addresses: platforms.storeAddresses,
      });
    } catch (error) {
      if (error instanceof StoreAddressError) return fail(`connect: --store: ${error.message}`);
      throw error;
    }
    const http = await listen(app, config.PORT, config.HOST);
    try {
      logger.info(
        { url: http.localUrl, publicUrl: config.PUBLIC_URL },
        'waiting for WooCommerce to send the store’s key',
      );
      explain(began.authorizeUrl, began.shop);
      const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), CONNECT_TTL_MS).unref());
      const shop = await Promise.race([done, timeout]);
      if (!shop)
        return fail(
          `connect: ${began.shop} was not connected in ${CONNECT_TTL_MS / 60_000} minutes; run the command again`,
        );
      platforms.storeAdded('woocommerce');
      const source = platforms.sources.find((each) => each.platform === 'woocommerce')!;
      let health: SubscriptionHealth;
      try {
        health = await source.checkSubscriptions!(shop);
      } catch (error) {
        health = {
          platform: 'woocommerce',
          shop,
          checkedAt: new Date().toISOString(),
          healthy: 0,
          repaired: [],
          problems: [],
          error: (error as Error).message,
        };
      }
      await opened.store.putRecord('platform-health', reconciliationId('woocommerce', shop), health);
      return report(shop, health);
    } finally {
      await http.close();
    }
  } finally {
    await opened.store.close();
    await opened.release();
  }
}
