// A bridge in a process of its own, set up as a Shopify app (PLATFORM=shopify, the default), a BigCommerce app
// (PLATFORM=bigcommerce) or a WooCommerce store's bridge (PLATFORM=woocommerce), beside a fake store and a sandbox
// that run in the test's process (their addresses in the environment): the kill test (e2e/rewards-crash) stops it
// with SIGKILL while the fake holds one of its calls, and starts another on the same ledger. As a Shopify app it
// starts as shopify-app-bridge.ts does in process (the Admin API at FAKE_SHOPIFY_URL through the platform override,
// the token endpoint through nock), since the CLI has no override; as a BigCommerce app it needs neither
// (BIGCOMMERCE_API_URL and BIGCOMMERCE_LOGIN_URL name the fake); for WooCommerce its PUBLIC_URL is the test's https
// front (the plugin's routes need one), which forwards to whichever process the test talks to. The sweeper's repair
// of an unmade code is hurried (REWARD_REPAIR_MS). Prints one line, {"url": ...}, once it listens. Run with node
// (type stripping).
import { AsyncLocalStorage } from 'node:async_hooks';
import nock from 'nock';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { loadConfig } from '../../src/config.ts';
import { startBridge, type BridgeOptions } from '../../src/composition/main.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { HOLDER_KIND } from '../../src/core/storefront/reservations.ts';
import { RewardPrivacy } from '../../src/core/storefront/reward-privacy.ts';
import { createLogger } from '../../src/logger.ts';

const platform = process.env.PLATFORM ?? 'shopify';
const port = await freePort();
const here = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
delete env.PLATFORM;

/** The Shopify app's own settings: its address, and the fake's Admin API (the token endpoint through nock). */
function asShopifyApp(): { env: Record<string, string>; options: BridgeOptions } {
  const fakeUrl = process.env.FAKE_SHOPIFY_URL ?? '';
  const adminUrl = (shop: string) => `${fakeUrl}/shop/${shop}`;
  // @shopify/shopify-api calls https://<shop>/admin/oauth/access_token: passed on, over HTTP, to the fake.
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  nock(/\.myshopify\.com(:443)?$/)
    .persist()
    .post('/admin/oauth/access_token')
    .reply(async function (this: { req: { headers: Record<string, string> } }, uri: string, body: unknown) {
      const shop = String(this.req.headers.host ?? '').split(':')[0] ?? '';
      const response = await fetch(`${adminUrl(shop)}${uri}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return [response.status, await response.text(), { 'content-type': 'application/json' }];
    });
  return { env: { SHOPIFY_APP_URL: here }, options: { platformOverrides: { apiUrls: { shopify: adminUrl } } } };
}

const setUp =
  platform === 'shopify'
    ? asShopifyApp()
    : platform === 'bigcommerce'
      ? { env: { PUBLIC_URL: here }, options: {} }
      : // Its https address (PUBLIC_URL, which the plugin's routes need) is the test's front, given in the environment.
        platform === 'woocommerce'
        ? { env: {}, options: {} }
        : undefined;
if (!setUp) {
  process.stderr.write(`PLATFORM: shopify, bigcommerce or woocommerce, not ${platform}\n`);
  process.exit(2);
}
const loaded = loadConfig({ env: { ...env, PORT: String(port), ...setUp.env } });
if (!loaded.ok) {
  process.stderr.write(`${loaded.errors.join('\n')}\n`);
  process.exit(2);
}
// A kill inside a shop's erasure (e2e/rewards-shop-erasure-kill): this process stops itself with SIGKILL once the
// erasure has rewritten this many of its customers' holders (each write flushed), the rest not yet.
const killAfter = Number(process.env.KILL_AFTER_ERASED_HOLDERS ?? 0);
if (killAfter > 0) {
  // Only the erasure's own writes count (its async context): a sweep writing a holder meanwhile is not the erasure.
  const erasing = new AsyncLocalStorage<true>();
  let rewritten = 0;
  const eraseShop = RewardPrivacy.prototype.eraseShop;
  RewardPrivacy.prototype.eraseShop = async function (this: RewardPrivacy, ...args) {
    return erasing.run(true, () => eraseShop.apply(this, args));
  };
  const changeRecord = LowdbStore.prototype.changeRecord;
  LowdbStore.prototype.changeRecord = async function (this: LowdbStore, ...args: Parameters<typeof changeRecord>) {
    const result = await changeRecord.apply(this, args);
    if (erasing.getStore() && args[0] === HOLDER_KIND && ++rewritten >= killAfter) process.kill(process.pid, 'SIGKILL');
    return result;
  } as typeof changeRecord;
}
const logger = createLogger({ level: loaded.config.LOG_LEVEL, pretty: false });
const bridge = await startBridge(loaded.config, logger, {
  ...setUp.options,
  rewardRepairMs: Number(process.env.REWARD_REPAIR_MS ?? 120_000),
});
process.stdout.write(`${JSON.stringify({ url: bridge.http.localUrl })}\n`);
process.once('SIGTERM', () => void bridge.stop().then(() => process.exit(0)));
