// Admin API access the 2026 ways, against the fake Shopify over HTTP (its
// token endpoint reached through @shopify/shopify-api, which insists on
// https://<shop>: nock hands those calls to the fake): the client
// credentials grant for the merchant's own store, and expiring offline
// tokens with rotating refresh tokens for shops that installed by OAuth or
// that Shopify installed itself (managed installation) and that get theirs
// by token exchange, one exchange per shop across instances.
import nock from 'nock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ShopifyAccess, sessionId, type ShopifySession } from '../../adapters/shopify/access.ts';
import { ShopifyAdminApis } from '../../adapters/shopify/admin-api.ts';
import { fetchShopifyOrders } from '../../adapters/shopify/graphql-orders.ts';
import { shopifyApp } from '../../adapters/shopify/shopify-app.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable } from '../helpers/postgres.ts';
import { mintSessionToken } from '../helpers/shopify-app-links.ts';
import {
  routeTokenEndpointToFake,
  shopifyOrderNode,
  startFakeShopify,
  type FakeShopify,
} from '../helpers/fake-shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const API_KEY = 'dev-dashboard-client-id';
const API_SECRET = 'dev-dashboard-client-secret';
const VERSION = '2026-10';
const OWN = 'own-store.myshopify.com';
const INSTALLED = 'installed-store.myshopify.com';

let fake: FakeShopify;
let dataDir: string;
let store: LowdbStore;
const app = shopifyApp({
  apiKey: API_KEY,
  apiSecretKey: API_SECRET,
  appUrl: 'https://bridge.example',
  scopes: ['read_orders'],
  apiVersion: VERSION,
});

const accessOn = (on: LowdbStore) => new ShopifyAccess({ store: on, app, ownShop: OWN });
const apisOn = (access: ShopifyAccess) =>
  new ShopifyAdminApis({
    access,
    apiVersion: VERSION,
    baseUrl: (shop) => fake.adminUrl(shop),
    sleep: async () => undefined,
  });
const tokenRequests = (shop: string, grant: string) =>
  fake.requests.filter((request) => request.shop === shop && request.what === `token:${grant}`).length;
const ping = (apis: ShopifyAdminApis, shop: string) =>
  apis.for(shop).query<{ shop: { name: string } }>('query LoyaltyBridgePing { shop { name } }');

/** An install as OAuth leaves it: the consent approved, the code exchanged for an expiring offline token. */
async function install(access: ShopifyAccess, shop: string) {
  const approved = await fetch(
    `${fake.adminUrl(shop)}/admin/oauth/approve?redirect_uri=${encodeURIComponent('https://bridge.example/shopify/auth/callback')}&state=s`,
    { redirect: 'manual' },
  );
  const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code');
  const answer = (await (
    await fetch(`${fake.adminUrl(shop)}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: API_KEY, client_secret: API_SECRET, code, expiring: '1' }),
    })
  ).json()) as Record<string, string | number>;
  await access.saveInstalled({
    shop,
    accessToken: String(answer.access_token),
    expires: new Date(Date.now() + Number(answer.expires_in) * 1000),
    refreshToken: String(answer.refresh_token),
    scope: String(answer.scope),
  });
}

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  fake = await startFakeShopify({ apiKey: API_KEY, apiSecret: API_SECRET, accessTokenTtlS: 3600 });
  await routeTokenEndpointToFake(fake);
});
afterAll(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await fake.close();
});
beforeEach(async () => {
  fake.clock.offsetMs = 0;
  dataDir = tempDataDir();
  store = new LowdbStore({ dataDir });
  await store.open();
  return async () => store.close();
});

describe('the own store, by the client credentials grant', () => {
  it('fetches a token when first needed, once for every caller at the same time', async () => {
    const apis = apisOn(accessOn(store));
    const before = tokenRequests(OWN, 'client_credentials');
    await Promise.all(Array.from({ length: 10 }, () => ping(apis, OWN)));
    expect(tokenRequests(OWN, 'client_credentials') - before).toBe(1);
    expect((await store.getRecord(raw<ShopifySession>('session'), sessionId(OWN)))?.mode).toBe('client_credentials');
  });

  it('renews it a few minutes before it expires, so that no call is refused', async () => {
    const now = { offsetMs: 0 };
    const access = new ShopifyAccess({ store, app, ownShop: OWN, now: () => new Date(Date.now() + now.offsetMs) });
    const apis = apisOn(access);
    await ping(apis, OWN);
    const before = tokenRequests(OWN, 'client_credentials');
    // 24 h less three minutes later, for both sides: the token still works, but not for long.
    now.offsetMs = fake.clock.offsetMs = 86_399_000 - 3 * 60_000;
    await ping(apis, OWN);
    expect(tokenRequests(OWN, 'client_credentials') - before).toBe(1);
    expect(fake.requests.filter((request) => request.shop === OWN && request.status === 401)).toEqual([]);
  });

  it('renews it once after a 401, and the call goes through', async () => {
    const apis = apisOn(accessOn(store));
    await ping(apis, OWN);
    const before = tokenRequests(OWN, 'client_credentials');
    // Shopify ends the token early (the app's secret rotated, say): the next call is refused.
    fake.clock.offsetMs = 2 * 86_400_000;
    await expect(ping(apis, OWN)).resolves.toMatchObject({ shop: { name: OWN } });
    expect(tokenRequests(OWN, 'client_credentials') - before).toBe(1);
  });
});

describe('a shop installed by OAuth, with expiring offline tokens', () => {
  it('refreshes before expiry, replacing both tokens; the old refresh token dies once the new access token is used', async () => {
    const now = { offsetMs: 0 };
    const access = new ShopifyAccess({ store, app, ownShop: OWN, now: () => new Date(Date.now() + now.offsetMs) });
    await install(access, INSTALLED);
    const first = (await store.getRecord(raw<ShopifySession>('session'), sessionId(INSTALLED)))!;
    expect(first).toMatchObject({ mode: 'oauth_expiring', refreshToken: expect.stringMatching(/^shprt_/) });
    now.offsetMs = 57 * 60_000;
    await ping(apisOn(access), INSTALLED);
    const second = (await store.getRecord(raw<ShopifySession>('session'), sessionId(INSTALLED)))!;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(fake.shop(INSTALLED).refreshTokens.has(first.refreshToken!)).toBe(false);
    expect(fake.shop(INSTALLED).refreshTokens.has(second.refreshToken!)).toBe(true);
  });

  it('strands nothing when the process dies between Shopify’s answer and the save: the stored refresh token still works', async () => {
    const access = accessOn(store);
    await install(access, INSTALLED);
    const stored = (await store.getRecord(raw<ShopifySession>('session'), sessionId(INSTALLED)))!;
    // A refresh whose answer was lost: Shopify issued new tokens, the bridge never saved them.
    await app.auth.refreshToken({ shop: INSTALLED, refreshToken: stored.refreshToken! });
    fake.clock.offsetMs = 2 * 60 * 60_000;
    await expect(ping(apisOn(access), INSTALLED)).resolves.toMatchObject({ shop: { name: INSTALLED } });
    expect((await store.getRecord(raw<ShopifySession>('session'), sessionId(INSTALLED)))?.refreshToken).not.toBe(
      stored.refreshToken,
    );
  });

  it('after a restart, works with the tokens in the ledger, and refreshes with the stored refresh token', async () => {
    await install(accessOn(store), INSTALLED);
    await store.close();
    const reopened = new LowdbStore({ dataDir });
    await reopened.open();
    try {
      const access = accessOn(reopened);
      expect(await access.shops()).toEqual([INSTALLED, OWN]);
      const apis = apisOn(access);
      await ping(apis, INSTALLED);
      const refreshes = tokenRequests(INSTALLED, 'refresh_token');
      fake.clock.offsetMs = 2 * 60 * 60_000;
      await ping(apis, INSTALLED);
      expect(tokenRequests(INSTALLED, 'refresh_token') - refreshes).toBe(1);
    } finally {
      await reopened.close();
      store = new LowdbStore({ dataDir });
      await store.open();
    }
  });

  it('renews a token that expires in the middle of a resync without failing a page', async () => {
    const access = accessOn(store);
    await install(access, INSTALLED);
    const orders = fake.shop(INSTALLED).orders;
    orders.clear();
    for (let i = 0; i < 120; i++)
      orders.set(
        String(9_100_000 + i),
        shopifyOrderNode(String(9_100_000 + i), {
          updatedAt: `2026-11-20T10:${String(Math.floor(i / 2)).padStart(2, '0')}:00Z`,
        }),
      );
    const events: OrderEvent[] = [];
    for await (const event of fetchShopifyOrders(
      apisOn(access).for(INSTALLED),
      { since: new Date('2026-11-20T00:00:00Z') },
      new Date('2026-11-21T00:00:00Z'),
    )) {
      events.push(event);
      // After the first page, Shopify's clock passes the token's expiry while the bridge still thinks it good.
      if (events.length === 50) fake.clock.offsetMs = 2 * 60 * 60_000;
    }
    expect(events).toHaveLength(120);
    expect(
      fake.requests.filter(
        (request) => request.shop === INSTALLED && request.what === 'LoyaltyBridgeOrders' && request.status === 401,
      ),
    ).toHaveLength(1);
  });

  it('says to install again when the refresh token is refused, and never names a token', async () => {
    const access = accessOn(store);
    await install(access, INSTALLED);
    fake.shop(INSTALLED).refreshTokens.clear();
    fake.clock.offsetMs = 2 * 60 * 60_000;
    const error = await ping(apisOn(access), INSTALLED).then(
      () => new Error('no error'),
      (caught: unknown) => caught as Error,
    );
    expect(error.message).toMatch(/install the app again/);
    const session = (await store.getRecord(raw<ShopifySession>('session'), sessionId(INSTALLED)))!;
    expect(error.message).not.toContain(session.accessToken);
    expect(error.message).not.toContain(session.refreshToken);
    expect(error.message).not.toContain(API_SECRET);
  });
});

describe('a shop Shopify installed itself, by token exchange', () => {
  const MANAGED = 'managed-store.myshopify.com';
  const sessionToken = () => mintSessionToken({ shop: MANAGED, apiKey: API_KEY, secret: API_SECRET });
  const exchanges = () => tokenRequests(MANAGED, 'token_exchange');
  beforeAll(() => fake.install(MANAGED));

  it('exchanges the session token once for every caller at the same time, for an expiring offline token that refreshes like any other', async () => {
    const now = { offsetMs: 0 };
    const access = new ShopifyAccess({ store, app, ownShop: OWN, now: () => new Date(Date.now() + now.offsetMs) });
    expect(await access.hasWorkingAccess(MANAGED)).toBe(false);
    const before = exchanges();
    await Promise.all(Array.from({ length: 10 }, () => access.exchange(MANAGED, sessionToken())));
    expect(exchanges() - before).toBe(1);
    expect(await access.hasWorkingAccess(MANAGED)).toBe(true);
    const exchanged = (await store.getRecord(raw<ShopifySession>('session'), sessionId(MANAGED)))!;
    expect(exchanged).toMatchObject({ mode: 'token_exchange', refreshToken: expect.stringMatching(/^shprt_/) });

    now.offsetMs = 57 * 60_000;
    await ping(apisOn(access), MANAGED);
    const refreshed = (await store.getRecord(raw<ShopifySession>('session'), sessionId(MANAGED)))!;
    expect(refreshed.accessToken).not.toBe(exchanged.accessToken);
    expect(refreshed.mode).toBe('token_exchange');
  });

  it('says the session token was refused, without quoting it, when Shopify refuses it', async () => {
    const access = accessOn(store);
    const expired = mintSessionToken({ shop: MANAGED, apiKey: API_KEY, secret: API_SECRET, expiresInS: -120 });
    const error = await access.exchange(MANAGED, expired).then(
      () => new Error('no error'),
      (caught: unknown) => caught as Error,
    );
    // An invalid session, which a fresh token from App Bridge puts right (not a refusal of the app).
    expect(error).toMatchObject({ name: 'ShopifyAccessError', code: 'invalid_session' });
    expect(error.message).not.toContain(expired);
    expect(await store.getRecord(raw('session'), sessionId(MANAGED))).toBeUndefined();
  });

  it('gets new access by exchange at the next open when Shopify refuses to renew the token it gave', async () => {
    const access = accessOn(store);
    await access.exchange(MANAGED, sessionToken());
    // The merchant's refresh token is revoked (say, the app was reinstalled elsewhere): the renewal is refused.
    fake.shop(MANAGED).refreshTokens.clear();
    fake.clock.offsetMs = 2 * 60 * 60_000;
    await expect(ping(apisOn(access), MANAGED)).rejects.toThrow(/refresh token was refused/);
    expect(await access.hasWorkingAccess(MANAGED)).toBe(false);
    fake.clock.offsetMs = 0;
    await access.exchange(MANAGED, sessionToken());
    expect(await access.hasWorkingAccess(MANAGED)).toBe(true);
    await expect(ping(apisOn(access), MANAGED)).resolves.toMatchObject({ shop: { name: MANAGED } });
  });

  it.skipIf(!postgresAvailable())(
    'exchanges once when two instances on one PostgreSQL database are opened at the same moment',
    async () => {
      const database = await freshDatabase();
      const logger = createLogger({ level: 'silent' });
      const instances = await Promise.all(
        [1, 2].map(() => openPostgresStore({ url: database.url, dedupeWindowMs: 86_400_000, logger, poolSize: 4 })),
      );
      try {
        for (const { store: each } of instances) await each.open();
        const accesses = instances.map(({ store: each }) => new ShopifyAccess({ store: each, app }));
        const before = exchanges();
        await Promise.all(
          accesses.flatMap((access) => [
            access.exchange(MANAGED, sessionToken()),
            access.exchange(MANAGED, sessionToken()),
          ]),
        );
        expect(exchanges() - before).toBe(1);
        for (const access of accesses) expect(await access.hasWorkingAccess(MANAGED)).toBe(true);
      } finally {
        for (const { store: each, release } of instances) {
          await each.close();
          await release();
        }
        await database.drop();
      }
    },
  );
});
