// The admin API's stores, under /admin/api/stores, behind the admin token: every WooCommerce and BigCommerce
// store the bridge serves and what the last check of its webhooks found and did (never a key or secret), and
// POST /woocommerce/connect, which starts a connect (with landing "store-page", the merchant lands on their
// store's own page). Starting a connect needs the admin token because a connected store's orders earn points
// on the merchant's loyalty account.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { beginWooConnect } from '../../adapters/woocommerce/connect.ts';
import { StoreAddressError } from '../../adapters/woocommerce/shop-identity.ts';
import type { SubscriptionHealth } from '../core/order-source.ts';
import { reconciliationId } from '../core/reconciler.ts';
import type { LedgerStore, ReconciliationState } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { Platforms } from '../composition/platforms.ts';
import { requireAdminToken } from './admin-auth.ts';
import { wooConnectProblem } from './woocommerce-connect.ts';
import { RETURN_PATH } from './woocommerce-pages.ts';

export interface AdminStoresParts {
  token: string | undefined;
  store: LedgerStore;
  platforms: Platforms;
  appName: string;
  logger: Logger;
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

export interface StoreView {
  platform: 'woocommerce' | 'bigcommerce';
  shop: string;
  url: string | null;
  via: string;
  connectedAt: string | null;
  /** What the key may do, for a connected WooCommerce store. */
  keyPermissions: string | null;
  /** How the key gets through (the query string where the server drops the Authorization header). */
  authMode: string | null;
  subscriptions: SubscriptionHealth | null;
  reconciledAt: string | null;
}

/** Every store as the admin API shows it: no key, token or secret. */
export async function storeViews(store: LedgerStore, platforms: Platforms): Promise<StoreView[]> {
  const health = async (platform: string, shop: string) =>
    (await store.getRecord<SubscriptionHealth>('platform-health', reconciliationId(platform, shop))) ?? null;
  const reconciled = async (platform: string, shop: string) =>
    (await store.getRecord<ReconciliationState>('reconciliation', reconciliationId(platform, shop)))?.lastRun
      ?.finishedAt ?? null;
  const views: StoreView[] = [];
  for (const each of await platforms.woocommerce.list()) {
    views.push({
      platform: 'woocommerce',
      shop: each.shop,
      url: each.url,
      via: each.via,
      connectedAt: each.connectedAt,
      keyPermissions: each.keyPermissions ?? null,
      authMode: each.rest?.authMode ?? null,
      subscriptions: await health('woocommerce', each.shop),
      reconciledAt: await reconciled('woocommerce', each.shop),
    });
  }
  for (const each of await platforms.bigcommerce.list()) {
    views.push({
      platform: 'bigcommerce',
      shop: each.shop,
      url: null,
      via: each.via,
      connectedAt: each.installedAt,
      keyPermissions: null,
      authMode: null,
      subscriptions: await health('bigcommerce', each.shop),
      reconciledAt: await reconciled('bigcommerce', each.shop),
    });
  }
  return views;
}

export function adminStores({ token, store, platforms, appName, logger }: AdminStoresParts): express.Router {
  const router = express.Router();
  router.use(requireAdminToken(token));
  router.use(express.json({ limit: '10kb' }));

  router.get('/', async (_req, res) => {
    res.json({
      stores: await storeViews(store, platforms),
      woocommerceConnect: {
        possible: !wooConnectProblem(platforms.publicUrl),
        problem: wooConnectProblem(platforms.publicUrl) ?? null,
      },
    });
  });

  router.post('/woocommerce/connect', async (req, res) => {
    const parsed = connectBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = String(issue?.path[0] ?? 'store');
      return void res.status(400).json({ error: `${field}: ${issue?.message ?? 'is invalid'}`, field });
    }
    const problem = wooConnectProblem(platforms.publicUrl);
    if (problem) return void res.status(409).json({ error: problem });
    try {
      const began = await beginWooConnect(store, parsed.data.store, {
        publicUrl: platforms.publicUrl!,
        appName,
        returnPath: parsed.data.landing === 'store-page' ? RETURN_PATH : '/admin/',
        // Made for the merchant, the link is theirs, and so is the loyalty account the store earns on.
        forMerchant: parsed.data.landing === 'store-page',
        addresses: platforms.storeAddresses,
      });
      logger.info(
        { platform: 'woocommerce', shop: began.shop },
        'a WooCommerce connect was started; waiting for the merchant to approve it in WordPress',
      );
      res.status(201).json(began);
    } catch (error) {
      if (error instanceof StoreAddressError)
        return void res.status(400).json({ error: `store: ${error.message}`, field: 'store' });
      throw error;
    }
  });

  router.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    if ((error as { type?: string }).type === 'entity.parse.failed')
      return void res.status(400).json({ error: 'body: is not valid JSON', field: 'body' });
    logger.error({ err: error }, 'admin stores API error');
    res.status(500).json({ error: 'internal error' });
  });
  return router;
}
