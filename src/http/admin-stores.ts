// The admin API's stores, under /admin/api/stores, behind the admin token: every store a platform's module
// lists for the operator (its `connections`) and what the last check of its webhooks found and did (never a
// key or secret), and POST /<platform>/connect for each module that connects a store by its address (with
// landing "store-page", the merchant lands on their store's own page). Starting a connect needs the admin
// token because a connected store's orders earn points on the merchant's loyalty account.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { PlatformNames, StoreConnectionView } from '../core/platform-module.ts';
import type { SubscriptionHealth } from '../core/order-source.ts';
import { reconciliationId } from '../core/reconciler.ts';
import type { RecordRole } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from '../core/platforms.ts';
import { requireAdminToken } from './admin-auth.ts';
import { RECONCILIATION_KIND } from '../core/store/roles/core-kinds.ts';
import { HEALTH_KIND } from '../core/order-source.ts';

export interface AdminStoresParts {
  token: string | undefined;
  store: RecordRole;
  platforms: Pick<Platforms, 'modules'>;
  logger: Logger;
  /** A first run's demo shops while the demo plays (none otherwise): they send orders, so they are stores. */
  demoShops: () => ReadonlyArray<{ platform: string; shop: string }>;
}

const connectBody = z.strictObject({
  store: z
    .string({ error: 'give the store address, like https://store.example' })
    .trim()
    .min(1, { error: 'give the store address, like https://store.example' })
    .max(500),
  /** Where the browser lands once approved: the operator's dashboard, or the store's own page (the link is the merchant's). */
  landing: z.enum(['dashboard', 'store-page'], { error: 'must be dashboard or store-page' }).optional(),
});

export interface StoreView extends StoreConnectionView {
  /** The platform's code name. */
  platform: string;
  /** Its name as a person reads it. */
  platformLabel: string;
  subscriptions: SubscriptionHealth | null;
  reconciledAt: string | null;
}

/** A platform whose stores the operator connects by address: its names, and why a connect cannot start now. */
export interface ConnectView {
  platform: string;
  names: PlatformNames;
  possible: boolean;
  problem: string | null;
}

/** Every store as the admin API shows it: no key, token or secret. */
export async function storeViews(
  store: RecordRole,
  platforms: Pick<Platforms, 'modules'>,
  demoShops: AdminStoresParts['demoShops'],
): Promise<StoreView[]> {
  const health = async (platform: string, shop: string) =>
    (await store.getRecord(HEALTH_KIND, reconciliationId(platform, shop))) ?? null;
  const reconciled = async (platform: string, shop: string) =>
    (await store.getRecord(RECONCILIATION_KIND, reconciliationId(platform, shop)))?.lastRun?.finishedAt ?? null;
  const views: StoreView[] = [];
  for (const { module, parts } of platforms.modules) {
    for (const each of (await parts.connections?.list()) ?? []) {
      // Each field of the view by name: whatever else a module hands over with it (its record's key) stays here.
      const { shop, url, via, connectedAt, keyPermissions, authMode } = each;
      views.push({
        platform: module.name,
        platformLabel: module.names.platform,
        shop,
        url,
        via,
        connectedAt,
        keyPermissions,
        authMode,
        subscriptions: await health(module.name, each.shop),
        reconciledAt: await reconciled(module.name, each.shop),
      });
    }
  }
  return withDemoShops(views, demoShops(), platforms);
}

/** The demo's shops marked as the demo's (one configured by the demo is listed once), the others added. */
function withDemoShops(
  views: StoreView[],
  demo: ReadonlyArray<{ platform: string; shop: string }>,
  platforms: Pick<Platforms, 'modules'>,
): StoreView[] {
  const isDemo = (view: StoreView) =>
    demo.some(({ platform, shop }) => view.platform === platform && view.shop === shop);
  const listed = views.map((view) => (isDemo(view) ? { ...view, via: 'demo' } : view));
  const added = demo
    .filter(({ platform, shop }) => !views.some((view) => view.platform === platform && view.shop === shop))
    .map(({ platform, shop }): StoreView => ({
      platform,
      platformLabel:
        platforms.modules.find(({ module }) => module.name === platform)?.module.names.platform ?? platform,
      shop,
      url: null,
      via: 'demo',
      connectedAt: null,
      keyPermissions: null,
      authMode: null,
      subscriptions: null,
      reconciledAt: null,
    }));
  return [...listed, ...added];
}

export function adminStores({ token, store, platforms, logger, demoShops }: AdminStoresParts): express.Router {
  const router = express.Router();
  router.use(requireAdminToken(token));
  router.use(express.json({ limit: '10kb' }));
  const connecting = (name: string) =>
    platforms.modules.find(({ module, parts }) => module.name === name && parts.connect);

  router.get('/', async (_req, res) => {
    const connect: ConnectView[] = platforms.modules.flatMap(({ module, parts }) => {
      if (!parts.connect) return [];
      const problem = parts.connect.problem() ?? null;
      return [{ platform: module.name, names: module.names, possible: problem === null, problem }];
    });
    res.json({ stores: await storeViews(store, platforms, demoShops), connect });
  });

  router.post('/:platform/connect', async (req, res) => {
    const connect = connecting(req.params.platform)?.parts.connect;
    if (!connect)
      return void res.status(404).json({ error: `no platform ${req.params.platform} connects a store by its address` });
    const parsed = connectBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = String(issue?.path[0] ?? 'store');
      return void res.status(400).json({ error: `${field}: ${issue?.message ?? 'is invalid'}`, field });
    }
    const problem = connect.problem();
    if (problem) return void res.status(409).json({ error: problem });
    const begun = await connect.begin(parsed.data.store, parsed.data.landing ?? 'dashboard');
    if (!begun.ok) return void res.status(400).json({ error: `store: ${begun.problem}`, field: 'store' });
    res.status(201).json(begun.began);
  });

  router.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    if ((error as { type?: string }).type === 'entity.parse.failed')
      return void res.status(400).json({ error: 'body: is not valid JSON', field: 'body' });
    logger.error({ err: error }, 'admin stores API error');
    res.status(500).json({ error: 'internal error' });
  });
  return router;
}
