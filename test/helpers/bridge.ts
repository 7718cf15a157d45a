// The whole bridge, started in-process as `npm start` would start it, in
// sandbox mode on a port the OS picks and a fresh DATA_DIR. The test shop is
// one the bridge serves (SHOPIFY_SHOPS) unless a test says otherwise. The
// fake stores run on 127.0.0.1, so connecting them needs the development
// setting ALLOW_PRIVATE_STORE_ADDRESSES; the security tests turn it off.
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startBridge, type BridgeOptions, type RunningBridge } from '../../src/composition/main.ts';
import { tempDataDir } from './engine.ts';
import { SHOP } from './shopify.ts';

export async function startTestBridge(
  env: Record<string, string> = {},
  logger: Logger = createLogger({ level: 'silent' }),
  options: BridgeOptions = {},
): Promise<RunningBridge> {
  const loaded = loadConfig({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: tempDataDir(),
      LOG_LEVEL: 'silent',
      DEMO_STORE: 'off',
      SHOPIFY_SHOPS: SHOP,
      SANDBOX_RATE_LIMIT_PER_MINUTE: '100000',
      LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
      ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      ...env,
    },
    modules: options.modules ?? [],
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return startBridge(loaded.config, logger, options);
}

/** Every earning the bridge's sandbox holds, on each of its accounts (the demo's shops earn on trial accounts of their own). */
export const everyEarning = (bridge: RunningBridge) =>
  (bridge.sandbox?.accounts ?? []).flatMap((account) => account.store.snapshot().earnings);

/** As a fresh clone starts: nothing configured but where to listen and keep the ledger, so the demo store plays (hurried). */
export async function startFirstRunBridge(): Promise<RunningBridge> {
  const loaded = loadConfig({ env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' } });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 150 });
}

/** Signs in on a demo store page (its link, ending in /) as the demo's customer: the cookie this run's sign-in sets. */
export async function demoSignIn(page: string): Promise<{ cookie: string }> {
  const answer = await fetch(`${page}sign-in`, { method: 'POST', redirect: 'manual' });
  const cookie = answer.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  if (!/^demo_customer=[\w-]{20,}$/.test(cookie)) throw new Error(`the demo's sign-in set no session: ${cookie}`);
  return { cookie };
}
