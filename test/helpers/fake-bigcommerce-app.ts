// The single-click app's side of the fake BigCommerce (fake-bigcommerce.ts serves the store API): the Developer
// Portal's registration, the OAuth token exchange and the control panel's callbacks, from BigCommerce's docs
// ("Single-Click App OAuth Flow", "Single-Click App Callback Handlers"):
//   POST /oauth2/token   {client_id, client_secret, code, context, scope, grant_type: authorization_code,
//     redirect_uri} -> {access_token, scope, user, owner, context, account_uuid}; a code works once
//   installing sends the browser to the app's auth callback with code, scope, context (stores/<hash>) and
//     account_uuid; opening the app, uninstalling it and revoking a user's access call load, uninstall and
//     remove_user, each with a signed_payload_jwt of its own (HS256 with the client secret; aud, iss "bc", iat,
//     nbf, exp 24 h later, a fresh jti, sub "stores/<hash>", user, owner, url, channel_id)
//   uninstalling revokes the app's token (calls with it are then 401) and deletes the app's hooks. The docs do not
//     say whether the token goes before or after the uninstall callback: uninstall() revokes first (the app is
//     told of what happened), and revokeApp() does it alone, for a test that tells the app first
//   remove_user is called only for an app with Multiple Users enabled
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type express from 'express';
import { outbound, type PostAnswer } from './outbound-post.ts';
import type { FakeApp, FakeBigCommerce, FakeStore } from './fake-bigcommerce-store.ts';

/** What of the fake the app's side reaches: its server, its stores, and how a store gets a token. */
export interface AppSideContext {
  server: express.Express;
  stores: Map<string, FakeStore>;
  /** The store of that hash, made if it is new. */
  storeNamed(hash: string): FakeStore;
  addToken(hash: string, token: string, clientSecret: string): FakeStore;
}

export type FakeAppSide = Pick<
  FakeBigCommerce,
  'registerApp' | 'install' | 'load' | 'uninstall' | 'revokeApp' | 'removeUser' | 'signedPayload'
>;

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const ACCOUNT_UUID = '12345678-90ab-cdef-1234-567890abcdef';

/** POST /oauth2/token: a code the auth callback got, once, for the store's token with the scopes approved. */
function serveTokenExchange(
  context: AppSideContext,
  codes: Map<string, { hash: string; scope: string }>,
  registeredApp: () => FakeApp | undefined,
): void {
  context.server.post('/oauth2/token', (req, res) => {
    const body = req.body as Record<string, string>;
    const registered = registeredApp();
    if (!registered || body.client_id !== registered.clientId || body.client_secret !== registered.clientSecret)
      return void res.status(401).json({ error: 'Invalid client id or secret' });
    const issued = codes.get(body.code ?? '');
    if (
      body.grant_type !== 'authorization_code' ||
      !issued ||
      body.redirect_uri !== registered.authCallback ||
      body.context !== `stores/${issued.hash}`
    )
      return void res.status(400).json({ error: 'Invalid code' });
    codes.delete(body.code!);
    const token = randomBytes(16).toString('hex');
    context.addToken(issued.hash, token, registered.clientSecret).tokenScopes.set(token, issued.scope);
    res.json({
      access_token: token,
      scope: issued.scope,
      user: { id: 24654, username: 'merchant@example.com', email: 'merchant@example.com' },
      owner: { id: 12345, username: 'owner@example.com', email: 'owner@example.com' },
      context: `stores/${issued.hash}`,
      account_uuid: ACCOUNT_UUID,
    });
  });
}

/** A signed_payload_jwt for the app, as BigCommerce signs it for its callbacks, with claims changed as given. */
function signedPayloadOf(app: FakeApp, hash: string, claims: Record<string, unknown>, secret?: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }));
  const payload = b64url(
    JSON.stringify({
      aud: app.clientId,
      iss: 'bc',
      iat: now,
      nbf: now,
      exp: now + 86_400,
      jti: randomUUID(),
      sub: `stores/${hash}`,
      user: { id: 12345, email: 'owner@example.com', locale: 'en-US' },
      owner: { id: 12345, email: 'owner@example.com' },
      url: '/',
      channel_id: null,
      ...claims,
    }),
  );
  const signature = createHmac('sha256', secret ?? app.clientSecret)
    .update(`${header}.${payload}`)
    .digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Serves /oauth2/token on the fake's server; the callbacks are the merchant's browser, played by the returned calls. */
export function fakeAppSide(context: AppSideContext): FakeAppSide {
  const codes = new Map<string, { hash: string; scope: string }>();
  let registered: FakeApp | undefined;
  const app = () => {
    if (!registered) throw new Error('the fake BigCommerce has no app registered: call registerApp first');
    return registered;
  };

  serveTokenExchange(context, codes, () => registered);

  const signedPayload = (hash: string, claims: Record<string, unknown> = {}, secret?: string) =>
    signedPayloadOf(app(), hash, claims, secret);

  const revokeApp = (hash: string) => {
    const store = context.stores.get(hash);
    const secret = registered?.clientSecret;
    if (!store || !secret) return;
    for (const [token, holder] of store.tokens) if (holder === secret) store.tokens.delete(token);
    store.hooks.splice(0, store.hooks.length, ...store.hooks.filter((hook) => hook.signingSecret !== secret));
    for (const told of store.revoked ?? []) told(secret);
  };

  /** The merchant's browser opening one of the app's callbacks with a signed payload. */
  const callback = (address: string, jwt: string, headers: Record<string, string>) => {
    const url = new URL(address);
    url.searchParams.set('signed_payload_jwt', jwt);
    return outbound('GET', url.toString(), headers, '', 15_000);
  };

  return {
    registerApp(made) {
      registered = made;
    },
    async install(hash): Promise<PostAnswer> {
      context.storeNamed(hash);
      const code = randomBytes(8).toString('hex');
      codes.set(code, { hash, scope: app().scope });
      const url = new URL(app().authCallback);
      url.search = new URLSearchParams({
        account_uuid: ACCOUNT_UUID,
        code,
        context: `stores/${hash}`,
        scope: app().scope,
      }).toString();
      const headers = { accept: 'text/html', referer: 'https://login.bigcommerce.com/' };
      return outbound('GET', url.toString(), headers, '', 15_000);
    },
    // The merchant's browser, loading the control panel's frame, says so.
    load: (hash, jwt) =>
      callback(app().loadCallback, jwt ?? signedPayload(hash), { accept: 'text/html', 'sec-fetch-dest': 'iframe' }),
    async uninstall(hash, jwt) {
      if (!jwt) revokeApp(hash);
      return callback(app().uninstallCallback, jwt ?? signedPayload(hash), { accept: 'application/json' });
    },
    revokeApp,
    removeUser(hash, jwt) {
      const address = app().removeUserCallback;
      if (!address)
        throw new Error(
          'BigCommerce calls remove_user only for an app with Multiple Users: register a removeUserCallback',
        );
      return callback(address, jwt ?? signedPayload(hash), { accept: 'application/json' });
    },
    signedPayload,
  };
}
