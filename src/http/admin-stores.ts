// The admin API's stores, under /admin/api/stores, behind the admin token: every store a platform's module
// lists for the operator (its `connections`) and what the last check of its webhooks found and did (never a
// key or secret), and POST /<platform>/connect for each module that connects a store by its address (with
// landing "store-page", the merchant lands on their store's own page). Starting a connect needs the admin
// token because a connected store's orders earn points on the merchant's loyalty account.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Logger } from '../logger.ts';
import type { ConnectAsked, OperatorService } from '../services/operator.ts';
import { BadInput } from '../services/refused.ts';
import { requireAdminToken } from './admin-auth.ts';
import { answerRefusal } from './admin-errors.ts';

// What the CLI reads of the answers.
export type { ConnectView, StoreView } from '../services/operator.ts';

export interface AdminStoresParts {
  token: string | undefined;
  /** The operator's actions: its stores and connects. */
  operator: Pick<OperatorService, 'stores'>;
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

/** A connect's body, or a BadInput naming its first field (the store's address unless it names another). */
const connectInput = (body: unknown) => (): ConnectAsked => {
  const parsed = connectBody.safeParse(body ?? {});
  if (parsed.success) return { store: parsed.data.store, landing: parsed.data.landing };
  const issue = parsed.error.issues[0];
  throw new BadInput(String(issue?.path[0] ?? 'store'), issue?.message ?? 'is invalid');
};

export function adminStores({ token, operator: { stores }, logger }: AdminStoresParts): express.Router {
  const router = express.Router();
  router.use(requireAdminToken(token));
  router.use(express.json({ limit: '10kb' }));

  router.get('/', async (_req, res) => {
    res.json(await stores.stores());
  });

  router.post('/:platform/connect', async (req, res) => {
    res.status(201).json(await stores.connectStore(req.params.platform, connectInput(req.body)));
  });

  router.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    if (answerRefusal(error, res)) return;
    if ((error as { type?: string }).type === 'entity.parse.failed')
      return void res.status(400).json({ error: 'body: is not valid JSON', field: 'body' });
    logger.error({ err: error }, 'admin stores API error');
    res.status(500).json({ error: 'internal error' });
  });
  return router;
}
