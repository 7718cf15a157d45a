// A bridge set up as a Shopify app, in a process of its own, beside a fake Shopify and a sandbox that run in the
// test's process (their addresses in FAKE_SHOPIFY_URL and the environment): the kill test (e2e/rewards-crash)
// stops it with SIGKILL while the fake holds one of its calls, and starts another on the same ledger. It starts
// the bridge as shopify-app-bridge.ts does in process (the Admin API through the platform override, the token
// endpoint through nock), since the CLI has no override; the sweeper's repair of an unmade code is hurried
// (REWARD_REPAIR_MS). Prints one line, {"url": ...}, once it listens. Run with node (type stripping).
import nock from 'nock';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { loadConfig } from '../../src/config.ts';
import { startBridge } from '../../src/composition/main.ts';
import { createLogger } from '../../src/logger.ts';

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

const port = await freePort();
const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
const loaded = loadConfig({ env: { ...env, PORT: String(port), SHOPIFY_APP_URL: `http://127.0.0.1:${port}` } });
if (!loaded.ok) {
  process.stderr.write(`${loaded.errors.join('\n')}\n`);
  process.exit(2);
}
const logger = createLogger({ level: loaded.config.LOG_LEVEL, pretty: false });
const bridge = await startBridge(loaded.config, logger, {
  platformOverrides: { apiUrls: { shopify: adminUrl } },
  rewardRepairMs: Number(process.env.REWARD_REPAIR_MS ?? 120_000),
});
process.stdout.write(`${JSON.stringify({ url: bridge.http.localUrl })}\n`);
process.once('SIGTERM', () => void bridge.stop().then(() => process.exit(0)));
