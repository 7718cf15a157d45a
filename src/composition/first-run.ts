// A first run, for the person trying the bridge: the built-in demo store sending its orders while no store of
// theirs is connected, and the dashboard's sign-in link for this run, told at the terminal and never logged.
import { runsDemoStore, type Config } from '../config.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import type { Logger } from '../logger.ts';
import { tellThePersonAtTheTerminal } from '../terminal-notice.ts';
import { DemoStore, demoSecrets, type DemoPlayer, type DemoSecrets } from './demo-store.ts';
import { SHIPPED_MODULES } from './platform-registry.ts';
import type { Platforms } from './platforms.ts';

/** The platforms that play a shop in the demo store. */
const playing = () => (SHIPPED_MODULES as readonly AnyPlatformModule[]).filter(({ demo }) => demo !== undefined);

/** On a first run, the configuration with the demo store's shops and the secrets made for this run to check its deliveries. */
export function firstRunConfig(configured: Config): { config: Config; secrets: DemoSecrets | undefined } {
  if (!runsDemoStore(configured)) return { config: configured, secrets: undefined };
  const modules = playing();
  const secrets = demoSecrets(modules.map(({ name }) => name));
  const settings = modules.map(({ name, demo }) => demo?.settings(secrets[name] ?? '') ?? {});
  return { config: Object.assign({ ...configured }, ...settings) as Config, secrets };
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
  // A store connected or installed since (the demo's own shops are configured, never connected).
  for (const { parts: built } of platforms.modules) if (await built.storesToRead?.connected()) return undefined;
  const players: DemoPlayer[] = platforms.modules.flatMap(({ module: { name, demo } }) => {
    const secret = secrets[name];
    return demo && secret ? [{ platform: name, demo, secret }] : [];
  });
  const demo = new DemoStore({ url, players, logger, ...(paceMs ? { paceMs } : {}) });
  demo.start();
  logger.info(
    { demo: Object.fromEntries(players.map(({ platform, demo: { shop } }) => [platform, shop])) },
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
