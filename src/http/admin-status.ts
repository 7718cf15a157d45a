// The admin API's overview: /status (the dashboard's top and the CLI's status), the loyalty service's probe, the
// platforms the bridge knows, their connections, and the activity chart's series.
import type { Router } from 'express';
import type { AdminApiParts } from './admin-parts.ts';

export function adminStatusRoutes(router: Router, { operator: { status } }: AdminApiParts): void {
  router.get('/status', async (_req, res) => {
    res.json(await status.status());
  });
  // "Try again now" after the credentials were put right at the service, instead of waiting for the next probe.
  router.post('/upstream/probe', async (_req, res) => {
    res.json(await status.probe());
  });
  // Every platform the bridge knows, with the names a person reads: the pages name none of their own.
  router.get('/platforms', (_req, res) => {
    res.json(status.platforms());
  });
  router.get('/connections', async (_req, res) => {
    res.json(await status.connections());
  });
  router.get('/activity', (req, res) => {
    res.json(status.activity(Number(req.query.minutes)));
  });
}
