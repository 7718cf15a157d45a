// The bridge's HTTP surface: health, readiness, metrics, webhooks, the admin
// API and dashboard, and the sandbox in sandbox mode. The composition root
// (src/composition/main.ts) decides what is mounted.
import type { IncomingMessage, RequestListener } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import { requestId } from './request-id.ts';
import type { WebhookHandler } from './webhook-route.ts';

export interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

export interface HttpAppParts {
  logger?: Logger;
  metrics?: Metrics;
  readiness?: () => Promise<Readiness>;
  /** The sandbox's own app, mounted at /sandbox in sandbox mode. */
  sandbox?: express.Express;
  /** Platform name to its webhook handler, at /webhooks/<platform>. */
  webhooks?: Record<string, WebhookHandler>;
  /** The admin API, mounted at /admin/api. */
  admin?: express.Router;
  /** The dashboard page, mounted at /admin. */
  dashboard?: express.Router;
  /** The merchant page's script and style, mounted at /merchant. */
  merchantAssets?: express.Router;
  /** The stores the admin API shows and connects, mounted at /admin/api/stores. */
  adminStores?: express.Router;
  /** Each platform registered as a module: its routes, mounted at /<name> (platform-routes.ts). */
  platformRoutes?: Readonly<Record<string, express.Router>>;
  /** On a first run: the demo shop's own page, at its prefix. */
  demoPage?: {
    prefix: string;
    routes: express.Router;
    /** What the demo's store pages' widgets ask of their store's own origin (the bridge's plays it), at the root. */
    origin: express.Router | undefined;
  };
}

/** The bridge's icon: a browser asks every page's origin for /favicon.ico, and a 404 there is a warning in the log. */
const FAVICON = fileURLToPath(new URL('./favicon.ico', import.meta.url));

/** What a request that failed outside a router's own answers is told, by status. */
const REQUEST_FAILED: Readonly<Record<number, string>> = {
  413: 'the body is too large',
  500: 'something went wrong on the bridge; try again',
};

/** The bridge's request handler: webhooks straight to their handlers, everything else through express. */
export function createHttpHandler(parts: HttpAppParts): RequestListener {
  const app = createHttpApp(parts);
  const webhooks = new Map(
    Object.entries(parts.webhooks ?? {}).map(([platform, handler]) => [`/webhooks/${platform}`, handler]),
  );
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0]?.replace(/\/$/, '') ?? '';
    const webhook = webhooks.get(path);
    if (webhook) {
      void webhook(req, res);
      return;
    }
    app(req, res);
  };
}

/**
 * A store's storefront route refused (401: not signed by the store; 409: a redeem the customer cannot make) or not
 * there (404: off, or no account): what customers' browsers and bots send all day, not the operator's to act on. The
 * platform logs why it refused at info. The first run's demo pages (/demo/) pass such answers on, and refuse
 * calls from elsewhere: two warnings for one refused redeem, which anyone on the page could repeat, were noise too.
 */
const storefrontNoise = (req: IncomingMessage, status: number): boolean =>
  ((status === 401 || status === 404 || status === 409) && /^\/[a-z0-9-]+\/storefront\//.test(pathOf(req))) ||
  (status < 500 && pathOf(req).startsWith('/demo/'));

/**
 * The bridge's sandbox answering 4xx as the service does (a customer it does not know, an account's credentials
 * checked by reading an unknown customer's history): the sandbox's answer to its caller, who handles it, not a
 * problem of the bridge's. A new trial account's check made two warnings at every first run's start.
 */
const sandboxAnswer = (req: IncomingMessage): boolean => pathOf(req).startsWith('/sandbox/');

const pathOf = (req: IncomingMessage): string => (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';

export function createHttpApp(parts: HttpAppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  // Webhooks do not come through here (createHttpHandler sends them straight
  // to their handlers, which log one line each with their request id).
  if (parts.logger) {
    app.use(
      pinoHttp({
        logger: parts.logger,
        genReqId: requestId,
        // Health probes and scrapes every few seconds would drown the log.
        autoLogging: { ignore: (req) => ['/healthz', '/readyz', '/metrics'].includes(req.url ?? '') },
        // Successful requests at debug: each webhook already logs one info line with its result.
        customLogLevel: (req, res, error) =>
          error || res.statusCode >= 500
            ? 'error'
            : res.statusCode >= 400 && !storefrontNoise(req, res.statusCode) && !sandboxAnswer(req)
              ? 'warn'
              : 'debug',
        serializers: {
          req: (req: { id: unknown; method: string; url: string }) => ({
            id: req.id,
            method: req.method,
            url: req.url.split('?')[0],
          }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
      }),
    );
  }

  app.get('/favicon.ico', (_req, res) => {
    res.set('x-content-type-options', 'nosniff');
    res.type('image/x-icon').sendFile(FAVICON, { maxAge: '1d' });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = parts.readiness ? await parts.readiness() : { ready: true, checks: {} };
    res.status(readiness.ready ? 200 : 503).json(readiness);
  });
  if (parts.metrics) {
    const { registry } = parts.metrics;
    app.get('/metrics', async (_req, res) => {
      res.set('content-type', registry.contentType).send(await registry.metrics());
    });
  }
  if (parts.adminStores) app.use('/admin/api/stores', parts.adminStores);
  if (parts.admin) app.use('/admin/api', parts.admin);
  if (parts.dashboard) {
    app.use('/admin', parts.dashboard);
    // The first thing a person opening the bridge's address wants is the dashboard.
    app.get('/', (_req, res) => res.redirect(302, '/admin/'));
  }
  if (parts.merchantAssets) app.use('/merchant', parts.merchantAssets);
  for (const [name, routes] of Object.entries(parts.platformRoutes ?? {})) app.use(`/${name}`, routes);
  if (parts.demoPage) app.use(parts.demoPage.prefix, parts.demoPage.routes);
  if (parts.demoPage?.origin) app.use(parts.demoPage.origin);
  if (parts.sandbox) app.use('/sandbox', parts.sandbox);

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  // What a router let through (a body over its limit, a door whose check failed): Express's own page would show the
  // error's words and stack, with the bridge's paths, unless NODE_ENV is production. Plain JSON instead, and the log.
  app.use((error: Error & { status?: unknown }, _req: Request, res: Response, next: NextFunction) => {
    const status = typeof error.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) parts.logger?.error({ err: error }, 'a request failed');
    if (res.headersSent) return next(error);
    res.status(status).json({
      error: REQUEST_FAILED[status] ?? (status < 500 ? 'the request could not be read' : REQUEST_FAILED[500]),
    });
  });
  return app;
}
