// The admin API under /admin/api. Every route sits behind the admin token.
import express from 'express';
import type { Reconciler } from '../core/reconciler.ts';
import type { Engine } from '../core/engine.ts';
import { requireAdminToken } from './admin-auth.ts';

export interface AdminApiParts {
  token: string | undefined;
  engine: Engine;
  reconciler: Reconciler;
}

export function adminApi({ token, engine, reconciler }: AdminApiParts): express.Router {
  const router = express.Router();
  router.use(requireAdminToken(token));

  /** Each platform's last reconciliation: when, which window, counts, errors, and the high-water mark. */
  router.get('/reconciliation', (_req, res) => {
    const state = engine.ledger.reconciliation();
    res.json({
      platforms: Object.fromEntries(reconciler.platforms.map((platform) => [platform, state[platform] ?? { highWaterMark: null, lastRun: null }])),
    });
  });

  router.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  return router;
}
