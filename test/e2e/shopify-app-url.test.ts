// The App URL (GET /shopify/app) on a running bridge, as Shopify opens it:
// signed links good and bad; a shop Shopify installed by itself (managed
// installation) getting Admin API access the first time the merchant opens
// the app, by token exchange when embedded and by the authorization code
// grant when not; and the dashboard it then shows.
import { describe, expect, it, vi } from 'vitest';
import type { ShopifySession } from '../../adapters/shopify/access.ts';
import type { SubscriptionHealth } from '../../src/core/order-source.ts';
import { eventually } from '../helpers/engine.ts';
import {
  APP_KEY,
  APP_PREVIOUS_SECRET,
  APP_SECRET,
  CHROME_UA,
  approveInstall,
  shopifyAppSuite,
} from '../helpers/shopify-app-bridge.ts';
import { appUrlQuery, mintSessionToken } from '../helpers/shopify-app-links.ts';
import { APP_BRIDGE_URL, SHOPIFY_APP_URL_PATH, SHOPIFY_BOUNCE_PATH } from '../../adapters/shopify/paths.ts';
import { raw } from '../helpers/raw-records.ts';

const MANAGED = 'managed-store.myshopify.com';
const OTHER = 'other-store.myshopify.com';

const suite = shopifyAppSuite({ SHOPIFY_SHOPS: `${MANAGED},${OTHER}` });
const { start } = suite;
const open = (query: string) =>
  fetch(`${suite.running.url}${SHOPIFY_APP_URL_PATH}?${query}`, {
    redirect: 'manual',
    headers: { 'user-agent': CHROME_UA },
  });
/** A session token of the shop that expired two minutes ago. */
const expiredToken = (shop: string) =>
  mintSessionToken({ shop, apiKey: APP_KEY, secret: APP_SECRET, expiresInS: -120, notBeforeS: -180 });
const session = (shop: string) =>
  suite.running.bridge.engine.store.getRecord(raw<ShopifySession>('session'), `shopify:${shop}`);
const exchanges = (shop: string) =>
  suite.fake.requests.filter((request) => request.shop === shop && request.what === 'token:token_exchange');
const idToken = (shop: string, secret = APP_SECRET) => mintSessionToken({ shop, apiKey: APP_KEY, secret });
/** The session the shop's page outside the admin was answered with, and the address it then shows. */
const storePageSession = async (answer: Response) => {
  const page = await answer.clone().text();
  expect(page).toContain('<meta name="loyalty-bridge-page" content="/shopify/store">');
  return /<meta name="loyalty-bridge-session" content="([^"]+)">/.exec(page)?.[1];
};

describe('the App URL refuses what Shopify did not sign', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const refused: Array<[string, () => string]> = [
    ['no hmac at all', () => appUrlQuery({ shop: MANAGED, secret: APP_SECRET, unsigned: true })],
    ['an hmac made with another secret', () => appUrlQuery({ shop: MANAGED, secret: 'not-this-apps-secret' })],
    ['a shop changed after signing', () => appUrlQuery({ shop: MANAGED, secret: APP_SECRET, tamper: { shop: OTHER } })],
    [
      'a stale timestamp (two minutes old)',
      () => appUrlQuery({ shop: MANAGED, secret: APP_SECRET, timestamp: now() - 120 }),
    ],
    ['a timestamp from the future', () => appUrlQuery({ shop: MANAGED, secret: APP_SECRET, timestamp: now() + 120 })],
    [
      'a signed link whose shop is not a Shopify domain',
      () => appUrlQuery({ shop: 'evil.example.com', secret: APP_SECRET }),
    ],
  ];
  it.each(refused)('%s: a plain 401 page, no redirect, and nothing recorded', async (_name, query) => {
    await start();
    const response = await open(query());
    expect(response.status).toBe(401);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toContain('Open this app from your Shopify admin');
    expect(await suite.running.bridge.engine.store.listRecords(raw('session'))).toEqual([]);
    expect(await suite.running.bridge.engine.store.listRecords(raw('shop'))).toEqual([]);
  });

  it('accepts a link signed with the previous secret during a rotation', async () => {
    suite.fake.install(MANAGED);
    await start({ SHOPIFY_API_SECRET_PREVIOUS: APP_PREVIOUS_SECRET, SHOPIFY_EMBEDDED: 'false' });
    // Not embedded and no access yet: off to the consent screen, which only a signed link gets to.
    const response = await open(appUrlQuery({ shop: MANAGED, secret: APP_PREVIOUS_SECRET }));
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location')!).host).toBe(MANAGED);
  });
});

describe('embedded: a managed install, then the first open', () => {
  it('gets the shop an expiring offline token by token exchange, once, and shows the dashboard with App Bridge', async () => {
    suite.fake.install(MANAGED);
    await start();
    const before = suite.fake.tokenRequests.length;
    const exchangesBefore = exchanges(MANAGED).length;

    const response = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: idToken(MANAGED) }));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<meta name="shopify-api-key" content="${APP_KEY}">`);
    // App Bridge from Shopify's CDN, the page's first script, loaded as is.
    expect(html.match(/<script[^>]*>/g)?.[0]).toBe(`<script src="${APP_BRIDGE_URL}">`);
    expect(response.headers.get('content-security-policy')).toContain(
      `frame-ancestors https://${MANAGED} https://admin.shopify.com`,
    );

    // Token exchange as Shopify documents it: the session token for an offline token that expires.
    const sent = suite.fake.tokenRequests.slice(before).map(({ body }) => body);
    expect(sent).toEqual([
      expect.objectContaining({
        client_id: APP_KEY,
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        requested_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token',
        expiring: '1',
      }),
    ]);
    expect(await session(MANAGED)).toMatchObject({
      mode: 'token_exchange',
      refreshToken: expect.stringMatching(/^shprt_/),
      expiresAt: expect.any(String),
    });
    expect(html).not.toContain((await session(MANAGED))!.accessToken);
    // The merchant is signed in by Shopify: the operator's sign-in form is never sent into the admin.
    expect(html).not.toMatch(/sign-in-form|Admin token/);
    // Installed: its subscriptions checked (the app's configuration declares every topic, so none is made on the shop, and none counts before Shopify delivers it).
    await eventually(async () =>
      expect(
        await suite.running.bridge.engine.store.getRecord(
          raw<SubscriptionHealth>('platform-health'),
          `shopify:${MANAGED}`,
        ),
      ).toMatchObject({ healthy: 0, unconfirmed: expect.any(Array) }),
    );
    expect(suite.fake.shop(MANAGED).subscriptions).toEqual([]);

    // The next open uses what the bridge holds.
    expect((await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: idToken(MANAGED) }))).status).toBe(
      200,
    );
    expect(exchanges(MANAGED).length - exchangesBefore).toBe(1);
  });

  it('refuses a session token for another shop than the link names: one bounce for a fresh token, then a page the admin can show, and nothing exchanged', async () => {
    suite.fake.install(MANAGED);
    await start();
    const before = suite.fake.tokenRequests.length;
    const query = appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: idToken(OTHER) });
    const first = await open(query);
    expect(first.status).toBe(302);
    const bounce = new URL(first.headers.get('location')!, suite.running.url);
    expect(bounce.pathname).toBe('/shopify/session-token');
    const reload = new URL(bounce.searchParams.get('shopify-reload')!);
    expect(reload.searchParams.get('id_token')).toBeNull();
    expect(reload.searchParams.get('bounced')).toMatch(/^\d+$/);
    // Back from the bounce with a token still not for this shop: no second bounce.
    const again = await open(`${reload.searchParams.toString()}&id_token=${idToken(OTHER)}`);
    expect(again.status).toBe(401);
    expect(again.headers.get('content-security-policy')).toContain(
      `frame-ancestors https://${MANAGED} https://admin.shopify.com`,
    );
    expect(await session(MANAGED)).toBeUndefined();
    expect(suite.fake.tokenRequests.length).toBe(before);
  });

  it('takes a good session token with a stale link (a reload after 90 s), and bounces a stale link whose token expired', async () => {
    suite.fake.install(MANAGED);
    await start();
    const stale = Math.floor(Date.now() / 1000) - 600;
    expect(
      (await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: idToken(MANAGED), timestamp: stale })))
        .status,
    ).toBe(200);
    const expired = expiredToken(MANAGED);
    const bounced = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: expired, timestamp: stale }));
    expect(bounced.status).toBe(302);
    const page = await fetch(new URL(bounced.headers.get('location')!, suite.running.url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<script src="${APP_BRIDGE_URL}"></script>`);
    expect(html).toContain(`<meta name="shopify-api-key" content="${APP_KEY}">`);
    expect(page.headers.get('content-security-policy')).toContain(
      `frame-ancestors https://${MANAGED} https://admin.shopify.com`,
    );
  });

  it('bounces again when the same frame address is reloaded minutes later with a token that expired since: a bounce’s mark counts for its own round trip only', async () => {
    suite.fake.install(MANAGED);
    await start();
    const expired = () =>
      mintSessionToken({ shop: MANAGED, apiKey: APP_KEY, secret: APP_SECRET, expiresInS: -120, notBeforeS: -180 });
    const first = await open(
      appUrlQuery({
        shop: MANAGED,
        secret: APP_SECRET,
        idToken: expired(),
        timestamp: Math.floor(Date.now() / 1000) - 600,
      }),
    );
    expect(first.status).toBe(302);
    const reload = new URL(
      new URL(first.headers.get('location')!, suite.running.url).searchParams.get('shopify-reload')!,
    );
    // App Bridge comes back with a fresh token: the shop's page.
    reload.searchParams.set('id_token', idToken(MANAGED));
    expect((await open(reload.searchParams.toString())).status).toBe(200);
    // Five minutes on, the merchant reloads that frame, whose token has expired since.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5 * 60_000 });
    try {
      reload.searchParams.set('id_token', expired());
      const later = await open(reload.searchParams.toString());
      expect(later.status).toBe(302);
      expect(new URL(later.headers.get('location')!, suite.running.url).pathname).toBe(SHOPIFY_BOUNCE_PATH);
    } finally {
      vi.useRealTimers();
    }
  });

  it('bounces a session token Shopify refuses at token exchange (expired on its way there), as shopify-app-js does: no error page', async () => {
    suite.fake.install(MANAGED);
    await start();
    suite.fake.clock.offsetMs = 5 * 60_000;
    try {
      const response = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: idToken(MANAGED) }));
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get('location')!, suite.running.url).pathname).toBe(SHOPIFY_BOUNCE_PATH);
    } finally {
      suite.fake.clock.offsetMs = 0;
    }
    expect(await session(MANAGED)).toBeUndefined();
  });

  it('bounces a signed link inside the admin that carries no session token, as shopify-app-js does, and gets the shop access once it comes back with one', async () => {
    suite.fake.install(MANAGED);
    await start();
    const first = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET, embedded: true }));
    expect(first.status).toBe(302);
    const bounce = new URL(first.headers.get('location')!, suite.running.url);
    expect(bounce.pathname).toBe(SHOPIFY_BOUNCE_PATH);
    const reload = new URL(bounce.searchParams.get('shopify-reload')!);
    reload.searchParams.set('id_token', idToken(MANAGED));
    expect((await open(reload.searchParams.toString())).status).toBe(200);
    expect(await session(MANAGED)).toMatchObject({ mode: 'token_exchange' });
  });

  it('brings a merchant who reloads a view of the page with an expired session back to that view', async () => {
    suite.fake.install(MANAGED);
    await start();
    const expired = expiredToken(MANAGED);
    const stale = Math.floor(Date.now() / 1000) - 600;
    const bounced = await fetch(
      `${suite.running.url}${SHOPIFY_APP_URL_PATH}/orders?${appUrlQuery({ shop: MANAGED, secret: APP_SECRET, idToken: expired, timestamp: stale })}`,
      { redirect: 'manual', headers: { 'user-agent': CHROME_UA } },
    );
    expect(bounced.status).toBe(302);
    const location = new URL(bounced.headers.get('location')!, suite.running.url);
    expect(new URL(location.searchParams.get('shopify-reload')!).pathname).toBe(`${SHOPIFY_APP_URL_PATH}/orders`);
    expect((await fetch(location)).status).toBe(200);
  });

  it('sends App Bridge back from the bounce page only to this bridge’s App URL', async () => {
    await start();
    for (const reload of [
      'https://evil.example/shopify/app?shop=x',
      `${suite.running.url}/admin/api/orders`,
      `${suite.running.url}/shopify/app/../../admin/api/orders`,
      // Under the App URL, but no view's address: the views are single words (index.html's nav).
      `${suite.running.url}/shopify/app/setup/elsewhere`,
      `${suite.running.url}/shopify/app/%2e%2e`,
      'javascript:alert(1)',
    ]) {
      const page = await fetch(
        `${suite.running.url}/shopify/session-token?${new URLSearchParams({ shop: MANAGED, 'shopify-reload': reload })}`,
      );
      expect(page.status).toBe(400);
    }
  });

  it('sends a link opened outside the admin into the admin', async () => {
    await start();
    const response = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET }));
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`https://admin.shopify.com/store/managed-store/apps/${APP_KEY}`);
  });
});

describe('not embedded: a managed install, then the first open', () => {
  it('gets access by the authorization code grant (expiring offline token), then opens the shop’s own dashboard', async () => {
    suite.fake.install(MANAGED);
    await start({ SHOPIFY_EMBEDDED: 'false' });

    const first = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET }));
    expect(first.status).toBe(302);
    const consent = new URL(first.headers.get('location')!);
    expect(`${consent.host}${consent.pathname}`).toBe(`${MANAGED}/admin/oauth/authorize`);
    expect(consent.searchParams.get('client_id')).toBe(APP_KEY);

    // The merchant approves; Shopify sends them back to the callback with a code.
    const back = await approveInstall(suite, MANAGED, first);
    // The first open, once installed, lands on the shop's own page too, signed in as that shop in the answer itself.
    expect(back.status).toBe(200);
    expect(await storePageSession(back)).toMatch(/^lbp1\.shopify\./);
    expect(await session(MANAGED)).toMatchObject({
      mode: 'oauth_expiring',
      refreshToken: expect.stringMatching(/^shprt_/),
    });
    expect(suite.fake.tokenRequests.at(-1)?.body).toMatchObject({ code: expect.any(String), expiring: '1' });

    // The next open goes straight to the shop's own page, signed in as that shop in the answer (never in an address,
    // which could be handed to another browser); the page then shows its own address, where a reload keeps the tab's.
    const next = await open(appUrlQuery({ shop: MANAGED, secret: APP_SECRET }));
    expect(next.status).toBe(200);
    expect(next.headers.get('location')).toBeNull();
    expect(next.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const shopToken = (await storePageSession(next))!;
    const page = await fetch(`${suite.running.url}/shopify/store`);
    const reloaded = await page.text();
    expect(reloaded).toContain('<script src="/merchant/elements.js"></script>');
    expect(reloaded).not.toContain('loyalty-bridge-session');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const whoami = await fetch(`${suite.running.url}/admin/api/session`, {
      headers: { authorization: `Bearer ${shopToken}` },
    });
    expect(await whoami.json()).toEqual({ caller: 'shop', platform: 'shopify', shop: MANAGED, storeName: MANAGED });
  });
});
