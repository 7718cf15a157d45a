// The bridge's HTTP surface. Routes arrive here as the parts behind them are
// built; the composition root (src/main.ts) decides what is mounted.
import express from 'express';

export interface HttpAppParts {
  /** The sandbox's own app, mounted at /sandbox in sandbox mode. */
  sandbox?: express.Express;
  /** Platform name to its webhook route, mounted at /webhooks/<platform>. */
  webhooks?: Record<string, express.Router>;
  /** The admin API, mounted at /admin/api. */
  admin?: express.Router;
}

export function createHttpApp(parts: HttpAppParts): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  for (const [platform, route] of Object.entries(parts.webhooks ?? {})) app.use(`/webhooks/${platform}`, route);
  if (parts.admin) app.use('/admin/api', parts.admin);
  if (parts.sandbox) app.use('/sandbox', parts.sandbox);

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  return app;
}
