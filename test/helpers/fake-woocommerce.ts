// A fake WooCommerce store, served over real HTTP, built from WooCommerce's
// REST API v3 documentation and its webhook behaviour:
//   GET /wp-json/wc/v3/orders       modified_after / modified_before (GMT with
//     dates_are_gmt=true, exclusive), orderby=modified, order=asc, per_page,
//     page; X-WP-Total and X-WP-TotalPages; basic auth with the consumer key
//   GET /wp-json/wc/v3/orders/<id>  404 woocommerce_rest_shop_order_invalid_id
//   GET /wp-json/wc/v3/webhooks     id, name, status (active, paused, disabled), topic, delivery_url
//   webhooks are sent signed (X-WC-Webhook-Signature: base64 HMAC-SHA256 of
//   the body with the webhook's secret), never retried, and a webhook is
//   disabled after 5 failed deliveries in a row (woocommerce_max_webhook_delivery_failures)
import { createHmac } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';

export interface FakeWooWebhook {
  id: number;
  name: string;
  status: 'active' | 'paused' | 'disabled';
  topic: string;
  delivery_url: string;
  secret: string;
  failures: number;
}

export interface FakeWooCommerce {
  url: string;
  host: string;
  orders: Map<number, Record<string, unknown>>;
  webhooks: FakeWooWebhook[];
  /** Called before each page of orders is answered: a test can change orders mid-read. */
  beforePage: (page: number) => void;
  requests: Array<{ path: string; query: Record<string, string> }>;
  /** While set, order listings answer this status (the site's PHP failing), as WordPress does with a JSON error. */
  failListingsWith: number | undefined;
  /** Sends the order to every active webhook of the topic, as WooCommerce does when it changes. */
  deliver(topic: string, orderId: number): Promise<number[]>;
  close(): Promise<void>;
}

const MAX_FAILURES = 5;

export async function startFakeWooCommerce({ consumerKey, consumerSecret }: { consumerKey: string; consumerSecret: string }): Promise<FakeWooCommerce> {
  const orders = new Map<number, Record<string, unknown>>();
  const webhooks: FakeWooWebhook[] = [];
  const requests: FakeWooCommerce['requests'] = [];
  const state = { beforePage: (_page: number) => undefined as void, failListingsWith: undefined as number | undefined };
  const app = express();
  app.set('query parser', 'simple');

  const authorised = (req: Request, res: Response): boolean => {
    const given = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (given && Buffer.from(given, 'base64').toString('utf8') === `${consumerKey}:${consumerSecret}`) return true;
    res.status(401).json({ code: 'woocommerce_rest_cannot_view', message: 'Sorry, you cannot list resources.', data: { status: 401 } });
    return false;
  };

  app.get('/wp-json/wc/v3/orders', (req, res) => {
    requests.push({ path: req.path, query: req.query as Record<string, string> });
    if (!authorised(req, res)) return;
    if (state.failListingsWith) return void res.status(state.failListingsWith).json({ code: 'internal_server_error', message: 'There has been a critical error on this website.', data: { status: state.failListingsWith } });
    const query = req.query as Record<string, string>;
    const after = query.modified_after ? Date.parse(`${query.modified_after}Z`) : -Infinity;
    const before = query.modified_before ? Date.parse(`${query.modified_before}Z`) : Infinity;
    const perPage = Number(query.per_page ?? 10);
    const page = Number(query.page ?? 1);
    state.beforePage(page);
    const modified = (order: Record<string, unknown>) => Date.parse(`${String(order.date_modified_gmt)}Z`);
    const matching = [...orders.values()].filter((order) => modified(order) > after && modified(order) < before).sort((a, b) => modified(a) - modified(b) || Number(a.id) - Number(b.id));
    res.set({ 'X-WP-Total': String(matching.length), 'X-WP-TotalPages': String(Math.max(1, Math.ceil(matching.length / perPage))) });
    res.json(matching.slice((page - 1) * perPage, page * perPage));
  });

  app.get('/wp-json/wc/v3/orders/:id', (req, res) => {
    requests.push({ path: req.path, query: {} });
    if (!authorised(req, res)) return;
    const order = orders.get(Number(req.params.id));
    if (!order) return void res.status(404).json({ code: 'woocommerce_rest_shop_order_invalid_id', message: 'Invalid ID.', data: { status: 404 } });
    res.json(order);
  });

  app.get('/wp-json/wc/v3/webhooks', (req, res) => {
    requests.push({ path: req.path, query: req.query as Record<string, string> });
    if (!authorised(req, res)) return;
    res.set({ 'X-WP-Total': String(webhooks.length), 'X-WP-TotalPages': '1' });
    res.json(webhooks.map(({ secret: _secret, failures: _failures, ...webhook }) => ({ ...webhook, resource: webhook.topic.split('.')[0], event: webhook.topic.split('.')[1], hooks: [] })));
  });

  const http: Listening = await listen(app, 0, '127.0.0.1');
  return {
    url: http.localUrl,
    host: new URL(http.localUrl).host,
    orders,
    webhooks,
    get beforePage() {
      return state.beforePage;
    },
    set beforePage(hook: (page: number) => void) {
      state.beforePage = hook;
    },
    requests,
    get failListingsWith() {
      return state.failListingsWith;
    },
    set failListingsWith(status: number | undefined) {
      state.failListingsWith = status;
    },
    async deliver(topic, orderId) {
      const statuses: number[] = [];
      for (const webhook of webhooks.filter((candidate) => candidate.topic === topic && candidate.status === 'active')) {
        const body = JSON.stringify(orders.get(orderId));
        let status = 0;
        try {
          const response = await fetch(webhook.delivery_url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-wc-webhook-source': `${http.localUrl}/`,
              'x-wc-webhook-topic': topic,
              'x-wc-webhook-resource': topic.split('.')[0] ?? '',
              'x-wc-webhook-event': topic.split('.')[1] ?? '',
              'x-wc-webhook-signature': createHmac('sha256', webhook.secret).update(body).digest('base64'),
              'x-wc-webhook-id': String(webhook.id),
              'x-wc-webhook-delivery-id': String(Math.floor(Date.now() / 1000)),
            },
            body,
            signal: AbortSignal.timeout(5_000),
          });
          status = response.status;
        } catch {
          status = 0;
        }
        // Never retried; five failures in a row and the webhook is disabled.
        webhook.failures = status >= 200 && status < 300 ? 0 : webhook.failures + 1;
        if (webhook.failures >= MAX_FAILURES) webhook.status = 'disabled';
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
