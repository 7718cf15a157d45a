// The fake Shopify's OAuth (fake-shopify.ts serves it), from Shopify's documentation:
//   OAuth (authorization code grant): GET /admin/oauth/authorize shows a
//     consent page; approving it sends the merchant to redirect_uri with code,
//     hmac (hex HMAC-SHA256 of the other parameters, sorted, with the client
//     secret), host, shop, state and timestamp
//   POST /admin/oauth/access_token:
//     code (+ expiring=1)      an offline token; expiring: 60 minutes, with a
//                              refresh token (refresh_token_expires_in 90 days)
//     grant_type=client_credentials   a token valid 86399 s; 400
//                              app_not_installed once the app was uninstalled
//     grant_type=refresh_token        new access and refresh tokens; the old
//                              refresh token stays valid until the new access
//                              token is first used (Shopify, August 2026)
//     grant_type=urn:ietf:params:oauth:grant-type:token-exchange (token
//                              exchange, embedded apps): subject_token is the
//                              session token App Bridge gave (an HS256 JWT signed
//                              with the client secret: aud the client id, dest
//                              https://<shop>, exp, nbf), subject_token_type
//                              urn:ietf:params:oauth:token-type:id_token,
//                              requested_token_type ...:offline-access-token and,
//                              with expiring=1, the same expiring answer as a
//                              code; only for a shop the app is installed on (a
//                              managed install, or an approved consent)
//     errors: 400 {"error": "invalid_grant" | "invalid_client" | "invalid_subject_token", "error_description"}
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { shopOf, type FakeShopify, type FakeShopifyContext } from './fake-shopify-shop.ts';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const OFFLINE_TOKEN = 'urn:shopify:params:oauth:token-type:offline-access-token';

const token = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/** Shopify's check of a session token given to token exchange: HS256 with the client secret, for this app and shop, within its lifetime. */
function sessionTokenProblem(
  jwt: string,
  { apiKey, apiSecret, shop, nowS }: { apiKey: string; apiSecret: string; shop: string; nowS: number },
): string | undefined {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const expected = createHmac('sha256', apiSecret).update(`${header}.${payload}`).digest('base64url');
  if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return 'signature';
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if ((JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string }).alg !== 'HS256')
      return 'alg';
  } catch {
    return 'malformed';
  }
  if (claims.aud !== apiKey) return 'aud';
  if (claims.dest !== `https://${shop}`) return 'dest';
  if (typeof claims.exp !== 'number' || claims.exp < nowS) return 'exp';
  if (typeof claims.nbf !== 'number' || claims.nbf > nowS) return 'nbf';
  return undefined;
}

/** An access token for the shop, kept until it expires (null: never) or the app is uninstalled. */
function issue(context: FakeShopifyContext, shopName: string, expiresInS: number | null, replacedRefresh?: string) {
  const accessToken = token('shpat');
  context.tokens.set(accessToken, {
    shop: shopName,
    expiresAt: expiresInS === null ? null : context.now() + expiresInS * 1000,
    ...(replacedRefresh ? { replacedRefresh } : {}),
  });
  return accessToken;
}

/** An expiring offline token with its refresh token; a refresh names the refresh token it replaces. */
function expiringAnswer(context: FakeShopifyContext, name: string, replacedRefresh?: string) {
  const ttl = context.options.accessTokenTtlS ?? 3600;
  const refreshToken = token('shprt');
  context.shop(name).refreshTokens.add(refreshToken);
  return {
    access_token: issue(context, name, ttl, replacedRefresh),
    scope: context.settings.scopes,
    expires_in: ttl,
    refresh_token: refreshToken,
    refresh_token_expires_in: 90 * 86_400,
  };
}

type Grant = { answer: Record<string, unknown> } | { error: string; description: string };

/** An offline token for a code or a session token: expiring when asked for (expiring=1), else one that never expires. */
const offlineAnswer = (context: FakeShopifyContext, name: string, body: Record<string, string>): Grant => ({
  answer:
    body.expiring === '1'
      ? expiringAnswer(context, name)
      : { access_token: issue(context, name, null), scope: context.settings.scopes },
});

function tokenExchange(context: FakeShopifyContext, name: string, body: Record<string, string>): Grant {
  if (body.subject_token_type !== ID_TOKEN)
    return { error: 'invalid_request', description: `subject_token_type must be ${ID_TOKEN}` };
  const { apiKey, apiSecret } = context.options;
  const nowS = Math.floor(context.now() / 1000);
  const problem = sessionTokenProblem(body.subject_token ?? '', { apiKey, apiSecret, shop: name, nowS });
  if (problem) return { error: 'invalid_subject_token', description: `The session token is not valid (${problem}).` };
  if (!context.shop(name).installed)
    return { error: 'invalid_subject_token', description: 'The app is not installed on this shop.' };
  if (body.requested_token_type !== OFFLINE_TOKEN)
    return { error: 'invalid_request', description: 'requested_token_type is not one this fake serves' };
  return offlineAnswer(context, name, body);
}

/** What the token endpoint answers a grant of the app's own client. */
function grant(context: FakeShopifyContext, name: string, body: Record<string, string>): Grant {
  const theShop = context.shop(name);
  if (body.grant_type === TOKEN_EXCHANGE) return tokenExchange(context, name, body);
  if (body.grant_type === 'client_credentials') {
    if (theShop.uninstalled)
      return { error: 'app_not_installed', description: 'The application is not installed on this shop.' };
    return {
      answer: { access_token: issue(context, name, 86_399), scope: context.settings.scopes, expires_in: 86_399 },
    };
  }
  if (body.grant_type === 'refresh_token') {
    if (!theShop.refreshTokens.has(body.refresh_token ?? ''))
      return { error: 'invalid_grant', description: 'Token has been expired or revoked.' };
    return { answer: expiringAnswer(context, name, body.refresh_token) };
  }
  if (!theShop.codes.delete(body.code ?? ''))
    return { error: 'invalid_grant', description: 'The authorization code is invalid or was used already.' };
  return offlineAnswer(context, name, body);
}

/** The consent page and its approval, which installs the app and sends the merchant back with a signed code. */
function serveConsent(router: express.Router, context: FakeShopifyContext): void {
  const { apiKey, apiSecret } = context.options;
  router.get('/admin/oauth/authorize', (req, res) => {
    const query = new URLSearchParams(req.query as Record<string, string>);
    if (query.get('client_id') !== apiKey) return void res.status(400).send('unknown client_id');
    res
      .type('html')
      .send(
        `<!doctype html><title>Install app</title><h1>Install loyalty-bridge on ${shopOf(req)}</h1>` +
          `<p>It asks for: ${query.get('scope') ?? ''}</p>` +
          `<form method="get" action="approve">${[...query].map(([name, value]) => `<input type="hidden" name="${name}" value="${value.replace(/"/g, '&quot;')}">`).join('')}` +
          `<button id="install" type="submit">Install app</button></form>`,
      );
  });
  router.get('/admin/oauth/approve', (req, res) => {
    const query = req.query as Record<string, string>;
    const name = shopOf(req);
    const code = token('code');
    const approved = context.shop(name);
    approved.codes.add(code);
    approved.installed = true;
    approved.uninstalled = false;
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${name.split('.')[0]}`).toString('base64'),
      shop: name,
      state: query.state ?? '',
      timestamp: String(Math.floor(context.now() / 1000)),
    };
    const message = new URLSearchParams(
      Object.keys(params)
        .sort()
        .map((key): [string, string] => [key, params[key] ?? '']),
    ).toString();
    const hmac = createHmac('sha256', apiSecret).update(message).digest('hex');
    res.redirect(302, `${query.redirect_uri}?${message}&hmac=${hmac}`);
  });
}

/** The token endpoint: every request kept as received, then the client checked and the grant answered. */
function serveTokenEndpoint(router: express.Router, context: FakeShopifyContext): void {
  const { apiKey, apiSecret } = context.options;
  router.post(
    '/admin/oauth/access_token',
    express.json(),
    express.urlencoded({ extended: false }),
    (req: Request, res: Response) => {
      const name = shopOf(req);
      const body = req.body as Record<string, string>;
      const what = `token:${body.grant_type === TOKEN_EXCHANGE ? 'token_exchange' : (body.grant_type ?? 'code')}`;
      context.tokenRequests.push({ shop: name, body: { ...body } });
      const given =
        body.client_id !== apiKey || body.client_secret !== apiSecret
          ? { error: 'invalid_client', description: 'Client authentication failed' }
          : grant(context, name, body);
      context.requests.push({ shop: name, what, status: 'answer' in given ? 200 : 400 });
      if ('answer' in given) return void res.json(given.answer);
      res.status(400).json({ error: given.error, error_description: given.description });
    },
  );
}

export function serveOAuth(router: express.Router, context: FakeShopifyContext): void {
  serveConsent(router, context);
  serveTokenEndpoint(router, context);
}

/** Installs and uninstalls done by Shopify or the merchant, and tokens issued outside OAuth. */
export function installs(context: FakeShopifyContext): Pick<FakeShopify, 'registerToken' | 'install' | 'uninstall'> {
  return {
    registerToken: (value, name) => void context.tokens.set(value, { shop: name, expiresAt: null }),
    install(name) {
      context.shop(name).installed = true;
      context.shop(name).uninstalled = false;
    },
    uninstall(name) {
      const removed = context.shop(name);
      removed.installed = false;
      removed.uninstalled = true;
      removed.refreshTokens.clear();
      for (const [value, held] of context.tokens) if (held.shop === name) context.tokens.delete(value);
    },
  };
}
