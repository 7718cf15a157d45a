// The admin API's orders: the list and one order in words with their points, points redeemed on a cancelled order
// (and giving them back), and resyncs (reading a platform's orders again).
import type { Router } from 'express';
import { answerAdjusted, read, type AdminApiParts } from './admin-parts.ts';
import { giveBackBody, orderQuery, resyncBody } from './admin-input.ts';

export function adminOrderRoutes(router: Router, { operator: { orders }, tokenLabel }: AdminApiParts): void {
  router.get('/orders', async (req, res) => {
    res.json(await orders.orders(read(orderQuery, req.query)));
  });
  // Orders whose redeemed points a cancellation left taken ("points redeemed on a cancelled order").
  router.get('/redeemed-on-cancelled', async (_req, res) => {
    res.json(await orders.redeemedOnCancelled());
  });
  router.post('/orders/:key/give-back-redeemed', async (req, res) => {
    const body = read(giveBackBody, req.body);
    answerAdjusted(res, await orders.giveBackRedeemed(String(req.params.key), body, tokenLabel));
  });
  router.get('/orders/:key', async (req, res) => {
    res.json(await orders.order(String(req.params.key)));
  });
  router.post('/resync', async (req, res) => {
    const { job } = await orders.startResync(read(resyncBody, req.body));
    res.status(202).location(`/admin/api/resync/${job.id}`).json({ job });
  });
  router.get('/resync', async (_req, res) => {
    res.json(await orders.resyncs());
  });
  router.get('/resync/:id', async (req, res) => {
    res.json(await orders.resync(String(req.params.id)));
  });
}
