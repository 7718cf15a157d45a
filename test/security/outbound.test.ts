// Where the bridge's own requests may go (issue 28, item 2), against real
// servers over HTTP: a store, a platform API or the loyalty service that
// redirects elsewhere gets nothing sent there (no header, no key in the
// query string, no body with a secret in it); https only, but to this very
// machine; and a store address a user gives may not lead to this machine or
// its network, checked on the address each connection resolves to.
import { Agent as HttpAgent } from 'node:http';
import { globalAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { exchangeBigCommerceCode } from '../../adapters/bigcommerce/app-token.ts';
import { BigCommerceApi } from '../../adapters/bigcommerce/admin-api.ts';
import { ShopifyAccess } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApi } from '../../adapters/shopify/admin-api.ts';
import { fetchShopifyOrdersInBulk } from '../../adapters/shopify/bulk-orders.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import { beginWooConnect, type ConnectOptions } from '../../adapters/woocommerce/connect.ts';
import { createWooWebhook, fetchWooWebhooks, WooRestClient } from '../../adapters/woocommerce/admin-api.ts';
import { WooStores } from '../../adapters/woocommerce/stores.ts';
import { keepWooWebhooks } from '../../adapters/woocommerce/subscriptions.ts';
import { adminClient } from '../../src/cli/admin-client.ts';
import { connect } from '../../src/cli/connect.ts';
import { loadConfig } from '../../src/config.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { keepWooKeys } from '../../adapters/woocommerce/key-callback.ts';
import { createLogger } from '../../src/logger.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import { outboundGot } from '../../src/net/outbound.ts';
import { refusalOf } from '../../src/net/refusal.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { shopifyOrderNode, startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { opensslAvailable, selfSignedCertificate } from '../helpers/https-front.ts';
import {
  startHttpsRedirectingToHttp,
  startRecorder,
  startRedirector,
  type Recorder,
} from '../helpers/outbound-listeners.ts';
import { SHOPIFY_SECRET } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const silent = createLogger({ level: 'silent' });
const KEY = `ck_${'1'.repeat(40)}`;
const SECRET = `cs_${'2'.repeat(40)}`;
const WEBHOOK_SECRET = 'whsec-never-leaves-the-bridge';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
async function recorder(tls = false): Promise<Recorder> {
  const started = await startRecorder(tls);
  closers.push(() => started.close());
  return started;
}
async function redirector(status: number, location: (path: string) => string, tls = false) {
  const started = await startRedirector(status, location, tls);
  closers.push(() => started.close());
  return started;
}

/** Nothing reached it: not a connection, so not a header, a query string or a body either. */
const untouched = (thief: Recorder) => {
  expect(thief.received).toEqual([]);
  expect(thief.connections()).toBe(0);
};

async function openLedger(): Promise<LowdbStore> {
  const store = new LowdbStore({ dataDir: tempDataDir() });
  await store.open();
  closers.push(() => store.close());
  return store;
}

/** A resolver that answers one address until told to answer another: a name rebound between two connections. */
function reboundResolver(first: string) {
  let current = first;
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const family = current.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address: current, family }]);
    else callback(null, current, family);
  }) as unknown as LookupFunction;
  return { lookup, rebind: (address: string) => void (current = address) };
}

describe('WooCommerce', () => {
  const newWebhook = {
    name: 'loyalty-bridge order.created',
    topic: 'order.created',
    delivery_url: 'https://bridge.example/webhooks/woocommerce',
    secret: WEBHOOK_SECRET,
    status: 'active' as const,
  };

  it.each(['basic', 'query'] as const)(
    'a store answering 307 to another listener sends nothing there (key sent %s)',
    async (authMode) => {
      const thief = await recorder();
      const store = await redirector(307, (path) => `${thief.url}${path}`);
      const client = new WooRestClient({
        url: store.url,
        consumerKey: KEY,
        consumerSecret: SECRET,
        authMode,
        outbound: { userAddress: false },
      });
      const error = await createWooWebhook(client, newWebhook).catch((caught: unknown) => caught);
      untouched(thief);
      expect(error).toMatchObject({ name: 'WooRestError', code: 'redirected', status: 307 });
      expect((error as Error).message).toContain(`answered 307 to ${thief.url}/wp-json/wc/v3/webhooks`);
      expect((error as Error).message).toContain(`under that address (${thief.url})`);
      expect((error as Error).message).not.toMatch(/ck_1|cs_2|whsec/);
      expect(store.received).toHaveLength(1);
    },
  );

  it.skipIf(!opensslAvailable)(
    'a 301 from https to http on the same host and port does not send the key in clear text',
    async () => {
      const site = await startHttpsRedirectingToHttp();
      closers.push(() => site.close());
      const trusted = globalAgent.options.ca;
      globalAgent.options.ca = selfSignedCertificate().cert;
      closers.push(async () => void (globalAgent.options.ca = trusted));
      const client = new WooRestClient({
        url: site.httpsUrl,
        consumerKey: KEY,
        consumerSecret: SECRET,
        outbound: { userAddress: false },
      });
      const error = await fetchWooWebhooks(client).catch((caught: unknown) => caught);
      untouched(site.plain);
      expect(error).toMatchObject({ code: 'redirected', status: 301 });
      expect((error as Error).message).toContain(`answered 301 to ${site.plain.url}/wp-json/wc/v3/webhooks`);
    },
  );

  describe('connecting a store from the dashboard', () => {
    let bridge: RunningBridge;
    let local: RunningBridge;
    const ADMIN_TOKEN = 'outbound-admin-token-0123456789abcdef';
    const startConnect = (on: RunningBridge, store: string) =>
      fetch(`${on.http.localUrl}/admin/api/stores/woocommerce/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ store }),
      });
    beforeAll(async () => {
      bridge = await startTestBridge({
        PUBLIC_URL: 'https://bridge.example',
        ADMIN_TOKEN,
        ALLOW_PRIVATE_STORE_ADDRESSES: 'false',
      });
      local = await startTestBridge({
        PUBLIC_URL: 'https://bridge.example',
        ADMIN_TOKEN,
        ALLOW_PRIVATE_STORE_ADDRESSES: 'true',
      });
    });
    afterAll(async () => {
      await bridge?.stop();
      await local?.stop();
    });

    it.each([
      ['http://127.0.0.1:8089/x', /127\.0\.0\.1 is not a public internet address/],
      ['https://10.0.0.5/', /10\.0\.0\.5 is not a public internet address/],
      ['https://localhost:8443/', /localhost is not a public internet address/],
    ])('refuses %s as a store, and says which setting allows it for development', async (address, why) => {
      const answer = await startConnect(bridge, address);
      const body = (await answer.json()) as { error: string; field: string };
      expect(answer.status).toBe(400);
      expect(body).toMatchObject({ field: 'store', error: expect.stringMatching(why) });
      expect(body.error).toContain('ALLOW_PRIVATE_STORE_ADDRESSES=true');
      expect(await bridge.engine.store.listRecords(raw('session'))).toEqual([]);
    });

    it('refuses a store over plain http to another machine', async () => {
      const answer = await startConnect(bridge, 'http://store.example/');
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toMatch(/must be https/);
    });

    it('accepts a local store when ALLOW_PRIVATE_STORE_ADDRESSES is on', async () => {
      expect((await startConnect(local, 'http://127.0.0.1:8089/x')).status).toBe(201);
    });
  });

  it('the CLI refuses a private store address as the dashboard does', async () => {
    const loaded = loadConfig({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: tempDataDir(),
        LOG_LEVEL: 'silent',
        DEMO_STORE: 'off',
        PUBLIC_URL: 'https://bridge.example',
      },
    });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    try {
      expect(await connect(loaded.config, silent, undefined, 'woocommerce', 'https://10.0.0.5/')).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toMatch(
      /10\.0\.0\.5 is not a public internet address.*ALLOW_PRIVATE_STORE_ADDRESSES=true/,
    );
  });

  it('the key callback refuses a store on this machine once the development setting is off, so WooCommerce deletes the key', async () => {
    const ledger = await openLedger();
    const options: ConnectOptions = {
      publicUrl: 'https://bridge.example',
      appName: 'loyalty-bridge',
      returnPath: '/admin/',
      addresses: { allowPrivate: true },
    };
    const began = await beginWooConnect(ledger, 'http://127.0.0.1:8089/x', options);
    const nonce = new URL(began.authorizeUrl).searchParams.get('user_id');
    const addresses = { allowPrivate: false };
    const stores = new WooStores({ store: ledger, env: {}, storeAddresses: addresses });
    const kept = await keepWooKeys(
      { store: ledger, stores, logger: silent, addresses },
      { key_id: 1, user_id: nonce, consumer_key: KEY, consumer_secret: SECRET, key_permissions: 'read_write' },
    );
    expect(kept).toMatchObject({
      ok: false,
      status: 400,
      reason: expect.stringContaining('ALLOW_PRIVATE_STORE_ADDRESSES=true'),
    });
    expect(await stores.list()).toEqual([]);
  });

  it.skipIf(!opensslAvailable)(
    'a connected store whose name resolves to a public address, then to 127.0.0.1, is refused at the connection (DNS rebinding)',
    async () => {
      const ledger = await openLedger();
      const onThisMachine = await recorder(true);
      const dns = reboundResolver('93.184.216.34');
      const addresses = { allowPrivate: false, lookup: dns.lookup };
      const options: ConnectOptions = {
        publicUrl: 'https://bridge.example',
        appName: 'loyalty-bridge',
        returnPath: '/admin/',
        addresses,
      };
      const began = await beginWooConnect(ledger, `https://store.rebind.test:${onThisMachine.port}/`, options);
      const nonce = new URL(began.authorizeUrl).searchParams.get('user_id');
      const stores = new WooStores({ store: ledger, env: {}, storeAddresses: addresses });
      const kept = await keepWooKeys(
        { store: ledger, stores, logger: silent, addresses },
        { key_id: 1, user_id: nonce, consumer_key: KEY, consumer_secret: SECRET, key_permissions: 'read_write' },
      );
      expect(kept).toEqual({ ok: true, shop: began.shop, reentry: false });

      // After the merchant approved, the name now answers this machine.
      dns.rebind('127.0.0.1');
      const connected = (await stores.get(began.shop))!;
      const error = await keepWooWebhooks(connected.rest!, {
        deliveryUrl: newWebhook.delivery_url,
        secret: WEBHOOK_SECRET,
        canWrite: true,
      }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'address_refused' });
      expect((error as Error).message).toContain('store.rebind.test resolved to 127.0.0.1');
      untouched(onThisMachine);
    },
  );
});

describe('Shopify', () => {
  const SHOP = 'redirecting.myshopify.com';
  const TOKEN = 'shpat_never_leaves_for_another_host';

  it('the Admin API client carries no X-Shopify-Access-Token across a redirect to another port', async () => {
    const thief = await recorder();
    const admin = await redirector(307, (path) => `${thief.url}${path}`);
    const api = new ShopifyAdminApi({
      shop: SHOP,
      access: new ShopifyAccess({ store: await openLedger(), ownShop: SHOP, legacyToken: TOKEN }),
      apiVersion: '2026-10',
      baseUrl: admin.url,
    });
    const error = await api.query('{ shop { name } }').catch((caught: unknown) => caught);
    untouched(thief);
    expect(error).toMatchObject({ name: 'ShopifyAdminError', code: 'REDIRECTED', transient: false });
    expect((error as Error).message).toContain(
      `answered 307, a redirect to ${thief.url}/admin/api/2026-10/graphql.json`,
    );
    expect(admin.received[0]?.headers['x-shopify-access-token']).toBe(TOKEN);
  });

  describe('a bulk result on storage that redirects elsewhere', () => {
    let fake: FakeShopify;
    beforeAll(async () => {
      fake = await startFakeShopify({ apiKey: 'client-id', apiSecret: SHOPIFY_SECRET });
      fake.registerToken(TOKEN, SHOP);
      fake.shop(SHOP).orders.set('7000000001', shopifyOrderNode('7000000001', { updatedAt: '2026-11-01T00:00:00Z' }));
    });
    afterAll(() => fake?.close());

    it('is not followed: the other host gets no request, and the resync fails for good', async () => {
      const thief = await recorder();
      fake.bulkResultsRedirectTo = thief.url;
      closers.push(async () => void (fake.bulkResultsRedirectTo = undefined));
      const ledger = await openLedger();
      const api = new ShopifyAdminApi({
        shop: SHOP,
        access: new ShopifyAccess({ store: ledger, ownShop: SHOP, legacyToken: TOKEN }),
        apiVersion: '2026-10',
        baseUrl: fake.adminUrl(SHOP),
      });
      const read = async () => {
        for await (const event of fetchShopifyOrdersInBulk(
          api,
          { since: new Date('2026-10-01T00:00:00Z'), until: new Date('2026-11-20T00:00:00Z') },
          { threshold: 1, exclusive: (name, fn) => ledger.exclusive(name, fn), pollMs: 1, maxPollMs: 5 },
        ))
          void event;
      };
      const error = await read().catch((caught: unknown) => caught);
      untouched(thief);
      expect(error).toMatchObject({ name: 'ShopifyAdminError', code: 'REDIRECTED', transient: false });
    });
  });

  it("the library's token requests follow no redirect: the client secret stays with Shopify", async () => {
    const thief = await recorder();
    const shopify = await redirector(307, (path) => `${thief.url}${path}`);
    // The library calls https://<shop>/admin/oauth/access_token; here that shop is served locally.
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      return realFetch(url.hostname === SHOP ? `${shopify.url}${url.pathname}${url.search}` : input, init);
    }) as typeof fetch;
    closers.push(async () => void (globalThis.fetch = realFetch));
    const app = shopifyApp({
      apiKey: 'client-id',
      apiSecretKey: SHOPIFY_SECRET,
      scopes: ['read_orders'],
      apiVersion: '2026-10',
    });
    const access = new ShopifyAccess({ store: await openLedger(), app, ownShop: SHOP });
    const error = await access.token(SHOP).catch((caught: unknown) => caught);
    untouched(thief);
    expect(shopify.received[0]?.body).toContain(SHOPIFY_SECRET);
    expect(error).toMatchObject({ name: 'ShopifyAccessError', code: 'refused' });
    expect((error as Error).message).toContain(`answered 307, a redirect to ${thief.url}/admin/oauth/access_token`);
  });
});

describe('BigCommerce', () => {
  it('the store API client carries no X-Auth-Token across a redirect to another port', async () => {
    const thief = await recorder();
    const api = await redirector(307, (path) => `${thief.url}${path}`);
    const client = new BigCommerceApi({
      storeHash: 'abc123',
      accessToken: 'bc-token-never-elsewhere',
      baseUrl: api.url,
    });
    const error = await client.hooks().catch((caught: unknown) => caught);
    untouched(thief);
    expect(error).toMatchObject({ name: 'BigCommerceApiError', status: 307, transient: false });
    expect((error as Error).message).toContain('BIGCOMMERCE_API_URL');
    expect(api.received[0]?.headers['x-auth-token']).toBe('bc-token-never-elsewhere');
  });

  it('the install code exchange sends its client secret nowhere but the login service', async () => {
    const thief = await recorder();
    const login = await redirector(307, (path) => `${thief.url}${path}`);
    const error = await exchangeBigCommerceCode({
      loginUrl: login.url,
      clientId: 'client',
      clientSecret: 'bc-client-secret',
      redirectUri: 'https://bridge.example/bigcommerce/auth',
      code: 'code',
      scope: 'store_v2_orders_read_only',
      context: 'stores/abc123',
    }).catch((caught: unknown) => caught);
    untouched(thief);
    expect(error).toMatchObject({ name: 'BigCommerceAuthError', refused: true });
    expect((error as Error).message).toContain('BIGCOMMERCE_LOGIN_URL');
  });
});

describe('the loyalty service', () => {
  it('a redirect to another host does not carry x-api-key, and is a configuration error', async () => {
    const thief = await recorder();
    const service = await redirector(307, (path) => `http://localhost:${thief.port}${path}`);
    const client = new LoyaltyClient({
      baseUrl: service.url,
      apiKey: 'lp-api-key-secret',
      brandId: 'brand',
      maxRetries: 3,
      minRetryDelayMs: 1,
    });
    const error = await client.updatePoints({ status: 'approve', orderId: '1' }).catch((caught: unknown) => caught);
    untouched(thief);
    expect(error).toMatchObject({ kind: 'redirected', retryable: false });
    expect(service.received).toHaveLength(1);
  });

  it.each([
    ['http://example.com', false],
    ['http://loyalty.example.com:8080/base', false],
    ['http://127.0.0.1:4010', true],
    ['http://localhost:4010', true],
    ['https://www.ref-r.com', true],
  ])('LOYALTY_BASE_URL=%s is accepted: %s', (url, accepted) => {
    const loaded = loadConfig({ env: { LOYALTY_BASE_URL: url, LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b' } });
    if (accepted) return void expect(loaded).toMatchObject({ ok: true });
    expect(loaded.ok).toBe(false);
    const lines = loaded.ok ? [] : loaded.errors;
    expect(lines).toEqual([expect.stringMatching(/^LOYALTY_BASE_URL \(environment\): must be an https URL/)]);
  });
});

describe('the policy, whatever a call asks', () => {
  const client = (policy: { userAddress: boolean }) =>
    outboundGot(policy, { retry: { limit: 0 }, headers: { 'x-api-key': 'api-key-never-elsewhere' } });

  it('a call asking to follow every redirect sends nothing to another port', async () => {
    const thief = await recorder();
    const service = await redirector(307, (path) => `${thief.url}${path}`);
    const error = await client({ userAddress: false })
      .post(`${service.url}/loyalty/v1/earn/1`, { followRedirect: true, json: { secret: WEBHOOK_SECRET } })
      .catch((caught: unknown) => caught);
    untouched(thief);
    expect(refusalOf(error)).toMatchObject({ kind: 'redirect', status: 307, to: `${thief.url}/loyalty/v1/earn/1` });
  });

  it('a streamed call asking to follow every redirect sends nothing to another port', async () => {
    const thief = await recorder();
    const storage = await redirector(307, (path) => `${thief.url}${path}`);
    const stream = client({ userAddress: false }).stream(`${storage.url}/result.jsonl`, { followRedirect: true });
    const error = await new Promise((resolve) =>
      stream
        .on('error', resolve)
        .on('end', () => resolve(undefined))
        .resume(),
    );
    untouched(thief);
    expect(refusalOf(error)).toMatchObject({ kind: 'redirect', status: 307 });
  });

  it("a call bringing its own agent still reaches no address on this machine when the address is a user's", async () => {
    const onThisMachine = await recorder();
    const error = await client({ userAddress: true })
      .get(`${onThisMachine.url}/wp-json/wc/v3/webhooks`, { agent: { http: new HttpAgent() } })
      .catch((caught: unknown) => caught);
    untouched(onThisMachine);
    expect(refusalOf(error)).toMatchObject({ kind: 'private_address', address: '127.0.0.1' });
  });
});

describe('the admin CLI', () => {
  it('sends the admin token over plain http to no other machine, and across no redirect to another port', async () => {
    await expect(adminClient('http://bridge.example.com:3000', 'admin-token-secret').get('status')).rejects.toThrow(
      /plain http.*--url/,
    );
    const thief = await recorder();
    const bridge = await redirector(307, (path) => `http://127.0.0.1:${thief.port}${path}`);
    await expect(adminClient(bridge.url, 'admin-token-secret').get('status')).rejects.toThrow(/redirect/);
    untouched(thief);
  });
});
