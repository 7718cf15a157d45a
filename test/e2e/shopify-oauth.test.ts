// Install by OAuth as a browser goes through it, over HTTP: the bridge sends the merchant to the shop's consent
// screen with a signed state cookie for the callback alone, and the callback takes the code only from the
// browser holding that cookie, with Shopify's HMAC on the query. A bot is told 410 and sent nowhere.
import { describe, expect, it } from 'vitest';
import { APP_KEY, CHROME_UA, shopifyAppSuite } from '../helpers/shopify-app-bridge.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'oauth-shop.myshopify.com';
const ADMIN_TOKEN = 'operator-admin-token-0123456789';
const suite = shopifyAppSuite({ ADMIN_TOKEN, SHOPIFY_SHOPS: SHOP });
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${suite.running.url}${path}`, { redirect: 'manual', headers: { 'user-agent': CHROME_UA, ...headers } });

/** To the consent screen and back: the callback's address and the browser's cookies. */
async function consented(): Promise<{ callback: URL; cookies: string; begun: Response }> {
  const begun = await get(`/shopify/auth?shop=${SHOP}`);
  const consent = new URL(begun.headers.get('location')!);
  const approved = await fetch(`${suite.fake.adminUrl(SHOP)}/admin/oauth/approve?${consent.searchParams}`, {
    redirect: 'manual',
  });
  const cookies = begun.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
  return { callback: new URL(approved.headers.get('location')!), cookies, begun };
}
const back = (callback: URL, headers: Record<string, string>) => get(`${callback.pathname}${callback.search}`, headers);

/**
 * A browser's cookies as RFC 6265 keeps them: one per name and path, an expired one removed. Only the path matters
 * here (one host); a cookie set without a path takes the default path of the address that set it.
 */
function applySetCookies(jar: Map<string, string>, setCookies: string[], from: string): void {
  for (const line of setCookies) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const [name = '', value = ''] = pair.split(/=(.*)/s);
    const attribute = (wanted: string) =>
      attributes.find((each) => each.toLowerCase().startsWith(`${wanted}=`))?.split(/=(.*)/s)[1];
    const path = attribute('path') ?? from.slice(0, from.lastIndexOf('/')) ?? '/';
    const expires = attribute('expires');
    const key = `${name} ${path}`;
    if (expires && Date.parse(expires) <= Date.now()) jar.delete(key);
    else jar.set(key, value);
  }
}

describe('an install by OAuth', () => {
  it('goes to the shop’s consent screen with a signed state cookie kept for the callback alone', async () => {
    await suite.start({ SHOPIFY_EMBEDDED: 'false' });
    const { begun } = await consented();
    expect(begun.status).toBe(302);
    const consent = new URL(begun.headers.get('location')!);
    expect(`${consent.origin}${consent.pathname}`).toBe(`https://${SHOP}/admin/oauth/authorize`);
    expect(consent.searchParams.get('client_id')).toBe(APP_KEY);
    expect(consent.searchParams.get('redirect_uri')).toMatch(/\/shopify\/auth\/callback$/);
    const state = begun.headers.getSetCookie().find((cookie) => cookie.startsWith('shopify_app_state='))!;
    expect(state.toLowerCase()).toContain('path=/shopify/auth/callback');
    expect(state.toLowerCase()).toContain('samesite=lax');
    expect(state.toLowerCase()).toContain('secure');
    expect(state.split(';')[0]).toBe(`shopify_app_state=${consent.searchParams.get('state')}`);
    expect(begun.headers.getSetCookie().some((cookie) => cookie.startsWith('shopify_app_state.sig='))).toBe(true);
  });

  it('signs the merchant in to their shop’s page, in the browser that began it, and spends the state cookie', async () => {
    await suite.start({ SHOPIFY_EMBEDDED: 'false' });
    const { callback, cookies } = await consented();
    const done = await back(callback, { cookie: cookies });
    expect(done.status).toBe(200);
    expect(await done.text()).toMatch(/<meta name="loyalty-bridge-session" content="lbp1\.shopify\./);
    expect(
      done.headers.getSetCookie().some((cookie) => /^shopify_app_state=;.*expires=Thu, 01 Jan 1970/i.test(cookie)),
    ).toBe(true);
    expect(await suite.running.bridge.engine.store.listRecords(raw('session'))).toHaveLength(1);
  });

  it('inside the admin, goes on to the dashboard', async () => {
    await suite.start({ SHOPIFY_EMBEDDED: 'true' });
    const { callback, cookies } = await consented();
    const done = await back(callback, { cookie: cookies });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/admin/?installed=${encodeURIComponent(SHOP)}`);
  });

  it('takes no code from another browser, a query not signed by Shopify, or a bot', async () => {
    await suite.start({ SHOPIFY_EMBEDDED: 'false' });
    const { callback, cookies } = await consented();
    const elsewhere = await back(callback, {});
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('This install link is not valid any more');
    const tampered = new URL(callback);
    tampered.searchParams.set('code', 'an-attackers-code');
    expect((await back(tampered, { cookie: cookies })).status).toBe(400);
    // A second code beside the signed one: Shopify's signature covers one copy, the exchange could take the other.
    const doubled = new URL(callback);
    doubled.search = `code=an-attackers-code&${callback.search.slice(1)}`;
    expect((await back(doubled, { cookie: cookies })).status).toBe(400);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'another-state');
    expect((await back(forged, { cookie: cookies })).status).toBe(400);
    expect((await back(callback, { cookie: cookies, 'user-agent': 'Googlebot/2.1' })).status).toBe(410);
    expect((await get(`/shopify/auth?shop=${SHOP}`, { 'user-agent': 'Googlebot/2.1' })).status).toBe(410);
    expect(await suite.running.bridge.engine.store.listRecords(raw('session'))).toEqual([]);
    // The browser that began it still can: nothing above spent its code.
    expect((await back(callback, { cookie: cookies })).status).toBe(200);
  });

  it('leaves the browser no state cookie for the callback once the install is done', async () => {
    await suite.start({ SHOPIFY_EMBEDDED: 'false' });
    const { callback, cookies, begun } = await consented();
    const jar = new Map<string, string>();
    applySetCookies(jar, begun.headers.getSetCookie(), '/shopify/auth');
    expect(jar.has('shopify_app_state /shopify/auth/callback')).toBe(true);
    const done = await back(callback, { cookie: cookies });
    expect(done.status).toBe(200);
    applySetCookies(jar, done.headers.getSetCookie(), callback.pathname);
    // The state is spent: the cookie the callback read and its signature are gone from the path they were kept
    // for, not only from / (a cookie is one per name and path): else the same state passes a callback for 60 s more.
    expect([...jar.keys()].filter((key) => key.startsWith('shopify_app_state'))).toEqual([]);
  });
});
