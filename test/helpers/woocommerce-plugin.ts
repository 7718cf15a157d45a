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
  expect(answer.status).toBe(200);
  return (await answer.json()) as { code: string; expiresAt: string };
}

/** The plugin's exchange, from its server: the bridge's address read from the code, as the plugin reads it. */
export function exchangeCode(code: string, siteUrl: string, adminUrl?: string): Promise<PostAnswer> {
  const bridge = Buffer.from(code.split('.')[1]!, 'base64url').toString();
  return outboundPost(
    `${bridge}/woocommerce/plugin/connect`,
    { 'content-type': 'application/json' },
    JSON.stringify({ code, siteUrl, ...(adminUrl ? { adminUrl } : {}), pluginVersion: '0.1.0' }),
    5_000,
  );
}

/** Signs in, asks a code and connects the store's plugin (its wp-admin where admin_url says): its key. */
export async function connectPlugin(
  world: WooPageWorld,
  fake: FakeWooCommerce,
  adminUrl?: string,
): Promise<PluginConnection> {
  const session = await signInByApproval(world, fake);
  const { code } = await askPluginCode(world, session);
  const answer = await exchangeCode(code, fake.url, adminUrl);
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
