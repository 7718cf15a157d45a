// A bridge serving one TinyShop store, on the sandbox, and that store's side of TinyShop: for the tests of its
// storefront, which sign as the store does and sign its merchant in.
import type { Logger } from '../../../src/logger.ts';
import { startTestBridge } from '../../helpers/bridge.ts';
import { signInPath, startFakeTinyShop, type FakeTinyShop } from './fake-tinyshop.ts';
import { tinyShop } from './module.ts';

type RunningBridge = Awaited<ReturnType<typeof startTestBridge>>;

export const STORE = 'acme-bikes';
export const SECRET = 'tinyshop-webhook-secret-0123456789';
const TOKEN = 'tinyshop-api-token';

export async function startTinyBridge(
  env: Record<string, string> = {},
  logger?: Logger,
): Promise<{
  shop: FakeTinyShop;
  bridge: RunningBridge;
  /** The merchant's page session, from the link TinyShop's admin opens. */
  session: string;
  signInUrl: string;
  stop(): Promise<void>;
}> {
  const shop = await startFakeTinyShop(TOKEN);
  const bridge = await startTestBridge(
    {
      TINYSHOP_STORE: STORE,
      TINYSHOP_WEBHOOK_SECRET: SECRET,
      TINYSHOP_API_URL: shop.url,
      TINYSHOP_API_TOKEN: TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
      ...env,
    },
    logger,
    { modules: [tinyShop] },
  );
  const signInUrl = `${bridge.http.localUrl}${signInPath(SECRET, STORE)}`;
  const html = await (await fetch(signInUrl)).text();
  const session = /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(html)?.[1] ?? '';
  return {
    shop,
    bridge,
    session,
    signInUrl,
    stop: async () => {
      await bridge.stop();
      await shop.stop();
    },
  };
}
