// TinyShop's side, for its test: its API over HTTP on 127.0.0.1 (the orders it holds, behind the store's
// token), and its webhooks and sign-in links, signed as TinyShop signs them.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE } from './adapter.ts';
import { signIn } from './module.ts';
import type { TinyOrder } from './orders.ts';

export interface FakeTinyShop {
  url: string;
  orders: Map<number, TinyOrder>;
  /** Its customers' records, by id, as its API gives them to an app granted `customers`. */
  customers: Map<string, { email: string | null; phone: string | null }>;
  /** What the store granted the app; without `customers`, a customer's record answers 403. */
  granted: Set<string>;
  stop(): Promise<void>;
}

export async function startFakeTinyShop(token: string): Promise<FakeTinyShop> {
  const orders = new Map<number, TinyOrder>();
  const customers = new Map<string, { email: string | null; phone: string | null }>();
  const granted = new Set(['orders', 'customers']);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://tinyshop.test');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'unknown token' });
    if (url.pathname === '/orders') {
      const since = Date.parse(url.searchParams.get('updated_since') ?? '');
      const until = Date.parse(url.searchParams.get('until') ?? '') || Number.POSITIVE_INFINITY;
      const inWindow = [...orders.values()].filter((order) => {
        const at = Date.parse(order.updated_at);
        return at >= since && at <= until;
      });
      return send(200, { orders: inWindow });
    }
    if (url.pathname === '/scopes') return send(200, { granted: [...granted] });
    const customer = /^\/customers\/([^/]+)$/.exec(url.pathname);
    if (customer) {
      if (!granted.has('customers')) return send(403, { error: 'the app was not granted customers' });
      const found = customers.get(decodeURIComponent(customer[1] ?? ''));
      return found ? send(200, found) : send(404, { error: 'no such customer' });
    }
    const one = /^\/orders\/(\d+)$/.exec(url.pathname);
    const order = one ? orders.get(Number(one[1])) : undefined;
    return order ? send(200, order) : send(404, { error: 'no such order' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    orders,
    customers,
    granted,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const tinyOrder = (id: number, status: TinyOrder['status'], total = '80.00'): TinyOrder => ({
  id,
  number: String(1000 + id),
  status,
  total,
  currency: 'EUR',
  customer: { name: `Customer ${id}`, email: `customer-${id}@example.com`, phone: '+442079460958' },
  updated_at: new Date().toISOString(),
});

/** A webhook as TinyShop sends it: the body, and its headers signed with the store's secret. */
export function signedDelivery(secret: string, store: string, topic: string, order: TinyOrder, id: string) {
  const body = JSON.stringify({ store, order });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      [SIGNATURE]: createHmac('sha256', secret).update(body).digest('base64'),
      'x-tinyshop-topic': topic,
      'x-tinyshop-delivery': id,
    },
  };
}

/** The link TinyShop's admin opens for the merchant. */
export const signInPath = (secret: string, store: string, at = Date.now()) =>
  `/tinyshop/open?store=${encodeURIComponent(store)}&at=${at}&signature=${signIn(secret, store, at)}`;
