// A first run, for the person trying the bridge: the built-in demo store sending its orders while no store of
// theirs is connected, and the dashboard's sign-in link for this run, told at the terminal and never logged.
import { runsDemoStore, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { DEMO_SHOPIFY_SHOP, DEMO_WOO_SITE, DemoStore, demoSecrets, type DemoSecrets } from '../sandbox/demo-store.ts';
import { tellThePersonAtTheTerminal } from '../terminal-notice.ts';
import type { Platforms } from './platforms.ts';

/** On a first run, the configuration with the demo store's shops and the secrets made for this run to check its deliveries. */
export function firstRunConfig(configured: Config): { config: Config; secrets: DemoSecrets | undefined } {
  if (!runsDemoStore(configured)) return { config: configured, secrets: undefined };
  const secrets = demoSecrets();
  return {
    config: {
      ...configured,
      SHOPIFY_API_SECRET: secrets.shopify,
      SHOPIFY_SHOPS: [DEMO_SHOPIFY_SHOP],
      WOOCOMMERCE_WEBHOOK_SECRET: secrets.woocommerce,
      WOOCOMMERCE_URL: DEMO_WOO_SITE,
    },
    secrets,
  };
}

/** The demo store started, unless a store of the merchant's own is connected (through the dashboard). */
export async function startDemo(parts: {
  platforms: Platforms;
  url: string;
  secrets: DemoSecrets | undefined;
  logger: Logger;
  paceMs: number | undefined;
}): Promise<DemoStore | undefined> {
  const { platforms, url, secrets, logger, paceMs } = parts;
  if (!secrets) return undefined;
  const connected =
    (await platforms.woocommerce.list()).some((each) => each.via === 'connect') ||
    (await platforms.bigcommerce.list()).some((each) => each.via === 'app');
  if (connected) return undefined;
  const demo = new DemoStore({ url, secrets, logger, ...(paceMs ? { paceMs } : {}) });
  demo.start();
  logger.info(
    { demo: { shopify: DEMO_SHOPIFY_SHOP, woocommerce: DEMO_WOO_SITE } },
    'no store is connected yet, so a built-in demo store sends a few orders to show the bridge at work. Connect a real store (README.md, Connecting a store) and the demo stops',
  );
  return demo;
}

/** In sandbox mode without ADMIN_TOKEN: the dashboard's link with this run's token in its fragment, which never reaches a server. */
export function tellSignInLink(
  config: Config,
  adminToken: string | undefined,
  localUrl: string,
  logger: Logger,
): string | undefined {
  const signInUrl = !config.ADMIN_TOKEN && adminToken ? `${localUrl}/admin/#token=${adminToken}` : undefined;
  if (signInUrl)
    tellThePersonAtTheTerminal({
      text: `Open the dashboard: ${signInUrl}\n(a sign-in for this run only; set ADMIN_TOKEN for one that lasts)`,
      fileName: 'sign-in-link.txt',
      dataDir: config.DATA_DIR,
      logger,
    });
  return signInUrl;
}
