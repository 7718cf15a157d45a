// The admin API's orders: the list and one order in words with their points, points redeemed on a cancelled order
// (and giving them back), and resyncs (reading a platform's orders again).
import type { Request, Response, Router } from 'express';
import { withDetailWords, withWords, wordsOfRecord } from './order-words-view.ts';
import { pointsOf, pointsSourceOf } from '../core/order-points-view.ts';
import { adjusted, BadInput, read, wordsPartsOf, type AdminApiParts } from './admin-parts.ts';
import { giveBackBody, orderQuery, resyncBody } from './admin-input.ts';

export function adminOrderRoutes(router: Router, parts: AdminApiParts): void {
  router.get('/orders', orderList(parts));
  // Orders whose redeemed points a cancellation left taken ("points redeemed on a cancelled order").
  router.get('/redeemed-on-cancelled', redeemedOnCancelled(parts));
  router.post('/orders/:key/give-back-redeemed', giveBackRedeemed(parts));
  router.get('/orders/:key', oneOrder(parts));
  router.post('/resync', startResync(parts));
  router.get('/resync', resyncList(parts));
  router.get('/resync/:id', oneResync(parts));
}

const orderList = (parts: AdminApiParts) => {
  const { store, accounts } = parts.engine;
  const wordsParts = wordsPartsOf(parts);
  return async (req: Request, res: Response) => {
    const query = read(orderQuery, req.query);
    const { total, orders } = await store.listOrders(query);
    const points = await pointsOf(orders, accounts, 'operator');
    const worded = await withWords(wordsParts, orders);
    res.json({
      total,
      page: query.page,
      limit: query.limit,
      orders: worded.map((order, i) => ({ ...order, points: points[i] })),
    });
  };
};

const redeemedOnCancelled =
  ({ engine }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    res.json({ orders: await engine.redeemedPoints.list() });
  };

const giveBackRedeemed =
  ({ engine, tokenLabel }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const body = read(giveBackBody, req.body);
    const result = await engine.redeemedPoints.giveBack(String(req.params.key), {
      by: tokenLabel,
      reason: body.reason,
      activityId: body.activityId,
    });
    switch (result.kind) {
      case 'given':
        return void res.status(201).json({ adjustment: result.adjustment });
      case 'refused':
        return void res.status(result.status).json({ error: result.reason });
      case 'failed':
        return void adjusted(res, { adjustment: result.adjustment, error: result.error });
      case 'unknown':
        return void adjusted(res, { adjustment: result.adjustment, deadLetter: result.deadLetter });
    }
  };

const oneOrder = (parts: AdminApiParts) => {
  const { store, accounts } = parts.engine;
  const wordsParts = wordsPartsOf(parts);
  return async (req: Request, res: Response) => {
    const order = await store.getOrder(String(req.params.key));
    if (!order) return void res.status(404).json({ error: `no order ${req.params.key}` });
    const [points] = await pointsOf([pointsSourceOf(order)], accounts, 'operator');
    res.json({ order: { ...withDetailWords(order), points, words: await wordsOfRecord(wordsParts, order) } });
  };
};

const startResync =
  ({ resyncJobs }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const body = read(resyncBody, req.body);
    const started = await resyncJobs.start(body);
    if (!started.ok)
      throw new BadInput(
        started.reason.startsWith('loyalty-bridge has no API access to') ? 'shop' : 'platform',
        started.reason,
      );
    res.status(202).location(`/admin/api/resync/${started.job.id}`).json({ job: started.job });
  };

const resyncList =
  ({ resyncJobs }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    res.json({ jobs: await resyncJobs.list() });
  };

const oneResync =
  ({ resyncJobs }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const job = await resyncJobs.get(String(req.params.id));
    if (!job) return void res.status(404).json({ error: `no resync ${req.params.id}` });
    res.json({ job });
  };
