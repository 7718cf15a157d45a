// A fake BigCommerce store API, served over real HTTP, built from
// BigCommerce's documentation:
//   GET /stores/<hash>/v2/orders    min_date_modified, max_date_modified,
//     sort=date_modified:asc, page, limit; 204 with no body for an empty page
//   GET /stores/<hash>/v2/orders/<id> (404 for no such order) and /coupons
//   GET, POST /stores/<hash>/v3/hooks and PUT /v3/hooks/<id>: {data, meta}
//   X-Auth-Token, else 401
//   rate limits: X-Rate-Limit-Requests-Quota, -Requests-Left, -Time-Window-Ms,
//     -Time-Reset-Ms on every answer, and 429 once the window's quota is spent
// It can also hang (the store API slow or down), and it sends webhooks the
// two ways BigCommerce authenticates them: Standard Webhooks signatures, or
// the custom headers a hook was created with.
import { createHmac, randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';

export interface FakeHook {
  id: number;
  scope: string;
  destination: string;
  is_active: boolean;
  headers: Record<string, string> | null;
  created_at: number;
  updated_at: number;
}

export interface FakeBigCommerce {
  url: string;
  storeHash: string;
  orders: Map<number, Record<string, unknown>>;
  /** Answers for orders not in `orders` (a store with very many orders, for the bench). */
  orderFor: ((id: number) => Record<string, unknown> | undefined) | undefined;
  hooks: FakeHook[];
  requests: Array<{ method: string; path: string; status: number }>;
  /** Requests hang this long before they are answered (0: at once). */
  hangMs: number;
  /** Every request from now on waits, unanswered, until the returned function is called: the store API down. */
  hold(): () => void;
  /** Requests waiting in a hold. */
  readonly waiting: number;
  /** Requests a window allows, and the window's length. */
  quota: { requests: number; windowMs: number };
  /**
   * Posts a webhook for an order to every active hook of the scope: signed
   * the Standard Webhooks way with the client secret, or carrying the hook's
   * own headers. Returns the status of each.
   */
  deliver(scope: string, orderId: number, options?: { signWith?: string; hash?: string; createdAt?: number }): Promise<number[]>;
  close(): Promise<void>;
}

export async function startFakeBigCommerce({ storeHash, accessToken }: { storeHash: string; accessToken: string }): Promise<FakeBigCommerce> {
  const orders = new Map<number, Record<string, unknown>>();
  const hooks: FakeHook[] = [];
  const requests: FakeBigCommerce['requests'] = [];
  const state = { hangMs: 0, quota: { requests: 150, windowMs: 30_000 }, held: undefined as Promise<void> | undefined, waiting: 0, orderFor: undefined as FakeBigCommerce['orderFor'] };
  let windowStart = Date.now();
  let used = 0;
  let nextHook = 1;
  const app = express();
  app.use(express.json());
  const router = express.Router();

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
    const log = (status: number) => requests.push({ method: req.method, path: req.path, status });
    if (used > state.quota.requests) {
      log(429);
      return void res.status(429).json({ status: 429, title: 'Too many requests' });
    }
    if (req.headers['x-auth-token'] !== accessToken) {
      log(401);
      return void res.status(401).json([{ status: 401, message: 'You are not authorized.' }]);
    }
    res.on('finish', () => log(res.statusCode));
    next();
  });

  router.get('/v2/orders', (req, res) => {
    const query = req.query as Record<string, string>;
    const after = query.min_date_modified ? Date.parse(query.min_date_modified) : -Infinity;
    const before = query.max_date_modified ? Date.parse(query.max_date_modified) : Infinity;
    const limit = Number(query.limit ?? 50);
    const page = Number(query.page ?? 1);
    const modified = (order: Record<string, unknown>) => Date.parse(String(order.date_modified));
    const matching = [...orders.values()].filter((order) => modified(order) >= after && modified(order) <= before).sort((a, b) => modified(a) - modified(b) || Number(a.id) - Number(b.id));
    const slice = matching.slice((page - 1) * limit, page * limit);
    if (slice.length === 0) return void res.status(204).end();
    res.json(slice);
  });
  router.get('/v2/orders/:id', (req, res) => {
    const order = orders.get(Number(req.params.id)) ?? state.orderFor?.(Number(req.params.id));
    if (!order) return void res.status(404).json([{ status: 404, message: 'The requested resource was not found.' }]);
    res.json(order);
  });
  router.get('/v2/orders/:id/coupons', (req, res) => {
    const order = orders.get(Number(req.params.id));
    const coupons = (order?.coupons as unknown[] | undefined) ?? [];
    if (coupons.length === 0) return void res.status(204).end();
    res.json(coupons);
  });
  router.get('/v3/hooks', (_req, res) => {
    res.json({ data: hooks, meta: { pagination: { total: hooks.length, count: hooks.length, per_page: 250, current_page: 1, total_pages: 1 } } });
  });
  router.post('/v3/hooks', (req, res) => {
    const body = req.body as Partial<FakeHook>;
    if (!body.scope || !body.destination) return void res.status(422).json({ status: 422, title: 'scope and destination are required' });
    const now = Math.floor(Date.now() / 1000);
    const hook: FakeHook = { id: nextHook++, scope: body.scope, destination: body.destination, is_active: body.is_active ?? true, headers: body.headers ?? null, created_at: now, updated_at: now };
    hooks.push(hook);
    res.json({ data: hook, meta: {} });
  });
  router.put('/v3/hooks/:id', (req, res) => {
    const hook = hooks.find((candidate) => candidate.id === Number(req.params.id));
    if (!hook) return void res.status(404).json({ status: 404, title: 'Hook not found' });
    Object.assign(hook, req.body, { updated_at: Math.floor(Date.now() / 1000) });
    res.json({ data: hook, meta: {} });
  });
  app.use(`/stores/${storeHash}`, router);

  const http: Listening = await listen(app, 0, '127.0.0.1');
  return {
    url: http.localUrl,
    storeHash,
    orders,
    hooks,
    requests,
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
    async deliver(scope, orderId, options = {}) {
      const statuses: number[] = [];
      for (const hook of hooks.filter((candidate) => candidate.scope === scope && candidate.is_active)) {
        const body = JSON.stringify({
          scope,
          store_id: '1001234567',
          data: { type: 'order', id: orderId },
          hash: options.hash ?? createHmac('sha1', 'bc').update(JSON.stringify({ type: 'order', id: orderId })).digest('hex'),
          created_at: options.createdAt ?? Math.floor(Date.now() / 1000),
          producer: `stores/${storeHash}`,
        });
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(hook.headers ?? {}) };
        if (options.signWith) {
          const id = `msg_${randomUUID()}`;
          const timestamp = Math.floor(Date.now() / 1000);
          Object.assign(headers, { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${createHmac('sha256', options.signWith).update(`${id}.${timestamp}.${body}`).digest('base64')}` });
        }
        let status = 0;
        try {
          status = (await fetch(hook.destination, { method: 'POST', headers, body, signal: AbortSignal.timeout(5_000) })).status;
        } catch {
          status = 0;
        }
        statuses.push(status);
      }
      return statuses;
    },
    async close() {
      await http.close();
      http.server.closeAllConnections();
    },
  };
}
