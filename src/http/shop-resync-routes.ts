// A window of a shop's own orders read again from its page, a few times an hour at most, and the jobs that do
// it. Each handler is a route of shop-admin-api.ts: it reads the request, calls the merchant's service
// (src/services/merchant.ts) and answers.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { MerchantService } from '../services/merchant.ts';
import { date, read } from './admin-api.ts';
import { askerOf, notFound } from './shop-admin-context.ts';

/** How far back a shop's page reads: the platforms keep recent orders within reach (60 days, on one platform, without a scope to read older ones). */
const RESYNC_DAYS = 365;
const DAY_MS = 86_400_000;

/** A window of the shop's own orders: a shop never names a platform, a shop, or orders by id (the operator's). */
const shopResync = z
  .strictObject({ since: date('since'), until: date('until').optional() })
  .superRefine(({ since, until }, context) => {
    // Run even when a date did not parse (zod goes on to the object's checks): those are told already.
    if (!(since instanceof Date) || (until !== undefined && !(until instanceof Date))) return;
    const now = Date.now();
    const problem = (path: 'since' | 'until', message: string) =>
      context.addIssue({ code: 'custom', path: [path], message });
    if (since.getTime() > now) problem('since', 'must not be in the future');
    else if (since.getTime() < now - RESYNC_DAYS * DAY_MS)
      problem('since', `must be within the last ${RESYNC_DAYS} days`);
    if (until && until <= since) problem('until', 'must come after since');
  });

/** POST /resync: a window of the shop's orders read again: what a lost webhook or an outage let slip is put right. */
export const startResync =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const { since, until } = read(shopResync, req.body);
    const { job } = await merchant.startResync(askerOf(res), { since, until });
    res.status(202).location(`/admin/api/resync/${job.id}`).json({ job });
  };

/** GET /resync: the shop's own resync jobs. */
export const listResyncs =
  (merchant: MerchantService): RequestHandler =>
  async (_req, res) => {
    res.json(await merchant.resyncs(askerOf(res)));
  };

/** GET /resync/:id: one of the shop's resync jobs. */
export const readResync =
  (merchant: MerchantService): RequestHandler =>
  async (req, res) => {
    const job = await merchant.resync(askerOf(res), String(req.params.id));
    if (!job) return notFound(res, `no resync ${req.params.id}`);
    res.json(job);
  };
