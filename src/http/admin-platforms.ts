// The admin API's platforms: how far each resync source has read (/reconciliation), and for each platform whose
// app the operator installs from the dashboard, its shops and installs (/<name>/shops, /<name>/installs).
import type { Request, Response, Router } from 'express';
import type { PlatformInstalls } from '../core/platform-module.ts';
import { BadInput, read, type AdminApiParts } from './admin-parts.ts';
import { reconciledState } from './admin-state.ts';

export function adminPlatformRoutes(router: Router, parts: AdminApiParts): void {
  router.get('/reconciliation', reconciliation(parts));

  // A platform whose app the operator installs from the dashboard: its shops, and an install started here, which makes
  // the shop one of the bridge's; the page then goes where the platform says (its consent screen).
  for (const { module, parts: built } of parts.platforms.modules) {
    const installs = built.installs;
    if (!installs) continue;
    router.get(`/${module.name}/shops`, installShops(installs));
    router.post(`/${module.name}/installs`, startInstall(installs, parts.tokenLabel));
  }
}

const reconciliation = (parts: AdminApiParts) => async (_req: Request, res: Response) => {
  res.json({ platforms: await reconciledState(parts) });
};

const installShops = (installs: PlatformInstalls) => async (_req: Request, res: Response) => {
  res.json({ canInstall: installs.canInstall(), example: installs.example, shops: await installs.shops() });
};

const startInstall = (installs: PlatformInstalls, tokenLabel: string) => async (req: Request, res: Response) => {
  const { shop: wanted } = read(installs.input, req.body);
  if (!installs.canInstall()) throw new BadInput('shop', installs.cannotInstall);
  const { next } = await installs.start(wanted, tokenLabel);
  res.status(201).json({ shop: wanted, next });
};
