// A window of a shop's own orders read again from its page, a few times an hour at most, and the jobs that do
// it. Each handler is a route of shop-admin-api.ts.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { refuse } from './admin-accounts.ts';
import { date, read } from './admin-api.ts';
import type { ShopAdminContext } from './shop-admin-context.ts';
import { byOf, shopRefOf } from './shop-ref.ts';

/**
 * Resyncs a shop starts in an hour, counted from the jobs the ledger keeps.
 * Each reads the shop's orders from its platform and queues those that
 * changed as backfill, which lanes keep behind live orders: a few an hour
 * put right what went missing, more would only keep the platform's API busy.
 */
const RESYNCS_PER_HOUR = 3;
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

// A window of the shop's orders read again: what a lost webhook or an outage let slip is put right.
export const startResync =
  ({ resyncJobs, logger, hourly }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const body = read(shopResync, req.body);
    const { platform, shop } = shopRefOf(res);
    const cap = {
      what: 'resync',
      limit: RESYNCS_PER_HOUR,
      madeSince: async (since: string) =>
        (await resyncJobs.ofShop(platform, shop)).filter((job) => job.startedAt > since).length,
      refusal: `a shop reads its orders again at most ${RESYNCS_PER_HOUR} times an hour; wait for the last one to finish`,
    };
    await hourly(res, cap, async () => {
      const started = await resyncJobs.start({ platform, shop, since: body.since, until: body.until, by: byOf(res) });
      // Not the reason itself: it names the shops the bridge can reach, which are other merchants'.
      if (!started.ok)
        return refuse(res, 409, [
          'the bridge has no working access to your store’s orders: open the app again from your store’s admin',
        ]);
      logger.info({ shop, resync: started.job.id, by: byOf(res) }, 'a shop started a resync');
      res.status(202).location(`/admin/api/resync/${started.job.id}`).json({ job: started.job });
    });
  };

/** GET /resync: the shop's own resync jobs. */
export const listResyncs =
  ({ resyncJobs }: ShopAdminContext): RequestHandler =>
  async (_req, res) => {
    const { platform, shop } = shopRefOf(res);
    res.json({ jobs: await resyncJobs.ofShop(platform, shop) });
  };

/** GET /resync/:id: one of the shop's resync jobs. */
export const readResync =
  ({ resyncJobs }: ShopAdminContext): RequestHandler =>
  async (req, res) => {
    const job = await resyncJobs.get(String(req.params.id));
    const { platform, shop } = shopRefOf(res);
    // Another shop's job, or the operator's over several shops, is answered as if it did not exist.
    if (!job || job.platform !== platform || job.shops.length !== 1 || job.shops[0] !== shop)
      return void res.status(404).json({ error: `no resync ${req.params.id}` });
    res.json({ job });
  };
