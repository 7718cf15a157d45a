// The WordPress plugin's side of docs/wordpress-plugin.md, played by hand against a WooPageWorld's bridge: the
// merchant signs in to their store's page (the /wc-auth approval), asks for a connection code, and the plugin
// exchanges it for its key; then what the plugin signs with that key (the door's return, the identity token),
// each made as its PHP makes it: HMAC-SHA256 over "<purpose>.<payload base64url>" under the 32 bytes of the key.
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { FakeWooCommerce } from './fake-woocommerce.ts';
import { outboundPost, type PostAnswer } from './outbound-post.ts';
import { onBridge, sessionIn, type WooPageWorld } from './woocommerce-store-page.ts';
import { answerConsent } from './wordpress-merchant.ts';

export const DOOR_PURPOSE = 'loyalty-bridge merchant-door v1';
export const IDENTITY_PURPOSE = 'loyalty-bridge identity v1';
export const DISCONNECT_PURPOSE = 'loyalty-bridge disconnect v1';

export interface PluginConnection {
  store: string;
  keyId: string;
  key: string;
}

/** The merchant signs in to their store's page through WordPress: the session the page gets. */
export async function signInByApproval(world: WooPageWorld, fake: FakeWooCommerce): Promise<string> {
  const { cookie, authorizeUrl } = await world.open(fake.url);
  const back = await answerConsent(authorizeUrl, 'approve');
  const answer = await world.browse(onBridge(back), cookie);
  expect(answer.status).toBe(200);
  return (await sessionIn(answer))!;
}

/** The code the merchant's page shows, asked with its session. */
export async function askPluginCode(
  world: WooPageWorld,
  session: string,
): Promise<{ code: string; expiresAt: string }> {
  const answer = await world.asPage(session, '/storefront/plugin-code', { method: 'POST' });
  expect(answer.status, await answer.clone().text()).toBe(200);
  return (await answer.json()) as { code: string; expiresAt: string };
}

/** The plugin's exchange, from its server: the bridge's address read from the code, as the plugin reads it. */
export async function exchangeCode(code: string, siteUrl: string, adminUrl?: string): Promise<PostAnswer> {
  const bridge = Buffer.from(code.split('.')[1]!, 'base64url').toString();
  const answer = await outboundPost(
    `${bridge}/woocommerce/plugin/connect`,
    { 'content-type': 'application/json' },
    JSON.stringify({ code, siteUrl, ...(adminUrl ? { adminUrl } : {}), pluginVersion: '0.1.0' }),
    5_000,
  );
  if (answer.status === 200) connected.set(connectionKey(bridge, siteUrl), JSON.parse(answer.body) as PluginConnection);
  return answer;
}

/** Each bridge's stores' plugin connections, as the last exchange made them. */
const connected = new Map<string, PluginConnection>();
const connectionKey = (bridge: string, siteUrl: string) => `${bridge} ${new URL(siteUrl).host}`;

/** A connection a test made by posting to the connect route itself, so later codes are asked with its key. */
export function rememberConnection(world: WooPageWorld, fake: FakeWooCommerce, connection: PluginConnection): void {
  connected.set(connectionKey(world.front.url, fake.url), connection);
}

/**
 * The store's page opened by the site's administrator through the plugin's door (the plugin signs that they may
 * connect it): the session. The door's cookie and nonce come from the bridge, the finish signed with `connection`.
 */
export async function administratorSession(
  world: WooPageWorld,
  fake: FakeWooCommerce,
  connection: PluginConnection,
): Promise<string> {
  const session = await doorSession(world, fake, connection);
  expect(session).toBeDefined();
  return session!;
}

/** The door's session for the store's administrator, or undefined when the bridge refuses the connection's key. */
async function doorSession(
  world: WooPageWorld,
  fake: FakeWooCommerce,
  connection: PluginConnection,
): Promise<string | undefined> {
  const started = await world.browse(`/woocommerce/plugin-door?store=${encodeURIComponent(fake.host)}`);
  const location = started.headers.get('location');
  if (started.status !== 303 || !location) return undefined;
  const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
  const nonce = new URL(location).searchParams.get('nonce')!;
  const fields = { purpose: 'merchant-door', store: connection.store, keyId: connection.keyId, nonce, user: 1 };
  const { payload, sig } = pluginSigned(
    DOOR_PURPOSE,
    { ...fields, mayConnect: true, iat: Math.floor(Date.now() / 1000) },
    connection.key,
  );
  const opened = await world.browse(`/woocommerce/plugin-door/finish?payload=${payload}&sig=${sig}`, cookie);
  return opened.status === 200 ? await sessionIn(opened) : undefined;
}

/**
 * A code asked as whoever may have one now: the site's administrator through the plugin's door while its last
 * key is live, else (never connected, or disconnected since) the approval's session.
 */
export async function pluginCodeFor(world: WooPageWorld, fake: FakeWooCommerce): Promise<string> {
  const earlier = connected.get(connectionKey(world.front.url, fake.url));
  const session = (earlier && (await doorSession(world, fake, earlier))) || (await signInByApproval(world, fake));
  return (await askPluginCode(world, session)).code;
}

/**
 * Asks a code and connects the store's plugin (its wp-admin where admin_url says): its key. The first time, signed
 * in by WooCommerce's approval; once connected, codes are for the site's administrator, through the plugin's door.
 */
export async function connectPlugin(
  world: WooPageWorld,
  fake: FakeWooCommerce,
  adminUrl?: string,
): Promise<PluginConnection> {
  const answer = await exchangeCode(await pluginCodeFor(world, fake), fake.url, adminUrl);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as PluginConnection;
}

/** "<payload base64url>" and its signature for a purpose, under a key. */
export function pluginSigned(purpose: string, fields: Record<string, unknown>, key: string) {
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return {
    payload,
    sig: createHmac('sha256', Buffer.from(key, 'base64url')).update(`${purpose}.${payload}`).digest('base64url'),
  };
}

/** The identity token the plugin's REST route answers for a signed-in customer. */
export function identityToken(
  connection: PluginConnection,
  customer: { id: number; email: string; phone?: string },
  fields: Record<string, unknown> = {},
  purpose = IDENTITY_PURPOSE,
): string {
  const iat = Math.floor(Date.now() / 1000);
  const { payload, sig } = pluginSigned(
    purpose,
    {
      purpose: 'storefront-identity',
      store: connection.store,
      keyId: connection.keyId,
      customerId: String(customer.id),
      email: customer.email,
      // She proved it with the plugin's link (email-proof.php); a test of an unproven address says false.
      emailProven: true,
      ...(customer.phone ? { phone: customer.phone } : {}),
      iat,
      exp: iat + 300,
      ...fields,
    },
    connection.key,
  );
  return `${payload}.${sig}`;
}

/** The plugin's Disconnect in wp-admin, as its PHP sends it (docs/wordpress-plugin.md §5): the bridge's answer. */
export function disconnectPlugin(world: WooPageWorld, connection: PluginConnection, iat = Date.now() / 1000) {
  const fields = { purpose: 'disconnect', store: connection.store, keyId: connection.keyId, iat: Math.floor(iat) };
  return outboundPost(
    `${world.front.url}/woocommerce/plugin/disconnect`,
    { 'content-type': 'application/json' },
    JSON.stringify(pluginSigned(DISCONNECT_PURPOSE, fields, connection.key)),
    5_000,
  );
}
