// A fake BigCommerce, served over real HTTP, built from BigCommerce's
// documentation:
//   store API, per store at /stores/<hash>
//     GET v2/orders   min_date_modified, max_date_modified,
//       sort=date_modified:asc, page, limit; 204 with no body for an empty page
//     GET v2/orders/<id> (404 for no such order) and /coupons
//     GET, POST v3/hooks and PUT v3/hooks/<id>: {data, meta}
//     GET v2/store   the store's information (id, domain, secure_url,
//       control_panel_base_url, name, ...), with the Information & settings
//       scope (store_v2_information[_read_only]): an app's token without it
//       gets 403 "You don't have a required scope to access the endpoint"
//     X-Auth-Token, else 401
//     rate limits: X-Rate-Limit-Requests-Quota, -Requests-Left, -Time-Window-Ms,
//       -Time-Reset-Ms on every answer, and 429 once the window's quota is spent
//   single-click apps ("Single-Click App OAuth Flow", "Callback Handlers")
//     POST /oauth2/token   {client_id, client_secret, code, context, scope,
//       grant_type: authorization_code, redirect_uri} -> {access_token, scope,
//       user, owner, context, account_uuid}; a code works once
//     the control panel: installing sends the browser to the app's auth
//       callback with code, scope, context (stores/<hash>) and account_uuid;
//       opening the app, uninstalling it and revoking a user's access call
//       load, uninstall and remove_user, each with a signed_payload_jwt of its
//       own (HS256 with the client secret; aud, iss "bc", iat, nbf, exp 24 h
//       later, a fresh jti, sub "stores/<hash>", user, owner, url,
//       channel_id); uninstalling revokes the app's token (calls with it are
//       then 401) and deletes the app's hooks. The documentation does not say
//       whether the token goes before or after the uninstall callback:
//       uninstall() revokes first (the app is told of what happened), and
//       revokeApp() does it alone, for a test that tells the app first
//   deliveries  to every active hook of the scope: Standard Webhooks headers
//     signed with the client secret of whoever created the hook (the app, or
//     the store's API account), plus the hook's own headers
// It can also hang (the store API slow or down).
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';
import { outbound, type PostAnswer } from './outbound-post.ts';

export interface FakeHook {
  id: number;
  scope: string;
  destination: string;
  is_active: boolean;
  headers: Record<string, string> | null;
  created_at: number;
  updated_at: number;
  /** The client secret BigCommerce signs its deliveries with: the creator's. */
  signingSecret?: string | undefined;
}

export interface FakeStore {
  hash: string;
  orders: Map<number, Record<string, unknown>>;
  hooks: FakeHook[];
  /** Token to the client secret of who holds it (the store API account's, or the app's). */
  tokens: Map<string, string>;
  /** The scopes an app's token was granted (an API account's token: all, in these tests). */
  tokenScopes: Map<string, string>;
  /** The store's name, as its owner set it (Settings, Store profile); "The <hash> Shop" by default. */
  name: string;
  /** Told with an app's client secret when its access is revoked: fakes of more of the API clean up after it. */
  revoked?: Array<(clientSecret: string) => void>;
}

export interface FakeApp {
  clientId: string;
  clientSecret: string;
  authCallback: string;
  loadCallback: string;
  uninstallCallback: string;
  /** Only with Multiple Users enabled. */
  removeUserCallback?: string;
  scope: string;
}

export interface FakeBigCommerce {
  url: string;
  /**
   * The store API's router, mounted at /stores/<hash> behind the token check and rate limit: a fake of more of
   * the API (test/helpers/fake-bigcommerce-*.ts) adds its routes here, and finds the store with fakeStoreOf.
   */
  storeApi: express.Router;
  storeHash: string;
  /** The first store's orders and hooks. */
  orders: Map<number, Record<string, unknown>>;
  hooks: FakeHook[];
  stores: Map<string, FakeStore>;
  /** Answers for orders not in `orders` (a store with very many orders, for the bench). */
  orderFor: ((id: number) => Record<string, unknown> | undefined) | undefined;
  requests: Array<{ method: string; path: string; status: number; store: string }>;
  hangMs: number;
  hold(): () => void;
  readonly waiting: number;
  quota: { requests: number; windowMs: number };
  /** A store with an API account token (its client secret signs the hooks that token makes). */
  addStore(hash: string, accessToken: string, accountClientSecret?: string): FakeStore;
  /** The app as registered in the Developer Portal. */
  registerApp(app: FakeApp): void;
  /** The merchant installs the app on a store: their browser follows the auth callback. */
  install(hash: string): Promise<PostAnswer>;
  /** The merchant opens the app (the browser loads the load callback); a JWT can be given in place of BigCommerce's. */
  load(hash: string, jwt?: string): Promise<PostAnswer>;
  /**
   * The merchant uninstalls the app: BigCommerce revokes the app's token,
   * removes its hooks and calls the uninstall callback. With a JWT given, only
   * the call is made, with that JWT (a test's own request, not an uninstall).
   */
  uninstall(hash: string, jwt?: string): Promise<PostAnswer>;
  /** What uninstalling does on BigCommerce's side, alone: the app's token revoked, its hooks removed. */
  revokeApp(hash: string): void;
  /** The store owner revokes a user's access: the remove_user callback. */
  removeUser(hash: string, jwt?: string): Promise<PostAnswer>;
  /** A signed_payload_jwt for the app, with claims changed as given. */
  signedPayload(hash: string, claims?: Record<string, unknown>, secret?: string): string;
  /**
   * Posts a webhook for an order to every active hook of the scope, as
   * BigCommerce does (signWith: sign with this secret instead of the creator's;
   * null: no signature). Returns the status of each.
   */
  deliver(
    scope: string,
    orderId: number,
    options?: { signWith?: string | null; hash?: string; createdAt?: number; store?: string },
  ): Promise<number[]>;
  close(): Promise<void>;
}

/** The store a call of the store API is for, in a route added to FakeBigCommerce.storeApi. */
export const fakeStoreOf = (res: Response) => res.locals.store as FakeStore;
/** The scopes of the token a call carries; undefined for a store API account's token (all scopes, in these tests). */
export const fakeScopeOf = (res: Response) => res.locals.scope as string | undefined;

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export async function startFakeBigCommerce({
  storeHash,
  accessToken,
  accountClientSecret,
}: {
  storeHash: string;
  accessToken: string;
  accountClientSecret?: string;
}): Promise<FakeBigCommerce> {
  const stores = new Map<string, FakeStore>();
  const requests: FakeBigCommerce['requests'] = [];
  const codes = new Map<string, { hash: string; scope: string }>();
  const state = {
    hangMs: 0,
    quota: { requests: 150, windowMs: 30_000 },
    held: undefined as Promise<void> | undefined,
    waiting: 0,
    orderFor: undefined as FakeBigCommerce['orderFor'],
    app: undefined as FakeApp | undefined,
  };
  let windowStart = Date.now();
  let used = 0;
  let nextHook = 1;
  const app = express();
  app.use(express.json());

  const addStore = (hash: string, token: string, secret = randomBytes(16).toString('hex')): FakeStore => {
    const store = stores.get(hash) ?? newStore(hash);
    store.tokens.set(token, secret);
    stores.set(hash, store);
    return store;
  };
  function newStore(hash: string): FakeStore {
    return { hash, orders: new Map(), hooks: [], tokens: new Map(), tokenScopes: new Map(), name: `The ${hash} Shop` };
  }
  const primary = addStore(storeHash, accessToken, accountClientSecret);

  const router = express.Router({ mergeParams: true });
  router.use(async (req: Request, res: Response, next) => {
    if (state.hangMs > 0) await new Promise((resolve) => setTimeout(resolve, state.hangMs));
    if (state.held) {
      state.waiting++;
      await state.held;
      state.waiting--;
    }
    const now = Date.now();
    if (now - windowStart >= state.quota.windowMs) {
      windowStart = now;
      used = 0;
    }
    used++;
    const left = Math.max(0, state.quota.requests - used);
    res.set({
      'X-Rate-Limit-Requests-Quota': String(state.quota.requests),
      'X-Rate-Limit-Requests-Left': String(left),
      'X-Rate-Limit-Time-Window-Ms': String(state.quota.windowMs),
      'X-Rate-Limit-Time-Reset-Ms': String(Math.max(0, windowStart + state.quota.windowMs - now)),
    });
    const hash = String((req.params as Record<string, string>).hash);
    const log = (status: number) => requests.push({ method: req.method, path: req.path, status, store: hash });
    if (used > state.quota.requests) {
      log(429);
      return void res.status(429).json({ status: 429, title: 'Too many requests' });
    }
    const store = stores.get(hash);
    const token = req.headers['x-auth-token'];
    if (!store || typeof token !== 'string' || !store.tokens.has(token)) {
      log(401);
      return void res.status(401).json([{ status: 401, message: 'You are not authorized.' }]);
    }
    res.locals.store = store;
    res.locals.secret = store.tokens.get(token);
    res.locals.scope = store.tokenScopes.get(token);
    res.on('finish', () => log(res.statusCode));
    next();
  });
  const storeOf = fakeStoreOf;

  router.get('/v2/orders', (req, res) => {
    const query = req.query as Record<string, string>;
    const after = query.min_date_modified ? Date.parse(query.min_date_modified) : -Infinity;
    const before = query.max_date_modified ? Date.parse(query.max_date_modified) : Infinity;
    const limit = Number(query.limit ?? 50);
    const page = Number(query.page ?? 1);
    const modified = (order: Record<string, unknown>) => Date.parse(String(order.date_modified));
    const matching = [...storeOf(res).orders.values()]
      .filter((order) => modified(order) >= after && modified(order) <= before)
      .sort((a, b) => modified(a) - modified(b) || Number(a.id) - Number(b.id));
    const slice = matching.slice((page - 1) * limit, page * limit);
    if (slice.length === 0) return void res.status(204).end();
    res.json(slice);
  });
  router.get('/v2/orders/:id', (req, res) => {
    const store = storeOf(res);
    const order =
      store.orders.get(Number(req.params.id)) ??
      (store === primary ? state.orderFor?.(Number(req.params.id)) : undefined);
    if (!order) return void res.status(404).json([{ status: 404, message: 'The requested resource was not found.' }]);
    res.json(order);
  });
  router.get('/v2/orders/:id/coupons', (req, res) => {
    const order = storeOf(res).orders.get(Number(req.params.id));
    const coupons = (order?.coupons as unknown[] | undefined) ?? [];
    if (coupons.length === 0) return void res.status(204).end();
    res.json(coupons);
  });
  const hookView = ({ signingSecret: _secret, ...hook }: FakeHook) => hook;
  router.get('/v2/store', (_req, res) => {
    const scope = res.locals.scope as string | undefined;
    if (scope !== undefined && !/(^|\s)store_v2_information(_read_only)?(\s|$)/.test(scope))
      return void res
        .status(403)
        .json([{ status: 403, message: "You don't have a required scope to access the endpoint" }]);
    const store = storeOf(res);
    const domain = `${store.hash}.example`;
    res.json({
      id: store.hash,
      domain,
      secure_url: `https://${domain}`,
      control_panel_base_url: `https://store-${store.hash}.mybigcommerce.com`,
      status: 'live',
      name: store.name,
      language: 'en',
      currency: 'USD',
      plan_name: 'Standard',
    });
  });

  router.get('/v3/hooks', (_req, res) => {
    const hooks = storeOf(res).hooks;
    res.json({
      data: hooks.map(hookView),
      meta: {
        pagination: { total: hooks.length, count: hooks.length, per_page: 250, current_page: 1, total_pages: 1 },
      },
    });
  });
  router.post('/v3/hooks', (req, res) => {
    const body = req.body as Partial<FakeHook>;
    if (!body.scope || !body.destination)
      return void res.status(422).json({ status: 422, title: 'scope and destination are required' });
    const now = Math.floor(Date.now() / 1000);
    const hook: FakeHook = {
      id: nextHook++,
      scope: body.scope,
      destination: body.destination,
      is_active: body.is_active ?? true,
      headers: body.headers ?? null,
      created_at: now,
      updated_at: now,
      signingSecret: res.locals.secret as string,
    };
    storeOf(res).hooks.push(hook);
    res.json({ data: hookView(hook), meta: {} });
  });
  router.put('/v3/hooks/:id', (req, res) => {
    const hook = storeOf(res).hooks.find((candidate) => candidate.id === Number(req.params.id));
    if (!hook) return void res.status(404).json({ status: 404, title: 'Hook not found' });
    const change = Object.fromEntries(
      Object.entries(req.body as Record<string, unknown>).filter(([field]) =>
        ['scope', 'destination', 'is_active', 'headers'].includes(field),
      ),
    );
    Object.assign(hook, change, { updated_at: Math.floor(Date.now() / 1000) });
    res.json({ data: hookView(hook), meta: {} });
  });
  app.use('/stores/:hash', router);

  app.post('/oauth2/token', (req, res) => {
    const body = req.body as Record<string, string>;
    const registered = state.app;
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
    addStore(issued.hash, token, registered.clientSecret).tokenScopes.set(token, issued.scope);
    res.json({
      access_token: token,
      scope: issued.scope,
      user: { id: 24654, username: 'merchant@example.com', email: 'merchant@example.com' },
      owner: { id: 12345, username: 'owner@example.com', email: 'owner@example.com' },
      context: `stores/${issued.hash}`,
      account_uuid: '12345678-90ab-cdef-1234-567890abcdef',
    });
  });

  const signedPayload = (hash: string, claims: Record<string, unknown> = {}, secret?: string) => {
    const registered = state.app!;
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }));
    const payload = b64url(
      JSON.stringify({
        aud: registered.clientId,
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
    return `${header}.${payload}.${createHmac('sha256', secret ?? registered.clientSecret)
      .update(`${header}.${payload}`)
      .digest('base64url')}`;
  };

  const revokeApp = (hash: string) => {
    const store = stores.get(hash);
    const secret = state.app?.clientSecret;
    if (!store || !secret) return;
    for (const [token, holder] of store.tokens) if (holder === secret) store.tokens.delete(token);
    store.hooks.splice(0, store.hooks.length, ...store.hooks.filter((hook) => hook.signingSecret !== secret));
    for (const told of store.revoked ?? []) told(secret);
  };

  const http: Listening = await listen(app, 0, '127.0.0.1');
  return {
    url: http.localUrl,
    storeApi: router,
    storeHash,
    orders: primary.orders,
    hooks: primary.hooks,
    stores,
    get hangMs() {
      return state.hangMs;
    },
    set hangMs(ms: number) {
      state.hangMs = ms;
    },
    get orderFor() {
      return state.orderFor;
    },
    set orderFor(answer) {
      state.orderFor = answer;
    },
    hold() {
      let release = () => undefined as void;
      state.held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        state.held = undefined;
        release();
      };
    },
    get waiting() {
      return state.waiting;
    },
    get quota() {
      return state.quota;
    },
    set quota(value) {
      // A new quota starts a new window.
      state.quota = value;
      windowStart = Date.now();
      used = 0;
    },
    requests,
    addStore,
    registerApp(registered) {
      state.app = registered;
    },
    async install(hash) {
      const registered = state.app!;
      if (!stores.has(hash)) stores.set(hash, newStore(hash));
      const code = randomBytes(8).toString('hex');
      codes.set(code, { hash, scope: registered.scope });
      const url = new URL(registered.authCallback);
      url.search = new URLSearchParams({
        account_uuid: '12345678-90ab-cdef-1234-567890abcdef',
        code,
        context: `stores/${hash}`,
        scope: registered.scope,
      }).toString();
      return outbound(
        'GET',
        url.toString(),
        { accept: 'text/html', referer: 'https://login.bigcommerce.com/' },
        '',
        15_000,
      );
    },
    load(hash, jwt) {
      const url = new URL(state.app!.loadCallback);
      url.searchParams.set('signed_payload_jwt', jwt ?? signedPayload(hash));
      // The merchant's browser, loading the control panel's frame, says so.
      return outbound('GET', url.toString(), { accept: 'text/html', 'sec-fetch-dest': 'iframe' }, '', 15_000);
    },
    async uninstall(hash, jwt) {
      if (!jwt) revokeApp(hash);
      const url = new URL(state.app!.uninstallCallback);
      url.searchParams.set('signed_payload_jwt', jwt ?? signedPayload(hash));
      return outbound('GET', url.toString(), { accept: 'application/json' }, '', 15_000);
    },
    revokeApp,
    removeUser(hash, jwt) {
      const callback = state.app!.removeUserCallback;
      if (!callback)
        throw new Error(
          'BigCommerce calls remove_user only for an app with Multiple Users: register a removeUserCallback',
        );
      const url = new URL(callback);
      url.searchParams.set('signed_payload_jwt', jwt ?? signedPayload(hash));
      return outbound('GET', url.toString(), { accept: 'application/json' }, '', 15_000);
    },
    signedPayload,
    async deliver(scope, orderId, options = {}) {
      const statuses: number[] = [];
      const store = stores.get(options.store ?? storeHash)!;
      for (const hook of store.hooks.filter((candidate) => candidate.scope === scope && candidate.is_active)) {
        const body = JSON.stringify({
          scope,
          store_id: '1001234567',
          data: { type: 'order', id: orderId },
          hash:
            options.hash ??
            createHmac('sha1', 'bc')
              .update(JSON.stringify({ type: 'order', id: orderId }))
              .digest('hex'),
          created_at: options.createdAt ?? Math.floor(Date.now() / 1000),
          producer: `stores/${store.hash}`,
        });
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(hook.headers ?? {}) };
        const signWith = options.signWith === undefined ? hook.signingSecret : options.signWith;
        if (signWith) {
          const id = `msg_${randomUUID()}`;
          const timestamp = Math.floor(Date.now() / 1000);
          Object.assign(headers, {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${createHmac('sha256', signWith).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
          });
        }
        statuses.push((await outbound('POST', hook.destination, headers, body, 5_000)).status);
      }
      return statuses;
    },
    async close() {
      await http.close();
      http.server.closeAllConnections();
    },
  };
}
