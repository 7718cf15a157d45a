// A fake Shopify, served over real HTTP, built from Shopify's documentation
// of what the bridge uses:
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
//   POST /admin/api/<version>/graphql.json with X-Shopify-Access-Token: 401
//     for an unknown or expired token; the cost bucket in extensions.cost and
//     THROTTLED errors; the documents themselves are executed on Shopify's
//     published schema of that version (fake-shopify-admin.ts), with its
//     scope, protected-data, subscription and bulk-operation rules
//     customer(id): the record's defaultEmailAddress and defaultPhoneNumber;
//     without read_customers no data and one ACCESS_DENIED error, as Shopify
//     answers a root field the app may not read
//     code discounts (write_discounts, fake-shopify-discounts.ts): made, found
//     by code, counted and deleted through the API; useCode is an order paying
//     with one, counted in asyncUsageCount only once the clock moves or
//     countUses() runs (Shopify counts uses asynchronously)
//   GET <bulk operation url>: the JSONL result, without the Admin API token
//   deliveries: one per subscription to the topic, the app's (toml) ones
//     included, each with its own X-Shopify-Webhook-Id and one
//     X-Shopify-Event-Id; a named subscription's with X-Shopify-Name (toml
//     subscriptions may be named: Shopify changelog, February 2026)
// Requests name their shop by a path prefix (/shop/<shop>/...) or, for a
// browser sent here by host resolver rules, by their Host header.
import { isLosslessNumber, parse, stringify } from 'lossless-json';
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';
import {
  executeShopifyAdmin,
  type FakeBulkOperation,
  type FakeCodeDiscount,
  type FakeSubscription,
  type ProtectedDataGrant,
} from './fake-shopify-admin.ts';
import { countUses, useCode, type Checkout } from './fake-shopify-discounts.ts';

export interface FakeShopifyOptions {
  apiKey: string;
  apiSecret: string;
  /** The scopes the app is granted, comma-separated as Shopify writes them. */
  scopes?: string;
  /** The app's configured webhook API version (Dev Dashboard, or [webhooks] api_version in shopify.app.toml). */
  webhookApiVersion?: string;
  /** Seconds an expiring offline token lives. */
  accessTokenTtlS?: number;
  /** A TLS key and certificate, for a browser to reach the consent page at https://<shop>. */
  tls?: { key: string; cert: string };
}

interface Token {
  shop: string;
  expiresAt: number | null;
  /** The refresh token this access token replaced: that one dies when this one is first used. */
  replacedRefresh?: string;
}

export interface FakeShop {
  orders: Map<string, Record<string, unknown>>;
  /** Customer records by numeric id, in the Admin API's shapes (shopifyCustomerNode). */
  customers: Map<string, Record<string, unknown>>;
  subscriptions: FakeSubscription[];
  bulkOperations: Map<string, FakeBulkOperation>;
  mostBulkAtOnce: number;
  /** Code discounts (discountCodeBasicCreate's) by their number. */
  codeDiscounts: Map<string, FakeCodeDiscount>;
  /** A use lands in asyncUsageCount at once (the best case); by default only when countUses() runs. */
  usesCountedAtOnce?: boolean;
  /** Codes handed out by the consent page, not yet exchanged. */
  codes: Set<string>;
  /** Refresh tokens still valid. */
  refreshTokens: Set<string>;
  /** The app is installed on the shop: by Shopify itself (managed installation) or an approved consent screen. */
  installed: boolean;
  /** The merchant removed the app (uninstall()): the client credentials grant is refused, app_not_installed, until it is installed again. */
  uninstalled?: boolean;
}

export interface FakeShopify {
  url: string;
  /** The HTTPS port, when started with TLS. */
  httpsPort: number | undefined;
  adminUrl(shop: string): string;
  shop(shop: string): FakeShop;
  /** Every request to the API or token endpoint, in order: what, for which shop, with which token. */
  requests: Array<{ shop: string; what: string; token?: string | undefined; status: number }>;
  /** The body of every token request, as received (client secret included: this is Shopify's side). */
  tokenRequests: Array<{ shop: string; body: Record<string, string> }>;
  /** Now, as the fake sees it: tests move it forward to expire tokens; a move lets Shopify's late counts land. */
  clock: { offsetMs: number };
  /** Contact details withheld: protected customer data not granted (false), or granted for the fields named. */
  protectedDataGranted: ProtectedDataGrant;
  /** Orders older than 60 days are refused without read_all_orders. */
  readAllOrders: boolean;
  /** A token Shopify issued some other way (a legacy custom app's, shown once in its admin). */
  registerToken(token: string, shop: string): void;
  /** Shopify installs the app on the shop by itself (managed installation, from the app's configured scopes). */
  install(shop: string): void;
  /** The merchant removes the app: Shopify revokes every token it issued for the shop (access and refresh). */
  uninstall(shop: string): void;
  /**
   * A customer's cart pays with a discount code, as Shopify's checkout takes it: refused (false) when the code is
   * expired or not started, used up, not for that customer (its context), above the cart's subtotal (its minimum),
   * or with another order discount when either does not combine with order discounts; otherwise its use is
   * counted, in asyncUsageCount only once countUses() runs or the clock moves (unless the shop counts at once).
   */
  useCode(shop: string, code: string, customerId: string, cart: Omit<Checkout, 'customerId'>): boolean;
  /** Shopify's asynchronous count of code uses runs: asyncUsageCount catches up, in every shop. */
  countUses(): void;
  /** The shop's code discounts, as it holds them. */
  discounts(shop: string): FakeCodeDiscount[];
  /** The next n API calls are throttled. */
  throttleNext(n: number): void;
  /** The next n API calls answer this status. */
  failNext(status: number, n: number): void;
  /** API calls hang for this long (0: answer at once). */
  hangMs: number;
  /**
   * Called for each Admin API operation (by its name) before it runs and after it ran, before the answer goes:
   * a promise it answers holds the call there (kill tests stop the caller while a call is held).
   */
  holdAt: ((operation: string, phase: 'before' | 'after') => Promise<void> | undefined) | undefined;
  /** The scopes granted now (the token answers and currentAppInstallation tell them). */
  scopes: string;
  /** The app's configured webhook API version, which every subscription gets. */
  webhookApiVersion: string;
  /** Status answers a bulk operation stays RUNNING for. */
  bulkPolls: number;
  /** The next bulk operation ends FAILED with this BulkOperationErrorCode. */
  bulkFailNext: string | undefined;
  /** A pause between the result's lines, for a slow download. */
  bulkChunkDelayMs: number;
  /** The storage answers a result's URL with a 302 to this origin, same path (a misbehaving storage or proxy). */
  bulkResultsRedirectTo: string | undefined;
  /** App-scoped subscriptions (declared in shopify.app.toml): they deliver, but the webhookSubscriptions query does not list them; a named one sends its name (X-Shopify-Name). */
  appSubscriptions: Array<{
    topic: string;
    uri: string;
    includeFields?: readonly string[] | undefined;
    name?: string | undefined;
  }>;
  /**
   * An event on a shop, as Shopify sends it: one delivery per subscription
   * to the topic (the shop's and the app's), each with its own webhook id,
   * all with the same event id. Answers each delivery's HTTP status and result.
   */
  deliver(shop: string, topic: string, body: string): Promise<Array<{ status: number; result: string | undefined }>>;
  close(): Promise<void>;
}

const shopOf = (req: Request): string => {
  const prefixed = /^\/shop\/([^/]+)\//.exec(req.originalUrl)?.[1];
  return (prefixed ?? String(req.headers.host ?? '').split(':')[0] ?? '').toLowerCase();
};

const token = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const OFFLINE_TOKEN = 'urn:shopify:params:oauth:token-type:offline-access-token';

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

export async function startFakeShopify(options: FakeShopifyOptions): Promise<FakeShopify> {
  const ttl = options.accessTokenTtlS ?? 3600;
  const shops = new Map<string, FakeShop>();
  const tokens = new Map<string, Token>();
  const requests: FakeShopify['requests'] = [];
  const tokenRequests: FakeShopify['tokenRequests'] = [];
  let offsetMs = 0;
  const clock = {
    get offsetMs() {
      return offsetMs;
    },
    set offsetMs(value: number) {
      // Time passes: Shopify's asynchronous count of code uses has run.
      if (value !== offsetMs) for (const each of shops.values()) countUses(each);
      offsetMs = value;
    },
  };
  const now = () => Date.now() + clock.offsetMs;
  let throttled = 0;
  let failing: { status: number; count: number } = { status: 0, count: 0 };
  const state = {
    protectedDataGranted: true as ProtectedDataGrant,
    hangMs: 0,
    holdAt: undefined as FakeShopify['holdAt'],
    readAllOrders: false,
    scopes: options.scopes ?? 'read_orders',
    webhookApiVersion: options.webhookApiVersion ?? '2026-10',
    bulkPolls: 2,
    bulkFailNext: undefined as string | undefined,
    bulkChunkDelayMs: 0,
    bulkResultsRedirectTo: undefined as string | undefined,
  };
  let ids = 1000;
  const appSubscriptions: FakeShopify['appSubscriptions'] = [];

  const shop = (name: string): FakeShop => {
    let found = shops.get(name);
    if (!found) {
      found = {
        orders: new Map(),
        customers: new Map(),
        subscriptions: [],
        bulkOperations: new Map(),
        mostBulkAtOnce: 0,
        codeDiscounts: new Map(),
        codes: new Set(),
        refreshTokens: new Set(),
        installed: false,
      };
      shops.set(name, found);
    }
    return found;
  };

  const issue = (shopName: string, expiresInS: number | null, replacedRefresh?: string) => {
    const accessToken = token('shpat');
    tokens.set(accessToken, {
      shop: shopName,
      expiresAt: expiresInS === null ? null : now() + expiresInS * 1000,
      ...(replacedRefresh ? { replacedRefresh } : {}),
    });
    return accessToken;
  };

  const app = express();
  const router = express.Router();

  // --- OAuth: the consent page and the approval.
  router.get('/admin/oauth/authorize', (req, res) => {
    const query = new URLSearchParams(req.query as Record<string, string>);
    if (query.get('client_id') !== options.apiKey) return void res.status(400).send('unknown client_id');
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
    shop(name).codes.add(code);
    shop(name).installed = true;
    shop(name).uninstalled = false;
    const params: Record<string, string> = {
      code,
      host: Buffer.from(`admin.shopify.com/store/${name.split('.')[0]}`).toString('base64'),
      shop: name,
      state: query.state ?? '',
      timestamp: String(Math.floor(now() / 1000)),
    };
    const message = new URLSearchParams(
      Object.keys(params)
        .sort()
        .map((key): [string, string] => [key, params[key] ?? '']),
    ).toString();
    const hmac = createHmac('sha256', options.apiSecret).update(message).digest('hex');
    res.redirect(302, `${query.redirect_uri}?${message}&hmac=${hmac}`);
  });

  // --- The token endpoint.
  router.post(
    '/admin/oauth/access_token',
    express.json(),
    express.urlencoded({ extended: false }),
    (req: Request, res: Response) => {
      const name = shopOf(req);
      const body = req.body as Record<string, string>;
      const what = `token:${body.grant_type === TOKEN_EXCHANGE ? 'token_exchange' : (body.grant_type ?? 'code')}`;
      tokenRequests.push({ shop: name, body: { ...body } });
      const deny = (error: string, description: string) => {
        requests.push({ shop: name, what, status: 400 });
        res.status(400).json({ error, error_description: description });
      };
      if (body.client_id !== options.apiKey || body.client_secret !== options.apiSecret)
        return deny('invalid_client', 'Client authentication failed');
      const theShop = shop(name);
      let answer: Record<string, unknown>;
      const expiringAnswer = () => {
        const refreshToken = token('shprt');
        theShop.refreshTokens.add(refreshToken);
        return {
          access_token: issue(name, ttl),
          scope: state.scopes,
          expires_in: ttl,
          refresh_token: refreshToken,
          refresh_token_expires_in: 90 * 86_400,
        };
      };
      if (body.grant_type === TOKEN_EXCHANGE) {
        if (body.subject_token_type !== ID_TOKEN)
          return deny('invalid_request', 'subject_token_type must be urn:ietf:params:oauth:token-type:id_token');
        const problem = sessionTokenProblem(body.subject_token ?? '', {
          apiKey: options.apiKey,
          apiSecret: options.apiSecret,
          shop: name,
          nowS: Math.floor(now() / 1000),
        });
        if (problem) return deny('invalid_subject_token', `The session token is not valid (${problem}).`);
        if (!theShop.installed) return deny('invalid_subject_token', 'The app is not installed on this shop.');
        if (body.requested_token_type !== OFFLINE_TOKEN)
          return deny('invalid_request', 'requested_token_type is not one this fake serves');
        answer = body.expiring === '1' ? expiringAnswer() : { access_token: issue(name, null), scope: state.scopes };
      } else if (body.grant_type === 'client_credentials') {
        if (theShop.uninstalled) return deny('app_not_installed', 'The application is not installed on this shop.');
        answer = { access_token: issue(name, 86_399), scope: state.scopes, expires_in: 86_399 };
      } else if (body.grant_type === 'refresh_token') {
        if (!theShop.refreshTokens.has(body.refresh_token ?? ''))
          return deny('invalid_grant', 'Token has been expired or revoked.');
        const refreshToken = token('shprt');
        theShop.refreshTokens.add(refreshToken);
        answer = {
          access_token: issue(name, ttl, body.refresh_token),
          scope: state.scopes,
          expires_in: ttl,
          refresh_token: refreshToken,
          refresh_token_expires_in: 90 * 86_400,
        };
      } else {
        if (!theShop.codes.delete(body.code ?? ''))
          return deny('invalid_grant', 'The authorization code is invalid or was used already.');
        answer = body.expiring === '1' ? expiringAnswer() : { access_token: issue(name, null), scope: state.scopes };
      }
      requests.push({ shop: name, what, status: 200 });
      res.json(answer);
    },
  );

  // --- The Admin GraphQL API.
  router.post('/admin/api/:version/graphql.json', express.json(), async (req: Request, res: Response) => {
    const name = shopOf(req);
    const given = String(req.headers['x-shopify-access-token'] ?? '');
    const body = req.body as { query: string; variables?: Record<string, unknown> };
    const operation = /(query|mutation)\s+(\w+)/.exec(body.query)?.[2] ?? 'anonymous';
    const log = (status: number) => requests.push({ shop: name, what: operation, token: given, status });
    if (state.hangMs > 0) await new Promise((resolve) => setTimeout(resolve, state.hangMs));
    await state.holdAt?.(operation, 'before');
    if (failing.count > 0) {
      failing.count--;
      log(failing.status);
      return void res.status(failing.status).json({ errors: 'Internal error' });
    }
    const held = tokens.get(given);
    if (!held || held.shop !== name || (held.expiresAt !== null && held.expiresAt <= now())) {
      log(401);
      return void res
        .status(401)
        .json({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    }
    // The first use of a refreshed token ends the refresh token it replaced.
    if (held.replacedRefresh) {
      shop(name).refreshTokens.delete(held.replacedRefresh);
      delete held.replacedRefresh;
    }
    const cost = (requested: number, available = 1900) => ({
      cost: {
        requestedQueryCost: requested,
        actualQueryCost: requested,
        throttleStatus: { maximumAvailable: 2000, currentlyAvailable: available, restoreRate: 100 },
      },
    });
    if (throttled > 0) {
      throttled--;
      log(200);
      return void res.json({
        errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }],
        extensions: cost(202, 10),
      });
    }
    log(200);
    const version = String(req.params.version);
    let result;
    try {
      result = await executeShopifyAdmin(
        {
          shopName: name,
          shop: shop(name),
          scopes: new Set(
            state.scopes
              .split(',')
              .map((scope) => scope.trim())
              .filter(Boolean),
          ),
          protectedDataGranted: state.protectedDataGranted,
          readAllOrders: state.readAllOrders,
          webhookApiVersion: state.webhookApiVersion,
          bulkPolls: state.bulkPolls,
          bulkLimit: 5,
          takeBulkFailure: () => {
            const failure = state.bulkFailNext;
            state.bulkFailNext = undefined;
            return failure;
          },
          bulkUrl: (id) => `${http.localUrl}/bulk-results/${name}/${id.split('/').pop()}.jsonl`,
          nowMs: now(),
          newId: () => ++ids,
          currency: 'EUR',
        },
        version,
        body.query,
        body.variables ?? {},
      );
    } catch (error) {
      // No schema for that version: Shopify answers 404 for a version it does not serve.
      return void res.status(404).json({ errors: `Not Found (${(error as Error).message})` });
    }
    const requested =
      operation === 'LoyaltyBridgeOrders'
        ? 2 + Number((body.variables ?? {}).first ?? 50) * 2
        : operation === 'LoyaltyBridgeOrder'
          ? 20
          : 10;
    await state.holdAt?.(operation, 'after');
    res.json({ ...result, extensions: cost(requested) });
  });

  // Bulk results live on storage the URL names, not behind the Admin API token.
  router.get('/bulk-results/:shop/:id.jsonl', async (req, res) => {
    const operation = shop(String(req.params.shop)).bulkOperations.get(`gid://shopify/BulkOperation/${req.params.id}`);
    if (!operation || operation.status !== 'COMPLETED') return void res.status(404).send('NoSuchKey');
    if (state.bulkResultsRedirectTo) return void res.redirect(302, `${state.bulkResultsRedirectTo}${req.originalUrl}`);
    if (state.bulkChunkDelayMs === 0)
      return void res.type('application/jsonl').send(operation.lines.map((line) => `${line}\n`).join(''));
    // Line by line with a pause between: a download that takes longer than any fixed limit, never quiet for long.
    res.type('application/jsonl');
    for (const line of operation.lines) {
      res.write(`${line}\n`);
      await new Promise((resolve) => setTimeout(resolve, state.bulkChunkDelayMs));
    }
    res.end();
  });

  app.use('/shop/:shop', router);
  app.use(router);
  const http: Listening = await listen(app, 0, '127.0.0.1');
  let https: HttpsServer | undefined;
  if (options.tls) {
    https = createHttpsServer(options.tls, app);
    await new Promise<void>((resolve) => https!.listen(0, '127.0.0.1', resolve));
  }

  return {
    url: http.localUrl,
    httpsPort: https ? (https.address() as AddressInfo).port : undefined,
    adminUrl: (name) => `${http.localUrl}/shop/${name}`,
    shop,
    requests,
    tokenRequests,
    clock,
    get protectedDataGranted() {
      return state.protectedDataGranted;
    },
    set protectedDataGranted(value: ProtectedDataGrant) {
      state.protectedDataGranted = value;
    },
    get readAllOrders() {
      return state.readAllOrders;
    },
    set readAllOrders(value: boolean) {
      state.readAllOrders = value;
    },
    get hangMs() {
      return state.hangMs;
    },
    set hangMs(value: number) {
      state.hangMs = value;
    },
    get holdAt() {
      return state.holdAt;
    },
    set holdAt(value: FakeShopify['holdAt']) {
      state.holdAt = value;
    },
    get scopes() {
      return state.scopes;
    },
    set scopes(value: string) {
      state.scopes = value;
    },
    get webhookApiVersion() {
      return state.webhookApiVersion;
    },
    set webhookApiVersion(value: string) {
      state.webhookApiVersion = value;
    },
    get bulkFailNext() {
      return state.bulkFailNext;
    },
    set bulkFailNext(value: string | undefined) {
      state.bulkFailNext = value;
    },
    get bulkChunkDelayMs() {
      return state.bulkChunkDelayMs;
    },
    set bulkChunkDelayMs(value: number) {
      state.bulkChunkDelayMs = value;
    },
    get bulkPolls() {
      return state.bulkPolls;
    },
    get bulkResultsRedirectTo() {
      return state.bulkResultsRedirectTo;
    },
    set bulkResultsRedirectTo(origin: string | undefined) {
      state.bulkResultsRedirectTo = origin;
    },
    set bulkPolls(value: number) {
      state.bulkPolls = value;
    },
    appSubscriptions,
    async deliver(name, topic, body) {
      const enumTopic = topic.replace('/', '_').toUpperCase();
      const targets = [
        ...shop(name).subscriptions.filter((subscription) => subscription.topic === enumTopic),
        ...appSubscriptions.filter((subscription) => subscription.topic === topic),
      ];
      const eventId = randomUUID();
      const statuses: Array<{ status: number; result: string | undefined }> = [];
      for (const target of targets) {
        // An app subscription's include_fields: the payload holds only those fields (dotted paths reach into objects and arrays).
        const sent =
          'includeFields' in target && target.includeFields
            ? (stringify(onlyFields(parse(body), target.includeFields)) ?? '')
            : body;
        const response = await fetch(target.uri, {
          method: 'POST',
          body: sent,
          headers: {
            'content-type': 'application/json',
            'x-shopify-hmac-sha256': createHmac('sha256', options.apiSecret).update(sent).digest('base64'),
            'x-shopify-topic': topic,
            'x-shopify-shop-domain': name,
            'x-shopify-api-version': 'apiVersion' in target ? String(target.apiVersion) : state.webhookApiVersion,
            'x-shopify-webhook-id': randomUUID(),
            'x-shopify-event-id': eventId,
            'x-shopify-triggered-at': new Date(now()).toISOString(),
            ...('name' in target && target.name ? { 'x-shopify-name': target.name } : {}),
          },
        });
        const answer = (await response.json().catch(() => ({}))) as { result?: string };
        statuses.push({ status: response.status, result: answer.result });
      }
      return statuses;
    },
    registerToken: (value, name) => void tokens.set(value, { shop: name, expiresAt: null }),
    install(name) {
      shop(name).installed = true;
      shop(name).uninstalled = false;
    },
    uninstall(name) {
      const removed = shop(name);
      removed.installed = false;
      removed.uninstalled = true;
      removed.refreshTokens.clear();
      for (const [value, held] of tokens) if (held.shop === name) tokens.delete(value);
    },
    useCode: (name, code, customerId, cart) => useCode(shop(name), code, { ...cart, customerId }, now()),
    countUses: () => shops.forEach((each) => countUses(each)),
    discounts: (name) => [...shop(name).codeDiscounts.values()],
    throttleNext: (n) => void (throttled = n),
    failNext: (status, n) => void (failing = { status, count: n }),
    async close() {
      await http.close();
      http.server.closeAllConnections();
      if (https) await new Promise<void>((resolve) => https!.close(() => resolve()));
    },
  };
}

/**
 * A payload cut down to include_fields, as Shopify documents it ("Webhooks
 * delivery structure"): only the listed paths, "customer.email" keeping the
 * customer with that one field, through arrays ("refunds.id" from every refund).
 */
export function onlyFields(payload: unknown, paths: readonly string[]): unknown {
  const pick = (value: unknown, wanted: string[][]): unknown => {
    if (Array.isArray(value)) return value.map((item) => pick(item, wanted));
    if (typeof value !== 'object' || value === null || isLosslessNumber(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const here = wanted.filter((path) => path[0] === key);
      if (here.length === 0) continue;
      out[key] = here.some((path) => path.length === 1)
        ? item
        : pick(
            item,
            here.map((path) => path.slice(1)),
          );
    }
    return out;
  };
  return pick(
    payload,
    paths.map((path) => path.split('.')),
  );
}

/** A GraphQL Order node, as the Admin API answers it. */
export function shopifyOrderNode(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `gid://shopify/Order/${id}`,
    legacyResourceId: id,
    name: `#${id.slice(-4)}`,
    email: 'ada@example.com',
    phone: null,
    test: false,
    createdAt: '2026-11-10T10:00:00Z',
    updatedAt: '2026-11-10T12:00:00Z',
    cancelledAt: null,
    displayFinancialStatus: 'PAID',
    displayFulfillmentStatus: 'UNFULFILLED',
    sourceName: 'web',
    totalPriceSet: {
      shopMoney: { amount: '42.00', currencyCode: 'EUR' },
      presentmentMoney: { amount: '42.00', currencyCode: 'EUR' },
    },
    subtotalPriceSet: { shopMoney: { amount: '42.00' } },
    totalDiscountsSet: { shopMoney: { amount: '0.0' } },
    discountCodes: [],
    customAttributes: [{ key: 'loyalty_campaign', value: '8' }],
    customer: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      defaultEmailAddress: { emailAddress: 'ada@example.com' },
      defaultPhoneNumber: { phoneNumber: '+44 7911 123456' },
      defaultAddress: { countryCodeV2: 'GB' },
    },
    billingAddress: { firstName: 'Ada', lastName: 'Lovelace', phone: null, countryCodeV2: 'GB' },
    shippingAddress: null,
    customerJourneySummary: { firstVisit: { landingPage: 'https://shop.example/?loyalty_campaign=8' } },
    refunds: [],
    ...overrides,
  };
}

/** A digest of a token, for asserting a token never appears somewhere without printing it. */
export const tokenDigest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 12);

/**
 * @shopify/shopify-api always calls https://<shop>/admin/oauth/access_token:
 * nock catches those calls and passes them on, over HTTP, to the fake.
 */
export async function routeTokenEndpointToFake(fake: FakeShopify): Promise<void> {
  const { default: nock } = await import('nock');
  nock(/\.myshopify\.com(:443)?$/)
    .persist()
    .post('/admin/oauth/access_token')
    .reply(async function (this: { req: { headers: Record<string, string> } }, uri: string, body: unknown) {
      const shopName = String(this.req.headers.host ?? '').split(':')[0] ?? '';
      const response = await fetch(`${fake.adminUrl(shopName)}${uri}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return [response.status, await response.text(), { 'content-type': 'application/json' }];
    });
}

/** A customer record as the Admin API's Customer type holds it (2026-10): contact under defaultEmailAddress and defaultPhoneNumber. */
export function shopifyCustomerNode(
  id: string,
  { email, phone, verifiedEmail = true }: { email?: string | null; phone?: string | null; verifiedEmail?: boolean },
): Record<string, unknown> {
  return {
    id: `gid://shopify/Customer/${id}`,
    verifiedEmail,
    defaultEmailAddress: email ? { emailAddress: email, validFormat: true } : null,
    defaultPhoneNumber: phone ? { phoneNumber: phone } : null,
  };
}
