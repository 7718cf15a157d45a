// A fake BigCommerce, served over real HTTP, built from BigCommerce's documentation. This file serves the store
// API; the app's side (OAuth, the control panel's callbacks) is fake-bigcommerce-app.ts, the deliveries to hooks
// fake-bigcommerce-deliveries.ts, and more of the API fake-bigcommerce-*.ts (each adds its routes to storeApi):
//   store API, per store at /stores/<hash>
//     GET v2/orders   min_date_modified, max_date_modified,
//       sort=date_modified:asc, page, limit; 204 with no body for an empty page
//     GET v2/orders/<id> (404 for no such order) and /coupons
//     GET, POST v3/hooks and PUT v3/hooks/<id>: {data, meta}
//     GET v2/store   the store's information (id, domain, secure_url,
//       control_panel_base_url, name, currency: "Default currency code", ...), with the Information & settings
//       scope (store_v2_information[_read_only]): an app's token without it
//       gets 403 "You don't have a required scope to access the endpoint"
//     X-Auth-Token, else 401
//     rate limits: X-Rate-Limit-Requests-Quota, -Requests-Left, -Time-Window-Ms,
//       -Time-Reset-Ms on every answer, and 429 once the window's quota is spent; a window per store, "shared
//       across all apps accessing a store" (https://docs.bigcommerce.com/developer/docs/overview/api-fundamentals/rate-limits)
// It can also hang (the store API slow or down).
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';
import { fakeAppSide } from './fake-bigcommerce-app.ts';
import { defaultChannel, serveChannels } from './fake-bigcommerce-channels.ts';
import { deliverToHooks } from './fake-bigcommerce-deliveries.ts';
import {
  fakeScopeOf,
  fakeStoreOf,
  type FakeBigCommerce,
  type FakeHook,
  type FakeStore,
} from './fake-bigcommerce-store.ts';

export * from './fake-bigcommerce-store.ts';

/** What the fake's store API keeps between calls: its slowness, its rate limit's window, its stores. */
interface ApiState {
  stores: Map<string, FakeStore>;
  requests: FakeBigCommerce['requests'];
  hangMs: number;
  quota: { requests: number; windowMs: number };
  /** Each store's window: when it started, and the requests it counted. */
  windows: Map<string, { start: number; used: number }>;
  held: Promise<void> | undefined;
  waiting: number;
}

/** Every call of the store API: slowed or held where a test says, counted against the quota, then its token. */
function storeApiGate(state: ApiState): express.RequestHandler {
  return async (req: Request, res: Response, next) => {
    if (state.hangMs > 0) await new Promise((resolve) => setTimeout(resolve, state.hangMs));
    if (state.held) {
      state.waiting++;
      await state.held;
      state.waiting--;
    }
    const now = Date.now();
    const hash = String((req.params as Record<string, string>).hash);
    let window = state.windows.get(hash);
    if (!window || now - window.start >= state.quota.windowMs)
      state.windows.set(hash, (window = { start: now, used: 0 }));
    window.used++;
    res.set({
      'X-Rate-Limit-Requests-Quota': String(state.quota.requests),
      'X-Rate-Limit-Requests-Left': String(Math.max(0, state.quota.requests - window.used)),
      'X-Rate-Limit-Time-Window-Ms': String(state.quota.windowMs),
      'X-Rate-Limit-Time-Reset-Ms': String(Math.max(0, window.start + state.quota.windowMs - now)),
    });
    const log = (status: number) => state.requests.push({ method: req.method, path: req.path, status, store: hash });
    if (window.used > state.quota.requests) {
      log(429);
      return void res.status(429).json({ status: 429, title: 'Too many requests' });
    }
    const store = state.stores.get(hash);
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
  };
}

/** V2 orders and their coupons; `extra` answers for orders of the first store it does not hold. */
function serveOrders(router: express.Router, primary: FakeStore, extra: () => FakeBigCommerce['orderFor']): void {
  router.get('/v2/orders', (req, res) => {
    const query = req.query as Record<string, string>;
    const after = query.min_date_modified ? Date.parse(query.min_date_modified) : -Infinity;
    const before = query.max_date_modified ? Date.parse(query.max_date_modified) : Infinity;
    const limit = Number(query.limit ?? 50);
    const page = Number(query.page ?? 1);
    const modified = (order: Record<string, unknown>) => Date.parse(String(order.date_modified));
    const matching = [...fakeStoreOf(res).orders.values()]
      .filter((order) => modified(order) >= after && modified(order) <= before)
      .sort((a, b) => modified(a) - modified(b) || Number(a.id) - Number(b.id));
    const slice = matching.slice((page - 1) * limit, page * limit);
    if (slice.length === 0) return void res.status(204).end();
    res.json(slice);
  });
  router.get('/v2/orders/:id', (req, res) => {
    const store = fakeStoreOf(res);
    const order =
      store.orders.get(Number(req.params.id)) ?? (store === primary ? extra()?.(Number(req.params.id)) : undefined);
    if (!order) return void res.status(404).json([{ status: 404, message: 'The requested resource was not found.' }]);
    res.json(order);
  });
  router.get('/v2/orders/:id/coupons', (req, res) => {
    const order = fakeStoreOf(res).orders.get(Number(req.params.id));
    const coupons = (order?.coupons as unknown[] | undefined) ?? [];
    if (coupons.length === 0) return void res.status(204).end();
    res.json(coupons);
  });
}

/** GET v2/store: the store's information, with the Information & settings scope. */
function serveStoreInformation(router: express.Router): void {
  router.get('/v2/store', (_req, res) => {
    const scope = fakeScopeOf(res);
    if (scope !== undefined && !/(^|\s)store_v2_information(_read_only)?(\s|$)/.test(scope))
      return void res
        .status(403)
        .json([{ status: 403, message: "You don't have a required scope to access the endpoint" }]);
    const store = fakeStoreOf(res);
    const domain = `${store.hash}.example`;
    res.json({
      id: store.hash,
      domain,
      secure_url: `https://${domain}`,
      control_panel_base_url: `https://store-${store.hash}.mybigcommerce.com`,
      status: 'live',
      name: store.name,
      language: 'en',
      currency: store.currency,
      plan_name: 'Standard',
    });
  });
}

/** V3 hooks: listed, made (signed later with the maker's client secret) and changed. */
function serveHooks(router: express.Router): void {
  let nextHook = 1;
  const hookView = ({ signingSecret: _secret, ...hook }: FakeHook) => hook;
  router.get('/v3/hooks', (_req, res) => {
    const hooks = fakeStoreOf(res).hooks;
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
    fakeStoreOf(res).hooks.push(hook);
    res.json({ data: hookView(hook), meta: {} });
  });
  router.put('/v3/hooks/:id', (req, res) => {
    const hook = fakeStoreOf(res).hooks.find((candidate) => candidate.id === Number(req.params.id));
    if (!hook) return void res.status(404).json({ status: 404, title: 'Hook not found' });
    const change = Object.fromEntries(
      Object.entries(req.body as Record<string, unknown>).filter(([field]) =>
        ['scope', 'destination', 'is_active', 'headers'].includes(field),
      ),
    );
    Object.assign(hook, change, { updated_at: Math.floor(Date.now() / 1000) });
    res.json({ data: hookView(hook), meta: {} });
  });
}

/** A store as BigCommerce provisions it: its one default storefront, channel 1, in its default currency. */
function newStore(hash: string): FakeStore {
  return {
    hash,
    orders: new Map(),
    hooks: [],
    tokens: new Map(),
    tokenScopes: new Map(),
    name: `The ${hash} Shop`,
    currency: 'USD',
    channels: [defaultChannel()],
  };
}

/** Adds a token (and its holder's client secret) to a store, made if it is new. */
const storeAdder =
  (stores: Map<string, FakeStore>) =>
  (hash: string, token: string, secret = randomBytes(16).toString('hex')): FakeStore => {
    const store = stores.get(hash) ?? newStore(hash);
    store.tokens.set(token, secret);
    stores.set(hash, store);
    return store;
  };

function newApiState(stores: Map<string, FakeStore>): ApiState {
  return {
    stores,
    requests: [],
    hangMs: 0,
    quota: { requests: 150, windowMs: 30_000 },
    windows: new Map(),
    held: undefined,
    waiting: 0,
  };
}

/** The store API, mounted at /stores/<hash>: every call through the gate, then the part it is for. */
function storeApiRouter(state: ApiState, primary: FakeStore, orderFor: () => FakeBigCommerce['orderFor']) {
  const router = express.Router({ mergeParams: true });
  router.use(storeApiGate(state));
  serveOrders(router, primary, orderFor);
  serveStoreInformation(router);
  serveHooks(router);
  serveChannels(router);
  return router;
}

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
  const state = newApiState(stores);
  let orderFor: FakeBigCommerce['orderFor'];
  const app = express();
  app.use(express.json());
  const addStore = storeAdder(stores);
  const primary = addStore(storeHash, accessToken, accountClientSecret);
  const router = storeApiRouter(state, primary, () => orderFor);
  app.use('/stores/:hash', router);
  const appSide = fakeAppSide({
    server: app,
    stores,
    storeNamed: (hash) => stores.get(hash) ?? stores.set(hash, newStore(hash)).get(hash)!,
    addToken: addStore,
  });

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
      return orderFor;
    },
    set orderFor(answer) {
      orderFor = answer;
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
      state.windows.clear();
    },
    requests: state.requests,
    addStore,
    ...appSide,
    deliver: (scope, orderId, options = {}) =>
      deliverToHooks(stores.get(options.store ?? storeHash)!, scope, orderId, options),
    async close() {
      await http.close();
      http.server.closeAllConnections();
    },
  };
}
