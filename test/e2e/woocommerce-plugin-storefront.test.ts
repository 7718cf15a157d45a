// A WooCommerce customer sees their points through the WordPress plugin (docs/wordpress-plugin.md §1, §3, §4): the
// merchant connects the plugin with a one-time code from their page, turns the storefront on, and the widget the
// plugin prints asks the bridge with the plugin's identity token. What they notice: the merchant's switch says to
// connect the plugin until it is; a code pasted in another store's WordPress connects nothing; the customer the
// token names sees their own balance, found by the token's e-mail; a guest sees the ways to earn; and a token forged
// under another store's key, edited for another customer, or replayed after its five minutes is refused. Against
// the running bridge behind https, fake WooCommerce stores and the bridge's sandbox; the plugin played by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/engine.ts';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import {
  askPluginCode,
  connectPlugin,
  DISCONNECT_PURPOSE,
  exchangeCode,
  identityToken,
  pluginSigned,
  signInByApproval,
  type PluginConnection,
} from '../helpers/woocommerce-plugin.ts';
import { startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';
import { outboundPost } from '../helpers/outbound-post.ts';

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ADA = { id: 42, email: 'ada@example.com', phone: '+44 20 7946 0958' };
const GRACE = { id: 43, email: 'grace@example.com' };
/** A page of the store: its own domain, which the bridge cannot know in advance. */
const STORE_PAGE = 'https://www.plugin-store.example';

let world: WooPageWorld;
let woo: FakeWooCommerce;
let other: FakeWooCommerce;
let session: string;
let connection: PluginConnection;

const asPage = async (method: string, path: string, body?: unknown) => {
  const answer = await world.asPage(session, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, any> };
};
/** What the widget on the store's page asks, from the store's origin. */
const asCustomer = async (token?: string, query = '') => {
  const answer = await fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/points${query}`, {
    headers: { origin: STORE_PAGE, accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: answer.status, headers: answer.headers, body: (await answer.json()) as Record<string, any> };
};

describe.skipIf(!opensslAvailable)('a WooCommerce customer’s points through the WordPress plugin', () => {
  beforeAll(async () => {
    world = await startWooPageWorld(2);
    [woo, other] = world.stores as [FakeWooCommerce, FakeWooCommerce];
    session = await signInByApproval(world, woo);
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('offers the merchant the plugin to download, as WordPress uploads it', async () => {
    const shown = await asPage('GET', '/storefront');
    const download = shown.body.plugin?.download as { path: string; fileName: string; version: string };
    expect(download).toEqual({
      path: expect.stringMatching(/^\/woocommerce\/plugin\/loyalty-bridge-\d+\.\d+\.\d+\.zip$/),
      fileName: expect.stringMatching(/^loyalty-bridge-[\d.]+\.zip$/),
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      howTo: expect.stringContaining('Plugins, Add New, Upload Plugin'),
      pasteWhere: 'in WordPress (WooCommerce › Loyalty points)',
    });
    const answer = await fetch(`${world.bridge.http.localUrl}${download.path}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/zip');
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename=${download.fileName}`);
    // Read by Info-ZIP, not by the library that wrote it: one folder, the plugin's own files, no tests.
    const dir = mkdtempSync(join(tmpdir(), 'lb-plugin-zip-'));
    const file = join(dir, download.fileName);
    writeFileSync(file, Buffer.from(await answer.arrayBuffer()));
    const listed = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toContain('loyalty-bridge/loyalty-bridge.php');
    expect(listed).toContain('loyalty-bridge/includes/identity-route.php');
    expect(listed.every((entry) => entry.startsWith('loyalty-bridge/'))).toBe(true);
    expect(listed.some((entry) => /tests?\//.test(entry))).toBe(false);
    execFileSync('unzip', ['-tq', file]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the merchant to connect the plugin before the storefront turns on', async () => {
    const refused = await asPage('PUT', '/storefront', { on: true });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toContain('install and connect the Loyalty points plugin in WordPress');
  });

  it('connects the plugin with a code from the merchant’s page, in this store’s WordPress only', async () => {
    const { code, expiresAt } = await askPluginCode(world, session);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const elsewhere = await exchangeCode(code, other.url);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).not.toContain(woo.host);
    const answer = await exchangeCode(code, woo.url);
    expect(answer.status).toBe(200);
    connection = JSON.parse(answer.body) as PluginConnection;
    expect(connection.store).toBe(woo.host);
    expect((await exchangeCode(code, woo.url)).status).toBe(400);

    const on = await asPage('PUT', '/storefront', { on: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
  });

  it('serves the widget the plugin prints', async () => {
    const widget = await fetch(`${world.bridge.http.localUrl}/woocommerce/storefront/widget.js?store=${woo.host}`);
    expect(widget.status).toBe(200);
    expect(widget.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    const text = await widget.text();
    expect(text).toContain(`${world.front.url}/woocommerce/storefront/points`);
    expect(text).toContain('data-loyalty-points-panel');
    expect(text).toContain('X-WP-Nonce');
  });

  it('shows the customer the token names their own balance, and a guest the ways to earn', async () => {
    woo.orders.set(
      8001,
      JSON.parse(wooOrderJson({ id: 8001, status: 'completed', email: ADA.email })) as Record<string, unknown>,
    );
    expect(await woo.deliver('order.created', 8001)).toEqual([200]);
    await world.bridge.engine.drain();
    await eventually(async () => {
      const shown = await asCustomer(identityToken(connection, ADA));
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ customer: 'signed-in' });
      expect(shown.body.balance.available + shown.body.balance.pending).toBeGreaterThan(0);
    }, 20_000);
    const ada = await asCustomer(identityToken(connection, ADA));
    expect(ada.headers.get('access-control-allow-origin')).toBe(STORE_PAGE);
    expect(ada.headers.get('access-control-allow-credentials')).toBeNull();
    const grace = await asCustomer(identityToken(connection, GRACE));
    expect(grace.body).toMatchObject({ customer: 'signed-in', balance: { available: 0, pending: 0 } });

    const guest = await asCustomer(undefined, `?store=${encodeURIComponent(woo.host)}`);
    expect(guest.status).toBe(200);
    expect(guest.body).toMatchObject({ customer: 'guest', signIn: true });
    expect(guest.body.balance).toBeUndefined();
  }, 30_000);

  it('refuses a token forged, edited for another customer, or replayed after its five minutes', async () => {
    const otherConnection = await connectPlugin(world, other);
    const old = Math.floor(Date.now() / 1000) - 301;
    const [, adaSig] = identityToken(connection, ADA).split('.');
    const edited = `${identityToken(connection, GRACE).split('.')[0]}.${adaSig}`;
    for (const token of [
      // Under another store's key, naming this store.
      identityToken({ ...connection, key: otherConnection.key }, ADA),
      identityToken({ ...otherConnection, store: woo.host }, ADA),
      edited,
      identityToken(connection, ADA, { iat: old - 300, exp: old }),
    ]) {
      const refused = await asCustomer(token);
      expect(refused.status).toBe(401);
      expect(refused.body.balance).toBeUndefined();
    }
  }, 30_000);

  it('forgets the plugin’s key when the plugin disconnects, signed for that alone', async () => {
    const disconnect = (signed: { payload: string; sig: string }) =>
      outboundPost(
        `${world.front.url}/woocommerce/plugin/disconnect`,
        { 'content-type': 'application/json' },
        JSON.stringify(signed),
        5_000,
      );
    const fields = { purpose: 'disconnect', store: woo.host, keyId: connection.keyId };
    const now = Math.floor(Date.now() / 1000);
    // Another purpose's signature (an identity token's), or one replayed later, disconnects nothing.
    const [payload, identitySig] = identityToken(connection, ADA).split('.') as [string, string];
    expect((await disconnect({ payload, sig: identitySig })).status).toBe(400);
    const stale = pluginSigned(DISCONNECT_PURPOSE, { ...fields, iat: now - 600 }, connection.key);
    expect((await disconnect(stale)).status).toBe(400);
    expect((await asCustomer(identityToken(connection, ADA))).status).toBe(200);
    // The plugin's own: the key is forgotten, and what it signs opens nothing any more.
    const answer = await disconnect(pluginSigned(DISCONNECT_PURPOSE, { ...fields, iat: now }, connection.key));
    expect(answer.status).toBe(200);
    expect((await asCustomer(identityToken(connection, ADA))).status).toBe(401);
    // Without its plugin the store cannot show points: the merchant's switch is off, and says so.
    expect((await asPage('GET', '/storefront')).body).toMatchObject({ on: false });
    // Connected again: a new key; the merchant turns the storefront on again, and it answers again.
    connection = await connectPlugin(world, woo);
    expect((await asPage('PUT', '/storefront', { on: true })).status).toBe(200);
    expect((await asCustomer(identityToken(connection, ADA))).status).toBe(200);
  }, 30_000);
});
