// Forging, replaying and redirecting the WordPress plugin's routes (docs/wordpress-plugin.md §1, §2, §5), beyond the
// door's own tests (woocommerce-plugin-door.test.ts) and the storefront's (e2e/woocommerce-plugin-storefront): a
// connection code replayed, taken to another store's site, or sent with a wp-admin address that would make the
// door send merchants' browsers elsewhere (another host, user info, backslashes, a port, plain http); bodies past
// the cap and JSON of odd types; a disconnect replayed after a reconnect, signed for another purpose, or for
// another store. Every refusal names no secret: the code and the key appear in no answer but the key's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { outboundPost } from '../helpers/outbound-post.ts';
import {
  connectPlugin,
  DISCONNECT_PURPOSE,
  DOOR_PURPOSE,
  exchangeCode,
  IDENTITY_PURPOSE,
  type PluginConnection,
  pluginCodeFor,
  pluginSigned,
  rememberConnection,
} from '../helpers/woocommerce-plugin.ts';
import { type WooPageWorld, startWooPageWorld } from '../helpers/woocommerce-store-page.ts';

let world: WooPageWorld;
let woo: FakeWooCommerce;
let other: FakeWooCommerce;

const connectUrl = () => `${world.front.url}/woocommerce/plugin/connect`;
const postJson = (url: string, body: string) => outboundPost(url, { 'content-type': 'application/json' }, body, 5_000);

const freshCode = (fake: FakeWooCommerce): Promise<string> => pluginCodeFor(world, fake);

/** Where the door sends the browser for the store: the wp-admin the plugin's connect named. */
async function doorGoesTo(fake: FakeWooCommerce): Promise<URL> {
  const answer = await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(fake.host)}`);
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

function disconnect(signed: unknown) {
  return postJson(`${world.front.url}/woocommerce/plugin/disconnect`, JSON.stringify(signed));
}

function disconnectSigned(
  connection: PluginConnection,
  fields: Record<string, unknown> = {},
  purpose: string = DISCONNECT_PURPOSE,
  key = connection.key,
) {
  return pluginSigned(
    purpose,
    {
      purpose: 'disconnect',
      store: connection.store,
      keyId: connection.keyId,
      iat: Math.floor(Date.now() / 1000),
      ...fields,
    },
    key,
  );
}

describe.skipIf(!opensslAvailable)('the WordPress plugin’s routes against forgery and replay', () => {
  beforeAll(async () => {
    world = await startWooPageWorld(2);
    [woo, other] = world.stores as [FakeWooCommerce, FakeWooCommerce];
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('takes a code once, for its own store only, and names no secret in a refusal', async () => {
    const code = await freshCode(woo);
    // Taken to another store's site: refused, and not burnt for its own.
    const elsewhere = await exchangeCode(code, other.url);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).not.toContain(code.split('.')[2]);
    expect(elsewhere.body).not.toContain(woo.host);
    const first = await exchangeCode(code, woo.url);
    expect(first.status).toBe(200);
    const { key } = JSON.parse(first.body) as PluginConnection;
    // Replayed, from the right site or another: refused, naming neither the code nor the key.
    for (const site of [woo.url, other.url]) {
      const again = await exchangeCode(code, site);
      expect(again.status).toBe(400);
      expect(JSON.parse(again.body)).toEqual({
        error: 'this code is unknown or was used: ask for a new one on your loyalty page',
      });
      expect(again.body).not.toContain(key);
    }
    // Two at once of a fresh code: one key.
    const racing = await freshCode(woo);
    const both = await Promise.all([exchangeCode(racing, woo.url), exchangeCode(racing, woo.url)]);
    expect(both.map((a) => a.status).sort()).toEqual([200, 400]);
  }, 30_000);

  it('refuses a wp-admin address that would send the door elsewhere, and the code still works', async () => {
    const code = await freshCode(woo);
    const site = new URL(woo.url);
    const otherPort = `${site.protocol}//${site.hostname}:${Number(site.port || 443) + 1}/wp-admin/`;
    const adminUrls = [
      'https://elsewhere.example/wp-admin/',
      `https://${site.host}@elsewhere.example/wp-admin/`,
      // User info on the site's own host: not in its origin, but the door would hand it to every browser.
      `${site.protocol}//user:pass@${site.host}/wp-admin/`,
      `https://${site.host}:x@elsewhere.example/wp-admin/`,
      `https://elsewhere.example\\@${site.host}/wp-admin/`,
      `https://elsewhere.example\\${site.host}/wp-admin/`,
      `//elsewhere.example/wp-admin/`,
      `/\\elsewhere.example/wp-admin/`,
      otherPort,
      // The other scheme (the fake store is on http; a store on https is refused http the same way).
      `${site.protocol === 'http:' ? 'https' : 'http'}://${site.host}/wp-admin/`,
      `${woo.url}/wp-admin/?next=https://elsewhere.example/`,
      `${woo.url}/wp-admin/#https://elsewhere.example/`,
      `javascript:alert(1)//${site.host}/`,
      `data:text/html,${site.host}`,
    ];
    for (const adminUrl of adminUrls) {
      const answer = await postJson(connectUrl(), JSON.stringify({ code, siteUrl: woo.url, adminUrl }));
      expect(answer.status, adminUrl).toBe(400);
      expect(answer.body).not.toContain(code.split('.')[2]);
    }
    // A site address with user info, or not a web address at all, names no store.
    for (const siteUrl of [`https://user:pass@${site.host}`, 'javascript:alert(1)', 'file:///etc/passwd', '']) {
      const answer = await postJson(connectUrl(), JSON.stringify({ code, siteUrl }));
      expect(answer.status, siteUrl).toBe(400);
    }
    // None of the refusals spent the code; the door goes to the site's own wp-admin.
    expect((await exchangeCode(code, woo.url)).status).toBe(200);
    const door = await doorGoesTo(woo);
    expect(`${door.origin}${door.pathname}`).toBe(`${woo.url}/wp-admin/admin-post.php`);
    expect(door.username).toBe('');
  }, 30_000);

  it('reads no body past its cap and no JSON of the wrong shape', async () => {
    const code = await freshCode(woo);
    const big = JSON.stringify({ code, siteUrl: woo.url, padding: 'x'.repeat(5000) });
    const tooBig = await postJson(connectUrl(), big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).not.toContain(code.split('.')[2]);
    const odd = [
      'not json',
      'null',
      '[]',
      JSON.stringify([code, woo.url]),
      JSON.stringify({ code: [code], siteUrl: woo.url }),
      JSON.stringify({ code: { toString: code }, siteUrl: woo.url }),
      JSON.stringify({ code, siteUrl: [woo.url] }),
      JSON.stringify({ code, siteUrl: 42 }),
      JSON.stringify({ code, siteUrl: woo.url, adminUrl: null }),
      JSON.stringify({ code, siteUrl: woo.url, adminUrl: [`${woo.url}/wp-admin/`] }),
      JSON.stringify({ code: `${code}x`, siteUrl: woo.url }),
      `{"__proto__":{"code":${JSON.stringify(code)},"siteUrl":${JSON.stringify(woo.url)}}}`,
    ];
    for (const body of odd) {
      const answer = await postJson(connectUrl(), body);
      expect(answer.status, body).toBe(400);
      expect(answer.body).not.toContain(code.split('.')[2]);
    }
    // Extra fields are ignored and a strange pluginVersion is not kept: the code still exchanges once.
    const answer = await postJson(
      connectUrl(),
      JSON.stringify({ code, siteUrl: woo.url, pluginVersion: '<script>', store: other.host, keyId: 'mine' }),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ store: woo.host });
    expect(JSON.parse(answer.body).keyId).not.toBe('mine');
    rememberConnection(world, woo, JSON.parse(answer.body) as PluginConnection);
  }, 30_000);

  it('disconnects only for the plugin’s own fresh signature of the key that is live', async () => {
    const earlier = await connectPlugin(world, woo);
    const wooKey = await connectPlugin(world, woo);
    const otherKey = await connectPlugin(world, other);
    const refusedWith = async (signed: unknown) => {
      const answer = await disconnect(signed);
      expect(answer.status).toBe(400);
      for (const secret of [wooKey.key, otherKey.key, earlier.key]) expect(answer.body).not.toContain(secret);
    };
    // The earlier key (a backup's copy): its own disconnect, fresh, removes nothing.
    await refusedWith(disconnectSigned(earlier));
    // Signed for the door or the identity token, under the live key.
    await refusedWith(disconnectSigned(wooKey, {}, DOOR_PURPOSE));
    await refusedWith(disconnectSigned(wooKey, {}, IDENTITY_PURPOSE));
    await refusedWith(disconnectSigned(wooKey, { purpose: 'merchant-door' }));
    // Under the other store's key, naming this store; and this store's signature naming the other.
    await refusedWith(disconnectSigned(wooKey, { keyId: otherKey.keyId }, DISCONNECT_PURPOSE, otherKey.key));
    await refusedWith(disconnectSigned(otherKey, {}, DISCONNECT_PURPOSE, wooKey.key));
    // Stale, from the future, or with an iat that is not a number.
    const now = Math.floor(Date.now() / 1000);
    await refusedWith(disconnectSigned(wooKey, { iat: now - 121 }));
    await refusedWith(disconnectSigned(wooKey, { iat: now + 121 }));
    await refusedWith(disconnectSigned(wooKey, { iat: String(now) }));
    // Odd bodies.
    for (const body of [null, [], { payload: 1, sig: 2 }, { payload: 'x', sig: 'y' }]) await refusedWith(body);
    // The door still opens for both stores: nothing above disconnected anything.
    await doorGoesTo(woo);
    await doorGoesTo(other);
    // The plugin's own disconnect works; replayed after a reconnect it removes nothing of the new key.
    const own = disconnectSigned(wooKey);
    expect((await disconnect(own)).status).toBe(200);
    expect((await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(woo.host)}`)).status).toBe(404);
    await connectPlugin(world, woo);
    await refusedWith(own);
    await doorGoesTo(woo);
    await doorGoesTo(other);
  }, 30_000);
});
