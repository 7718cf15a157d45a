// The merchant's page opened from wp-admin through the WordPress plugin (adapters/woocommerce/plugin-door.ts,
// docs/wordpress-plugin.md §2): the bridge starts the door, ties it to this browser with a nonce cookie, and opens
// the page only for the plugin's signature of that nonce, brought back by the browser holding it. A finish link
// handed to another browser (no cookie, or a cookie of its own) opens nothing; nor a signature made for another
// purpose, an old one, one under another store's key, or a nonce used already. Against the running bridge behind
// https and fake WooCommerce stores, the browser and the plugin played by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import {
  askPluginCode,
  connectPlugin,
  DOOR_PURPOSE,
  exchangeCode,
  IDENTITY_PURPOSE,
  type PluginConnection,
  pluginSigned,
  signInByApproval,
} from '../helpers/woocommerce-plugin.ts';
import { sessionIn, startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';
import { raw } from '../helpers/raw-records.ts';

let world: WooPageWorld;
let woo: FakeWooCommerce;
let other: FakeWooCommerce;
let wooKey: PluginConnection;
let otherKey: PluginConnection;

/** The browser follows the plugin's menu link: the cookie the bridge set, and the nonce wp-admin receives. */
async function startDoor(fake: FakeWooCommerce): Promise<{ cookie: string; nonce: string; location: URL }> {
  const answer = await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(fake.host)}`);
  expect(answer.status).toBe(303);
  const location = new URL(answer.headers.get('location')!);
  return {
    cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0]!,
    nonce: location.searchParams.get('nonce')!,
    location,
  };
}

/** What the plugin's admin-post handler sends the browser to: the nonce signed for the door. */
function finishLink(
  connection: PluginConnection,
  nonce: string,
  fields: Record<string, unknown> = {},
  { purpose = DOOR_PURPOSE, key = connection.key } = {},
): string {
  const { payload, sig } = pluginSigned(
    purpose,
    {
      purpose: 'merchant-door',
      store: connection.store,
      keyId: connection.keyId,
      nonce,
      user: 1,
      iat: Math.floor(Date.now() / 1000),
      ...fields,
    },
    key,
  );
  return `/woocommerce/plugin-door/finish?payload=${payload}&sig=${sig}`;
}

/** The site's administrator opens the store's page through the plugin's door: its session. */
async function administratorSession(fake: FakeWooCommerce, connection: PluginConnection): Promise<string> {
  const { cookie, nonce } = await startDoor(fake);
  return (await sessionIn(await world.browse(finishLink(connection, nonce, { mayConnect: true }), cookie)))!;
}

/** The site's administrator connects the plugin again: a code asked through the plugin's door, then exchanged. */
async function connectAgain(
  fake: FakeWooCommerce,
  connection: PluginConnection,
  adminUrl?: string,
): Promise<PluginConnection> {
  const { code } = await askPluginCode(world, await administratorSession(fake, connection));
  const answer = await exchangeCode(code, fake.url, adminUrl);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as PluginConnection;
}

async function expectRefused(path: string, cookie?: string) {
  const answer = await world.browse(path, cookie);
  expect(answer.status).toBe(401);
  expect(await sessionIn(answer)).toBeUndefined();
}

describe.skipIf(!opensslAvailable)('the merchant’s door from wp-admin', () => {
  beforeAll(async () => {
    world = await startWooPageWorld(2);
    [woo, other] = world.stores as [FakeWooCommerce, FakeWooCommerce];
    wooKey = await connectPlugin(world, woo);
    otherKey = await connectPlugin(world, other);
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('opens the store’s page in the browser that started it, once', async () => {
    const { cookie, nonce, location } = await startDoor(woo);
    expect(`${location.origin}${location.pathname}`).toBe(`${woo.url}/wp-admin/admin-post.php`);
    expect(location.searchParams.get('action')).toBe('loyalty_bridge_door');
    // The cookie's secret is not the nonce that travels through wp-admin, and cannot be learnt from it.
    expect(cookie).toMatch(/^__Host-loyalty-bridge-door=[\w-]{43}$/);
    expect(cookie).not.toContain(nonce);
    const link = finishLink(wooKey, nonce);
    const answer = await world.browse(link, cookie);
    expect(answer.status).toBe(200);
    const session = await sessionIn(answer);
    expect(session).toBeDefined();
    expect(await (await world.asPage(session!, '/session')).json()).toMatchObject({ caller: 'shop', shop: woo.host });
    // The nonce is used: the same link, even in the same browser, opens nothing again.
    await expectRefused(link, cookie);
  }, 30_000);

  it('sets its cookie first-party, secure, for five minutes', async () => {
    const answer = await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(woo.host)}`);
    expect(answer.headers.get('set-cookie')).toMatch(
      /^__Host-loyalty-bridge-door=[\w-]{43}; Max-Age=300; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('opens nothing for a finish link handed to another browser', async () => {
    const mine = await startDoor(woo);
    const link = finishLink(wooKey, mine.nonce);
    // A browser with no cookie (the link sent to a victim), and one with a door of its own under way.
    await expectRefused(link);
    const theirs = await startDoor(woo);
    await expectRefused(link, theirs.cookie);
    await expectRefused(link, '__Host-loyalty-bridge-door=' + 'x'.repeat(43));
    // A signed link that reached a browser without its nonce is burnt: a page that sent a signed-in manager through
    // the plugin with an attacker's nonce (the attacker holding its cookie) leaves the attacker nothing to use. The
    // right browser starts again, and that works.
    await expectRefused(link, mine.cookie);
    const again = await startDoor(woo);
    expect((await world.browse(finishLink(wooKey, again.nonce), again.cookie)).status).toBe(200);
  }, 30_000);

  it('burns an attacker’s nonce that a manager’s browser was sent through the plugin with', async () => {
    // The attacker starts a door in their own browser (they hold its cookie), then sends a signed-in manager to the
    // plugin with that nonce: the plugin signs it, and the manager's browser lands on the finish without the cookie.
    const attacker = await startDoor(woo);
    const signedForTheManager = finishLink(wooKey, attacker.nonce);
    await expectRefused(signedForTheManager);
    // Had the attacker learnt the link (a log, a referrer), it opens nothing in their browser either.
    await expectRefused(signedForTheManager, attacker.cookie);
  }, 30_000);

  it('opens nothing for a signature made for another purpose, or an old one', async () => {
    const { cookie, nonce } = await startDoor(woo);
    // The identity token's HMAC over the same payload.
    await expectRefused(finishLink(wooKey, nonce, {}, { purpose: IDENTITY_PURPOSE }), cookie);
    // The door's HMAC over a payload that says another purpose.
    await expectRefused(finishLink(wooKey, nonce, { purpose: 'storefront-identity' }), cookie);
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(finishLink(wooKey, nonce, { iat: now - 121 }), cookie);
    await expectRefused(finishLink(wooKey, nonce, { iat: now + 121 }), cookie);
    // Still unused: the plugin's own signature opens it.
    expect((await world.browse(finishLink(wooKey, nonce), cookie)).status).toBe(200);
  }, 30_000);

  it('opens nothing under another store’s key', async () => {
    const { cookie, nonce } = await startDoor(woo);
    // Naming this store under the other's key, with either key id.
    await expectRefused(finishLink(wooKey, nonce, {}, { key: otherKey.key }), cookie);
    await expectRefused(finishLink(wooKey, nonce, { keyId: otherKey.keyId }, { key: otherKey.key }), cookie);
    // The other store's own signature of this store's nonce: its administrator opens nothing of this store's.
    await expectRefused(finishLink(otherKey, nonce), cookie);
  }, 30_000);

  it('gives connection codes only to who may connect the plugin: a code is the store’s key to whoever holds it', async () => {
    const sessionThroughDoor = async (fields: Record<string, unknown>) => {
      const { cookie, nonce } = await startDoor(woo);
      return (await sessionIn(await world.browse(finishLink(wooKey, nonce, fields), cookie)))!;
    };
    const askCode = (session: string) => world.asPage(session, '/storefront/plugin-code', { method: 'POST' });
    // A shop manager through the plugin (it signs mayConnect false), a plugin that does not say, and a sign-in by
    // WooCommerce's approval (which a shop manager may give) while the plugin is connected: no code.
    for (const session of [
      await sessionThroughDoor({ mayConnect: false }),
      await sessionThroughDoor({}),
      await signInByApproval(world, woo),
    ]) {
      const refused = await askCode(session);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { errors: string[] }).errors[0]).toMatch(/administrator/);
    }
    // The site's administrator, through the plugin.
    expect((await askCode(await sessionThroughDoor({ mayConnect: true }))).status).toBe(200);
  }, 30_000);

  it('opens nothing after the plugin was connected again (its earlier key)', async () => {
    const earlier = await connectAgain(woo, wooKey);
    const { cookie, nonce } = await startDoor(woo);
    wooKey = await connectAgain(woo, earlier);
    await expectRefused(finishLink(earlier, nonce), cookie);
    expect((await world.browse(finishLink(wooKey, nonce), cookie)).status).toBe(200);
  }, 30_000);

  it('sends the browser to the wp-admin the plugin named, on the site’s own address only', async () => {
    // WordPress in a directory of its own: admin_url() is not under the site's address.
    const inDirectory = await connectAgain(woo, wooKey, `${woo.url}/wp/wp-admin/`);
    const { location } = await startDoor(woo);
    expect(`${location.origin}${location.pathname}`).toBe(`${woo.url}/wp/wp-admin/admin-post.php`);
    expect(inDirectory.keyId).not.toBe(wooKey.keyId);
    wooKey = inDirectory;
    // A wp-admin elsewhere is refused at connect: the door would send merchants' browsers there.
    const { code } = await askPluginCode(world, await administratorSession(woo, wooKey));
    const answer = await exchangeCode(code, woo.url, 'https://elsewhere.example/wp-admin/');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 'adminUrl must be on the site’s own address' });
  }, 30_000);

  it('keeps nothing for a start: any number of them pushes no merchant’s door out', async () => {
    const merchant = await startDoor(woo);
    const doorRecords = async () => (await world.bridge.engine.store.listRecords(raw('woo-plugin-door'))).length;
    const before = await doorRecords();
    for (let i = 0; i < 60; i += 1) await startDoor(woo);
    expect(await doorRecords()).toBe(before);
    expect((await world.browse(finishLink(wooKey, merchant.nonce), merchant.cookie)).status).toBe(200);
  }, 30_000);

  it('opens only the store the door was started for, whichever store’s plugin signs its nonce', async () => {
    // A door started to this store (the merchant's), its nonce signed by the other store's plugin (an
    // administrator there who learnt it): nothing opens, and the nonce is spent.
    const { cookie, nonce } = await startDoor(woo);
    await expectRefused(finishLink(otherKey, nonce), cookie);
    await expectRefused(finishLink(wooKey, nonce), cookie);
  }, 30_000);

  it('starts no door for a store whose plugin is not connected', async () => {
    const answer = await world.browse('/woocommerce/plugin-door?store=unknown.example');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('set-cookie')).toBeNull();
  });
});
