// A fake WordPress with WooCommerce, served over real HTTP, built from
// WooCommerce's documentation and its own code (WC_Auth, WC_REST_Authentication,
// WC_Webhook, the REST webhooks controller):
//   /wc-auth/v1/login|authorize|access_granted   app authentication: app_name,
//     scope (read, write, read_write), user_id, return_url and callback_url are
//     all required, callback_url must be https; a WordPress login first; the
//     consent screen; on approval a key is made (ck_ and cs_ with 40 hex
//     digits) and POSTed as JSON {key_id, user_id, consumer_key,
//     consumer_secret, key_permissions} to callback_url, which must answer
//     exactly 200 (else the key is deleted and an error shown); then the
//     browser goes to return_url with success=1 and user_id (success=0 when
//     the merchant denies)
//   REST auth   consumer_key/consumer_secret in the query string, else HTTP
//     Basic; no key found (or the server dropped the Authorization header):
//     the request is anonymous, and the route answers 401
//     woocommerce_rest_cannot_view|create|edit; a wrong secret: 401
//     woocommerce_rest_authentication_error "Consumer secret is invalid.";
//     a read key that writes: 401 "...does not have write permissions."
//   GET /wp-json/wc/v3/orders, /orders/<id>   modified_after/_before (GMT with
//     dates_are_gmt), orderby=modified, order=asc, per_page, page; X-WP-Total,
//     X-WP-TotalPages
//   GET /wp-json/   the REST API's index, public: name (the site's title, kept
//     through esc_html as WordPress keeps blogname, so "&" reads "&amp;"),
//     description, url, home, namespaces (routes left out); a site whose
//     REST index is turned off (siteName null) answers 403 rest_disabled
//   /wp-json/wc/v3/webhooks   list (status all), create (201, topic and
//     delivery_url required, a ping "webhook_id=N" sent at once), update
//     (status active|paused|disabled), delete with force=true
//   deliveries  X-WC-Webhook-Source (home_url('/')), -Topic, -Resource,
//     -Event, -Signature (base64 HMAC-SHA256 of the body with the webhook's
//     secret), -ID, -Delivery-ID; never retried; a 2xx, 301 or 302 resets the
//     failure count; past 5 failures in a row the webhook is disabled, and
//     turning it back on does not reset the count
// The store may live in a subdirectory (home URL with a path) and call itself
// by another host than the one it is reached at (www., https behind a proxy):
// it is served over plain http on 127.0.0.1, as WordPress is behind a
// TLS-terminating proxy (is_ssl() true).
import { createHmac, randomBytes } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { listen, type Listening } from '../../src/http/listen.ts';
import { outboundPost } from './outbound-post.ts';

export type FakeKeyPermissions = 'read' | 'write' | 'read_write';

export interface FakeWooWebhook {
  id: number;
  name: string;
  status: 'active' | 'paused' | 'disabled';
  topic: string;
  delivery_url: string;
  secret: string;
  /** WooCommerce's failure_count. */
  failures: number;
}

export interface FakeWooKey {
  keyId: number;
  consumerSecret: string;
  permissions: FakeKeyPermissions;
  description: string;
}

export interface FakeWooOptions {
  /** A key made by hand in WooCommerce > Settings > Advanced > REST API. */
  consumerKey?: string;
  consumerSecret?: string;
  permissions?: FakeKeyPermissions;
  /** home_url('/'): what the store calls itself; its own address by default. A path puts the store in a subdirectory. */
  homeUrl?: string;
  /** The web server drops the Authorization header before PHP sees it (some shared hosts). */
  dropsAuthorization?: boolean;
  /** The WordPress administrator who approves a connect. */
  admin?: { user: string; password: string };
  /** The site's title as its administrator typed it (Settings > General); "Bits & Bobs <port>" by default. */
  siteName?: string | null;
}

export interface FakeWooCommerce {
  /** Where the store is reached (its REST API, its consent pages). */
  url: string;
  host: string;
  homeUrl: string;
  /** The site's title as typed; null: its REST index answers nothing (turned off). */
  siteName: string | null;
  orders: Map<number, Record<string, unknown>>;
  webhooks: FakeWooWebhook[];
  keys: Map<string, FakeWooKey>;
  beforePage: (page: number) => void;
  requests: Array<{
    method: string;
    path: string;
    query: Record<string, string>;
    auth: 'basic' | 'query' | 'none';
    status: number;
  }>;
  failListingsWith: number | undefined;
  dropsAuthorization: boolean;
  /** What the last key callback was answered (status 0: no answer). */
  lastCallback: { url: string; status: number } | undefined;
  /** Sends the order to every active webhook of the topic, as WooCommerce does when it changes. */
  deliver(topic: string, orderId: number): Promise<number[]>;
  /** The site's routes and the REST permission check (false: it answered), for other parts (fake-woocommerce-coupons.ts). */
  site: { router: express.Router; allowed: (req: Request, res: Response, action: FakeRestAction) => boolean };
  close(): Promise<void>;
}

export type FakeRestAction = 'list' | 'view' | 'create' | 'edit' | 'delete';

const MAX_FAILURES = 5;
const TOPICS = [
  'order.created',
  'order.updated',
  'order.deleted',
  'order.restored',
  'product.created',
  'product.updated',
  'product.deleted',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'coupon.created',
  'coupon.updated',
  'coupon.deleted',
];
const SCOPES: Record<string, string> = { read: 'Read', write: 'Write', read_write: 'Read/Write' };
const hex40 = () => randomBytes(20).toString('hex');
/** WordPress's esc_html, as sanitize_option applies it to blogname. */
const escHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' })[char]!,
  );
const escape = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** add_query_arg: the URL with these parameters added to the ones it has. */
const withQuery = (url: string, params: Record<string, string>) => {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
};

export async function startFakeWooCommerce(options: FakeWooOptions = {}): Promise<FakeWooCommerce> {
  const orders = new Map<number, Record<string, unknown>>();
  const webhooks: FakeWooWebhook[] = [];
  const keys = new Map<string, FakeWooKey>();
  const requests: FakeWooCommerce['requests'] = [];
  const admin = options.admin ?? { user: 'admin', password: 'wordpress' };
  const sessions = new Set<string>();
  const grantNonces = new Set<string>();
  const state = {
    beforePage: (_page: number) => undefined as void,
    failListingsWith: undefined as number | undefined,
    dropsAuthorization: options.dropsAuthorization ?? false,
    lastCallback: undefined as FakeWooCommerce['lastCallback'],
    nextKeyId: 1,
    nextWebhookId: 1,
  };
  if (options.consumerKey && options.consumerSecret)
    keys.set(options.consumerKey, {
      keyId: state.nextKeyId++,
      consumerSecret: options.consumerSecret,
      permissions: options.permissions ?? 'read_write',
      description: 'made by hand',
    });

  const app = express();
  app.set('query parser', 'simple');
  const http: Listening = await listen(app, 0, '127.0.0.1');
  const homeUrl = options.homeUrl ?? `${http.localUrl}/`;
  const prefix = new URL(homeUrl).pathname.replace(/\/+$/, '');
  const site = express.Router();
  const named = { siteName: options.siteName === undefined ? `Bits & Bobs ${http.port}` : options.siteName };

  // --- The REST API's index (rest_get_server()->get_index()), which anyone may read.
  site.get('/wp-json/', (_req, res) => {
    if (named.siteName === null)
      return void res
        .status(403)
        .json({ code: 'rest_disabled', message: 'The REST API is turned off on this site.', data: { status: 403 } });
    res.json({
      name: escHtml(named.siteName),
      description: 'Just another WordPress site',
      url: homeUrl.replace(/\/$/, ''),
      home: homeUrl.replace(/\/$/, ''),
      gmt_offset: 0,
      timezone_string: '',
      namespaces: ['oembed/1.0', 'wc/v3', 'wc-auth/v1', 'wp/v2'],
      authentication: {},
      routes: {},
    });
  });

  // --- REST authentication, as WC_REST_Authentication does it.
  type Caller = { key: FakeWooKey } | { error: Record<string, unknown> } | undefined;
  const caller = (req: Request): { who: Caller; auth: 'basic' | 'query' | 'none' } => {
    const query = req.query as Record<string, string>;
    let key: string | undefined;
    let secret: string | undefined;
    let auth: 'basic' | 'query' | 'none' = 'none';
    if (query.consumer_key && query.consumer_secret) {
      [key, secret, auth] = [query.consumer_key, query.consumer_secret, 'query'];
    } else if (!state.dropsAuthorization) {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const [user, ...rest] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
      if (user && rest.length > 0) [key, secret, auth] = [user, rest.join(':'), 'basic'];
    }
    if (!key || !secret) return { who: undefined, auth };
    const found = keys.get(key);
    if (!found) return { who: undefined, auth };
    if (found.consumerSecret !== secret)
      return {
        who: {
          error: {
            code: 'woocommerce_rest_authentication_error',
            message: 'Consumer secret is invalid.',
            data: { status: 401 },
          },
        },
        auth,
      };
    return { who: { key: found }, auth };
  };
  const anonymous: Record<string, [string, string]> = {
    list: ['woocommerce_rest_cannot_view', 'Sorry, you cannot list resources.'],
    view: ['woocommerce_rest_cannot_view', 'Sorry, you cannot view this resource.'],
    create: ['woocommerce_rest_cannot_create', 'Sorry, you are not allowed to create resources.'],
    edit: ['woocommerce_rest_cannot_edit', 'Sorry, you are not allowed to edit this resource.'],
    delete: ['woocommerce_rest_cannot_delete', 'Sorry, you are not allowed to delete this resource.'],
  };
  /** The route's permission check, after authentication; false when it answered. */
  const allowed = (req: Request, res: Response, action: keyof typeof anonymous): boolean => {
    const { who, auth } = caller(req);
    const log = (status: number) =>
      requests.push({ method: req.method, path: req.path, query: req.query as Record<string, string>, auth, status });
    if (who && 'error' in who) {
      log(401);
      res
        .set(
          'www-authenticate',
          'Basic realm="WooCommerce API. Use a consumer key in the username field and a consumer secret in the password field."',
        )
        .status(401)
        .json(who.error);
      return false;
    }
    if (who) {
      const writes = req.method !== 'GET' && req.method !== 'HEAD';
      const permitted = writes ? who.key.permissions !== 'read' : who.key.permissions !== 'write';
      if (!permitted) {
        log(401);
        res.status(401).json({
          code: 'woocommerce_rest_authentication_error',
          message: `The API key provided does not have ${writes ? 'write' : 'read'} permissions.`,
          data: { status: 401 },
        });
        return false;
      }
      res.on('finish', () => log(res.statusCode));
      return true;
    }
    const [code, message] = anonymous[action]!;
    log(401);
    res.status(401).json({ code, message, data: { status: 401 } });
    return false;
  };

  site.get('/wp-json/wc/v3/orders', (req, res) => {
    if (!allowed(req, res, 'list')) return;
    if (state.failListingsWith)
      return void res.status(state.failListingsWith).json({
        code: 'internal_server_error',
        message: 'There has been a critical error on this website.',
        data: { status: state.failListingsWith },
      });
    const query = req.query as Record<string, string>;
    const after = query.modified_after ? Date.parse(`${query.modified_after}Z`) : -Infinity;
    const before = query.modified_before ? Date.parse(`${query.modified_before}Z`) : Infinity;
    const perPage = Number(query.per_page ?? 10);
    const page = Number(query.page ?? 1);
    state.beforePage(page);
    const modified = (order: Record<string, unknown>) => Date.parse(`${String(order.date_modified_gmt)}Z`);
    const matching = [...orders.values()]
      .filter((order) => modified(order) > after && modified(order) < before)
      .sort((a, b) => modified(a) - modified(b) || Number(a.id) - Number(b.id));
    res.set({
      'X-WP-Total': String(matching.length),
      'X-WP-TotalPages': String(Math.max(1, Math.ceil(matching.length / perPage))),
    });
    res.json(matching.slice((page - 1) * perPage, page * perPage));
  });

  site.get('/wp-json/wc/v3/orders/:id', (req, res) => {
    if (!allowed(req, res, 'view')) return;
    const order = orders.get(Number(req.params.id));
    if (!order)
      return void res
        .status(404)
        .json({ code: 'woocommerce_rest_shop_order_invalid_id', message: 'Invalid ID.', data: { status: 404 } });
    res.json(order);
  });

  const webhookView = ({ secret: _secret, failures: _failures, ...webhook }: FakeWooWebhook) => ({
    ...webhook,
    resource: webhook.topic.split('.')[0],
    event: webhook.topic.split('.')[1],
    hooks: [],
  });

  site.get('/wp-json/wc/v3/webhooks', (req, res) => {
    if (!allowed(req, res, 'list')) return;
    const query = req.query as Record<string, string>;
    const status = query.status && query.status !== 'all' ? query.status : undefined;
    const perPage = Number(query.per_page ?? 10);
    const page = Number(query.page ?? 1);
    const matching = webhooks.filter((webhook) => !status || webhook.status === status);
    res.set({
      'X-WP-Total': String(matching.length),
      'X-WP-TotalPages': String(Math.max(1, Math.ceil(matching.length / perPage))),
    });
    res.json(matching.slice((page - 1) * perPage, page * perPage).map(webhookView));
  });

  site.post('/wp-json/wc/v3/webhooks', express.json(), async (req, res) => {
    if (!allowed(req, res, 'create')) return;
    const body = (req.body ?? {}) as Partial<FakeWooWebhook>;
    if (!body.topic || !TOPICS.includes(body.topic.toLowerCase()))
      return void res.status(400).json({
        code: 'woocommerce_rest_shop_webhook_invalid_topic',
        message: 'Webhook topic is required and must be valid.',
        data: { status: 400 },
      });
    if (!body.delivery_url || !/^https?:\/\//.test(body.delivery_url))
      return void res.status(400).json({
        code: 'woocommerce_rest_shop_webhook_invalid_delivery_url',
        message: 'Webhook delivery URL must be a valid URL starting with http:// or https://.',
        data: { status: 400 },
      });
    const webhook: FakeWooWebhook = {
      id: state.nextWebhookId++,
      name: body.name ?? `Webhook created on ${new Date().toUTCString()}`,
      status: body.status && ['active', 'paused', 'disabled'].includes(body.status) ? body.status : 'active',
      topic: body.topic.toLowerCase(),
      delivery_url: body.delivery_url,
      secret: body.secret || randomBytes(25).toString('hex'),
      failures: 0,
    };
    webhooks.push(webhook);
    // deliver_ping() before the answer goes out; what the ping is answered does not change the creation.
    await outboundPost(
      webhook.delivery_url,
      {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'WooCommerce/10.3.0 Hookshot (WordPress/6.8.3)',
      },
      `webhook_id=${webhook.id}`,
      5_000,
    );
    res.status(201).location(`${homeUrl}wp-json/wc/v3/webhooks/${webhook.id}`).json(webhookView(webhook));
  });

  site.put('/wp-json/wc/v3/webhooks/:id', express.json(), (req, res) => {
    if (!allowed(req, res, 'edit')) return;
    const webhook = webhooks.find((candidate) => candidate.id === Number(req.params.id));
    if (!webhook)
      return void res
        .status(400)
        .json({ code: 'woocommerce_rest_shop_webhook_invalid_id', message: 'ID is invalid.', data: { status: 400 } });
    const body = (req.body ?? {}) as Partial<FakeWooWebhook>;
    if (body.status !== undefined && !['active', 'paused', 'disabled'].includes(body.status))
      return void res.status(400).json({
        code: 'woocommerce_rest_shop_webhook_invalid_status',
        message: 'Webhook status must be valid.',
        data: { status: 400 },
      });
    // set_status() leaves failure_count as it is.
    Object.assign(
      webhook,
      Object.fromEntries(
        Object.entries(body).filter(([field]) => ['name', 'status', 'delivery_url', 'secret', 'topic'].includes(field)),
      ),
    );
    res.json(webhookView(webhook));
  });

  site.delete('/wp-json/wc/v3/webhooks/:id', (req, res) => {
    if (!allowed(req, res, 'delete')) return;
    if (req.query.force !== 'true')
      return void res.status(501).json({
        code: 'woocommerce_rest_trash_not_supported',
        message: 'Webhooks do not support trashing.',
        data: { status: 501 },
      });
    const index = webhooks.findIndex((candidate) => candidate.id === Number(req.params.id));
    if (index < 0)
      return void res
        .status(404)
        .json({ code: 'woocommerce_rest_shop_webhook_invalid_id', message: 'Invalid ID.', data: { status: 404 } });
    res.json(webhookView(webhooks.splice(index, 1)[0]!));
  });

  // --- WordPress login and WooCommerce's app authentication.
  const loggedIn = (req: Request) => {
    const cookie = /wordpress_logged_in_fake=([a-f0-9]+)/.exec(req.headers.cookie ?? '')?.[1];
    return cookie !== undefined && sessions.has(cookie);
  };
  const page = (res: Response, status: number, title: string, html: string) =>
    res
      .status(status)
      .type('html')
      .send(
        `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><body><h1>${escape(title)}</h1>${html}</body>`,
      );
  const authError = (res: Response, message: string) =>
    page(res, 401, 'Access denied', `<p id="error">Error: ${escape(message)}.</p>`);
  const authUrl = (route: string, params: Record<string, string>, extra: Record<string, string> = {}) =>
    withQuery(`${homeUrl}wc-auth/v1/${route}`, {
      app_name: params.app_name!,
      user_id: params.user_id!,
      return_url: params.return_url!,
      callback_url: params.callback_url!,
      scope: params.scope!,
      ...extra,
    });

  site.post('/wp-login.php', express.urlencoded({ extended: false }), (req, res) => {
    const body = req.body as Record<string, string>;
    if (body.log !== admin.user || body.pwd !== admin.password)
      return page(res, 200, 'Log In', '<p id="login_error">Error: The password you entered is incorrect.</p>');
    const session = randomBytes(16).toString('hex');
    sessions.add(session);
    res
      .cookie('wordpress_logged_in_fake', session, { httpOnly: true, path: '/' })
      .redirect(302, body.redirect_to ?? homeUrl);
  });

  site.get('/wc-auth/v1/:route', async (req, res) => {
    const params = req.query as Record<string, string>;
    // make_validation()
    for (const name of ['app_name', 'user_id', 'return_url', 'callback_url', 'scope'])
      if (!params[name]) return authError(res, `Missing parameter ${name}`);
    if (!SCOPES[params.scope!]) return authError(res, `Invalid scope ${params.scope}`);
    for (const name of ['return_url', 'callback_url'])
      if (!URL.canParse(params[name]!)) return authError(res, `The ${params[name]} is not a valid URL`);
    if (!params.callback_url!.toLowerCase().startsWith('https://'))
      return authError(res, 'The callback_url needs to be over SSL');
    const denied = withQuery(params.return_url!, { success: '0', user_id: params.user_id! });
    const route = String(req.params.route).toLowerCase();
    if (route === 'login' && !loggedIn(req)) {
      return page(
        res,
        200,
        `${params.app_name} would like to connect to your store`,
        `<form id="loginform" method="post" action="${escape(`${prefix}/wp-login.php`)}"><label>Username <input name="log" id="user_login"></label><label>Password <input type="password" name="pwd" id="user_pass"></label><input type="hidden" name="redirect_to" value="${escape(authUrl('authorize', params))}"><button type="submit" id="wp-submit">Login</button></form><p><a href="${escape(denied)}">Cancel</a></p>`,
      );
    }
    if (route === 'login') return void res.redirect(302, authUrl('authorize', params));
    if (!loggedIn(req)) return void res.redirect(302, authUrl('login', params));
    if (route === 'authorize') {
      const nonce = randomBytes(8).toString('hex');
      grantNonces.add(nonce);
      return page(
        res,
        200,
        `${params.app_name} would like to connect to your store`,
        `<p>This will give "${escape(params.app_name!)}" <strong id="scope">${SCOPES[params.scope!]}</strong> access which will allow it to:</p><ul><li>Create webhooks</li><li>View and manage orders and sales reports</li></ul>` +
          `<p><a id="approve" class="button" href="${escape(authUrl('access_granted', params, { wc_auth_nonce: nonce }))}">Approve</a> <a id="deny" href="${escape(denied)}">Deny</a></p>`,
      );
    }
    if (route === 'access_granted') {
      if (!params.wc_auth_nonce || !grantNonces.delete(params.wc_auth_nonce))
        return authError(res, 'Invalid nonce verification');
      // create_keys()
      const consumerKey = `ck_${hex40()}`;
      const key: FakeWooKey = {
        keyId: state.nextKeyId++,
        consumerSecret: `cs_${hex40()}`,
        permissions: params.scope as FakeKeyPermissions,
        description: `${params.app_name} - API (${new Date().toISOString()})`,
      };
      keys.set(consumerKey, key);
      // post_consumer_data(): JSON, 60 seconds, and exactly 200 or the key goes again.
      const body = JSON.stringify({
        key_id: key.keyId,
        user_id: params.user_id,
        consumer_key: consumerKey,
        consumer_secret: key.consumerSecret,
        key_permissions: key.permissions,
      });
      const answer = await outboundPost(
        params.callback_url!,
        { 'content-type': 'application/json;charset=UTF-8' },
        body,
        60_000,
      );
      state.lastCallback = { url: params.callback_url!, status: answer.status };
      if (answer.status !== 200) {
        keys.delete(consumerKey);
        return authError(res, 'An error occurred in the request and at the time were unable to send the consumer data');
      }
      return void res.redirect(302, withQuery(params.return_url!, { success: '1', user_id: params.user_id! }));
    }
    return authError(res, 'You do not have permission to access this page');
  });

  app.use(prefix || '/', site);

  return {
    url: `${http.localUrl}${prefix}`,
    host: new URL(http.localUrl).host,
    homeUrl,
    get siteName() {
      return named.siteName;
    },
    set siteName(name: string | null) {
      named.siteName = name;
    },
    orders,
    webhooks,
    keys,
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
    get dropsAuthorization() {
      return state.dropsAuthorization;
    },
    set dropsAuthorization(drops: boolean) {
      state.dropsAuthorization = drops;
    },
    get lastCallback() {
      return state.lastCallback;
    },
    async deliver(topic, orderId) {
      const statuses: number[] = [];
      for (const webhook of webhooks.filter(
        (candidate) => candidate.topic === topic && candidate.status === 'active',
      )) {
        const body = JSON.stringify(topic.endsWith('.deleted') ? { id: orderId } : orders.get(orderId));
        const [resource, event] = topic.split('.');
        const { status } = await outboundPost(
          webhook.delivery_url,
          {
            'content-type': 'application/json',
            'user-agent': 'WooCommerce/10.3.0 Hookshot (WordPress/6.8.3)',
            'x-wc-webhook-source': homeUrl,
            'x-wc-webhook-topic': topic,
            'x-wc-webhook-resource': resource ?? '',
            'x-wc-webhook-event': event ?? '',
            'x-wc-webhook-signature': createHmac('sha256', webhook.secret).update(body).digest('base64'),
            'x-wc-webhook-id': String(webhook.id),
            'x-wc-webhook-delivery-id': createHmac('sha256', 'wp')
              .update(`${webhook.id}${Math.floor(Date.now() / 1000)}`)
              .digest('hex')
              .slice(0, 32),
          },
          body,
          5_000,
        );
        // log_delivery(): 2xx, 301 and 302 reset the count; failed_delivery() disables once it is past the limit.
        if (status >= 200 && status < 303) webhook.failures = 0;
        else if (webhook.failures > MAX_FAILURES) webhook.status = 'disabled';
        else webhook.failures++;
        statuses.push(status);
      }
      return statuses;
    },
    site: { router: site, allowed },
    async close() {
      await http.close();
      http.server.closeAllConnections();
    },
  };
}
