// A window of a shop's own orders read again from its page, a few times an hour at most, and the jobs that do it.
import { Refused } from '../refused.ts';
import type { MerchantAsker, MerchantContext } from './parts.ts';

/**
 * Resyncs a shop starts in an hour, counted from the jobs the ledger keeps.
 * Each reads the shop's orders from its platform and queues those that
 * changed as backfill, which lanes keep behind live orders: a few an hour
 * put right what went missing, more would only keep the platform's API busy.
 */
const RESYNCS_PER_HOUR = 3;

/** A window of the shop's own orders: a shop never names a platform, a shop, or orders by id (the operator's). */
export interface ShopResyncWindow {
  since: Date;
  until: Date | undefined;
}

// A window of the shop's orders read again: what a lost webhook or an outage let slip is put right.
export async function startResync(ctx: MerchantContext, asker: MerchantAsker, window: ShopResyncWindow) {
  const { resyncJobs, logger } = ctx;
  const { platform, shop } = asker.shop;
  const cap = {
    what: 'resync',
    limit: RESYNCS_PER_HOUR,
    madeSince: async (since: string) =>
      (await resyncJobs.ofShop(platform, shop)).filter((job) => job.startedAt > since).length,
    refusal: `a shop reads its orders again at most ${RESYNCS_PER_HOUR} times an hour; wait for the last one to finish`,
  };
  return ctx.hourly(asker.shop, cap, async () => {
    const started = await resyncJobs.start({ platform, shop, since: window.since, until: window.until, by: asker.by });
    // Not the reason itself: it names the shops the bridge can reach, which are other merchants'.
    if (!started.ok)
      throw new Refused(409, [
        'the bridge has no working access to your store’s orders: open the app again from your store’s admin',
      ]);
    logger.info({ shop, resync: started.job.id, by: asker.by }, 'a shop started a resync');
    return { job: started.job };
  });
}

/** The shop's own resync jobs. */
export async function listResyncs({ resyncJobs }: MerchantContext, { shop }: MerchantAsker) {
  return { jobs: await resyncJobs.ofShop(shop.platform, shop.shop) };
}

/** One of the shop's resync jobs; null for another shop's, or the operator's over several shops. */
export async function readResync({ resyncJobs }: MerchantContext, { shop }: MerchantAsker, id: string) {
  const job = await resyncJobs.get(id);
  if (!job || job.platform !== shop.platform || job.shops.length !== 1 || job.shops[0] !== shop.shop) return null;
  return { job };
}
