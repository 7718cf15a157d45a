// Secrets at rest through the whole bridge, outside sandbox mode, on both
// stores: a Shopify shop installed by token exchange and a BigCommerce store
// installing the app keep their tokens sealed under SECRETS_KEY (nothing in
// plain text under DATA_DIR or in the tables), and `status` says how they are
// kept; without SECRETS_KEY the bridge starts, says once how to make a key,
// and refuses the new token; and on a shared database, an instance that holds
// only the old key of a rotation answers 503 to a delivery whose secret was
// re-sealed under the new key, and goes on running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BigCommerceInstall } from '../../adapters/bigcommerce/stores.ts';
import type { ShopifySession } from '../../adapters/shopify/access.ts';
import { WooStores } from '../../adapters/woocommerce/stores.ts';
import { RecordSecrets } from '../../src/core/store/record-secrets.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { createLogger } from '../../src/logger.ts';
import { keyIdOf, MAKE_KEY, SecretBox } from '../../src/secrets/secret-box.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { openStoreOn } from '../helpers/postgres-store.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { databaseAsText, filesAsText, TEST_SECRETS_KEY } from '../helpers/secrets.ts';
import {
  APP_KEY,
  APP_SECRET,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';
import { WOO_SITE, wooHeaders, wooOrderJson } from '../helpers/woocommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'sealed-tokens.myshopify.com';
const BC_CLIENT_ID = 'sealed-bc-client-id';
const BC_CLIENT_SECRET = 'sealed-bc-client-secret-for-tests';
const LOYALTY_KEY = 'sealed-test-loyalty-key';
const ADMIN = 'sealed-tests-admin-token-0123456789';

let fake: FakeShopify;
let bc: FakeBigCommerce;
let sandbox: TestSandbox;

beforeAll(async () => {
  fake = await startFakeShopifyForApp();
  bc = await startFakeBigCommerce({ storeHash: 'unused0', accessToken: 'unused-token' });
  sandbox = await startTestSandbox({ apiKey: LOYALTY_KEY, rateLimit: 100_000 });
});
afterAll(async () => {
  await stopFakeShopifyForApp(fake);
  await bc?.close();
  await sandbox?.close();
});

/** A bridge as a Shopify app and a BigCommerce app, calling a real (test) loyalty service: not sandbox mode. */
async function startApps(env: Record<string, string>, logText: string[]): Promise<ShopifyAppBridge> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  bc.registerApp({
    clientId: BC_CLIENT_ID,
    clientSecret: BC_CLIENT_SECRET,
    authCallback: `${url}/bigcommerce/auth`,
    loadCallback: `${url}/bigcommerce/load`,
    uninstallCallback: `${url}/bigcommerce/uninstall`,
    scope: 'store_v2_orders_read_only',
  });
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logText.push(line) } });
  return startShopifyAppBridge(
    fake,
    {
      PORT: String(port),
      SHOPIFY_APP_URL: url,
      PUBLIC_URL: url,
      SHOPIFY_SHOPS: SHOP,
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_API_KEY: LOYALTY_KEY,
      LOYALTY_BRAND_ID: 'sealed-brand',
      BIGCOMMERCE_CLIENT_ID: BC_CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: BC_CLIENT_SECRET,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      BIGCOMMERCE_STORES: 'sealed1',
      ...env,
    },
    logger,
  );
}

/** The merchant opens the app in the Shopify admin: the bridge gets the shop's token by token exchange. */
const openShopifyApp = async (running: ShopifyAppBridge) => {
  fake.install(SHOP);
  return fetch(`${running.url}/admin/api/orders`, {
    headers: { authorization: `Bearer ${mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET })}` },
  });
};

const backends: Array<[string, () => Promise<TestDatabase | undefined>]> = [
  ['lowdb', async () => undefined],
  ...(postgresAvailable() ? [['postgres', freshDatabase] as [string, () => Promise<TestDatabase | undefined>]] : []),
];

describe.each(backends)('%s', (name, makeDatabase) => {
  it('keeps the tokens of a Shopify and a BigCommerce install sealed, and status says under which key', async () => {
    const database = await makeDatabase();
    const dataDir = tempDataDir();
    const env = {
      DATA_DIR: dataDir,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const logText: string[] = [];
    const running = await startApps(env, logText);
    let tokens: string[];
    try {
      expect((await openShopifyApp(running)).status).toBe(200);
      expect((await bc.install('sealed1')).status).toBe(200);
      const store = running.bridge.engine.store;
      const session = await store.getRecord(raw<ShopifySession>('session'), `shopify:${SHOP}`);
      const install = await store.getRecord(raw<BigCommerceInstall>('session'), 'bigcommerce:sealed1');
      tokens = [session!.accessToken, session!.refreshToken!, install!.accessToken];
      // The tokens the bridge uses are the platforms' own, read back plain.
      expect(bc.stores.get('sealed1')?.tokens.has(install!.accessToken)).toBe(true);
      expect(tokens.every((token) => token.length > 8 && !token.startsWith('sealed:'))).toBe(true);
    } finally {
      await running.stop();
    }
    const kept = database ? (await databaseAsText(database.url)).rows : filesAsText(dataDir);
    for (const token of tokens) expect(kept.includes(token), 'a token in plain text').toBe(false);
    expect(kept).toContain(`sealed:v1:${keyIdOf(Buffer.from(TEST_SECRETS_KEY, 'base64'))}:`);
    for (const token of [...tokens, TEST_SECRETS_KEY]) expect(logText.join('')).not.toContain(token);

    // status, from the ledger (no bridge running), with the rotation's keys: nothing under the previous one.
    const previous = Buffer.alloc(32, 9).toString('base64');
    const status = await runCli(['status'], {
      ...env,
      SECRETS_KEY_PREVIOUS: previous,
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_API_KEY: LOYALTY_KEY,
      LOYALTY_BRAND_ID: 'sealed-brand',
    });
    expect(status.code, status.stderr).toBe(0);
    // The three tokens, and the key of BigCommerce's page sessions (kept-page-key.ts).
    expect(status.stdout).toContain(
      `secrets at rest: 4 sealed under SECRETS_KEY (key ${keyIdOf(Buffer.from(TEST_SECRETS_KEY, 'base64'))}), 0 under SECRETS_KEY_PREVIOUS (key ${keyIdOf(Buffer.from(previous, 'base64'))}), 0 plain, 0 under another key`,
    );
    expect(status.stdout).toContain('nothing in the ledger is sealed under SECRETS_KEY_PREVIOUS');
    for (const token of [...tokens, TEST_SECRETS_KEY, previous]) expect(status.stdout).not.toContain(token);
    await database?.drop();
    expect(name).toBeDefined();
  }, 60_000);
});

describe('outside sandbox mode without SECRETS_KEY', () => {
  it('starts, says once how to make a key, and refuses the token of a new install', async () => {
    const logText: string[] = [];
    const dataDir = tempDataDir();
    const running = await startApps({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN }, logText);
    try {
      const warnings = logText.filter((line) => line.includes('SECRETS_KEY is not set'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(JSON.stringify(MAKE_KEY).slice(1, -1));
      const opened = await openShopifyApp(running);
      // The merchant is told it is the operator's to put right, not that Shopify failed.
      expect(opened.status).toBe(503);
      expect(((await opened.json()) as { error: string }).error).toContain('its operator has to set SECRETS_KEY');
      expect(await running.bridge.engine.store.getRecord(raw('session'), `shopify:${SHOP}`)).toBeUndefined();
      expect(logText.join('')).toContain('Refused to store a new secret');
      expect(filesAsText(dataDir)).not.toMatch(/"accessToken"/);
      // An operator saving a loyalty account's API key is refused too, with the same advice, and nothing is kept.
      const account = await fetch(`${running.bridge.http.localUrl}/admin/api/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Unsealed',
          baseUrl: sandbox.url,
          apiKey: 'would-be-plain-key-0001',
          brandId: 'unsealed-brand',
          rateLimitPerMinute: 60,
        }),
      });
      expect(account.status).toBe(409);
      expect(((await account.json()) as { error: string }).error).toContain(MAKE_KEY);
      expect(filesAsText(dataDir)).not.toContain('would-be-plain-key-0001');
    } finally {
      await running.stop();
    }
  }, 30_000);
});

describe.runIf(postgresAvailable())('a rotation on a shared database', () => {
  it('an instance with the old key alone answers 503 to a delivery whose secret is under the new key, and goes on', async () => {
    const [oldKey, newKey] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const database = await freshDatabase();
    const webhookSecret = 'LEAKCHECK-rotated-webhook-secret';
    const logText: string[] = [];
    const old = await startTestBridge(
      {
        DATABASE_URL: database.url,
        SECRETS_KEY: oldKey.toString('base64'),
        PUBLIC_URL: 'http://127.0.0.1:1',
        RECONCILE_INTERVAL_MINUTES: '0',
      },
      createLogger({ level: 'info', destination: { write: (line: string) => void logText.push(line) } }),
    );
    try {
      // An instance restarted with both keys (everything re-sealed under the new one) connects a WooCommerce store.
      const restarted = await openStoreOn(database.url, {
        secrets: new RecordSecrets({ box: new SecretBox(newKey, oldKey), plainAllowed: false }),
      });
      expect(restarted.report.secrets?.notes.map((note) => note.message).join('\n')).toContain(
        `nothing in the ledger is sealed under SECRETS_KEY_PREVIOUS (key ${keyIdOf(oldKey)}) any more`,
      );
      await new WooStores({ store: restarted.store, env: {}, storeAddresses: { allowPrivate: false } }).save({
        platform: 'woocommerce',
        shop: new URL(WOO_SITE).host,
        url: WOO_SITE,
        consumerKey: 'ck_LEAKCHECKrotated01',
        consumerSecret: 'cs_LEAKCHECKrotated02',
        keyId: 1,
        keyPermissions: 'read_write',
        webhookSecret,
        connectedAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      });
      await restarted.close();

      // Its first delivery reaches the instance not yet restarted.
      const body = wooOrderJson({ id: 77, status: 'processing' });
      const answer = await fetch(`${old.http.localUrl}/webhooks/woocommerce`, {
        method: 'POST',
        headers: wooHeaders('order.created', body, { secret: webhookSecret }),
        body,
      });
      // Not taken for a store nobody connected (401), nor for an authentic delivery: sent again later.
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('30');
      const logged = logText.find((line) => line.includes('could not check a webhook delivery'));
      expect(logged).toContain(`is sealed with key ${keyIdOf(newKey)}, which this instance does not hold`);
      expect(logText.join('')).not.toContain(webhookSecret);
      // The instance is still up.
      expect((await fetch(`${old.http.localUrl}/healthz`)).status).toBe(200);
    } finally {
      await old.stop();
      await database.drop();
    }
  }, 30_000);
});
