// The admin API's platforms: how far each resync source has read (/reconciliation), and for each platform whose
// app the operator installs from the dashboard, its shops and installs (/<name>/shops, /<name>/installs).
import type { Router } from 'express';
import type { AdminApiParts } from './admin-parts.ts';

export function adminPlatformRoutes(router: Router, { operator, tokenLabel }: AdminApiParts): void {
  router.get('/reconciliation', async (_req, res) => {
    res.json(await operator.status.reconciliation());
  });

  // A platform whose app the operator installs from the dashboard: its shops, and an install started here, which makes
  // the shop one of the bridge's; the page then goes where the platform says (its consent screen).
  const { installs } = operator;
  for (const platform of installs.installing()) {
    router.get(`/${platform}/shops`, async (_req, res) => {
      res.json(await installs.installShops(platform));
    });
    router.post(`/${platform}/installs`, async (req, res) => {
      res.status(201).json(await installs.startInstall(platform, req.body, tokenLabel));
    });
  }
}
