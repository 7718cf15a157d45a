// loyalty-bridge resync --platform <p> [--shop <shop>] --since DATE [--until DATE]
// Through a running bridge (--url), or on the ledger itself with the bridge stopped.
import type { Config } from '../config.ts';
import type { ResyncJob } from '../core/resync-jobs.ts';
import { resync, type ResyncProgress } from '../core/resync.ts';
import type { Logger } from '../logger.ts';
import type { Platform } from '../composition/platforms.ts';
import { SHIPPED_MODULES } from '../platform-registry.ts';
import type { AnyPlatformModule } from '../core/platform-module.ts';
import { fail, out, withLocalEngine, type Remote } from './common.ts';
import { progressReporter } from './progress.ts';

/** What a person sets for the bridge to read a platform's orders, as its module says. */
const ordersNeed = (platform: string) =>
  (SHIPPED_MODULES as readonly AnyPlatformModule[]).find(({ name }) => name === platform)?.needs.orders ??
  `connect a store of ${platform} first`;

export interface ResyncArgs {
  platform: Platform;
  shop: string | undefined;
  since: Date;
  until: Date | undefined;
}

function summarise(result: ResyncProgress): number {
  out(
    `resync done: fetched ${result.fetched}, changed ${result.changed}, unchanged ${result.unchanged}, failed ${result.failed}`,
  );
  for (const error of result.errors) process.stderr.write(`  ${error}\n`);
  return result.failed > 0 ? 1 : 0;
}

export async function remoteResync(remote: Remote, { platform, shop, since, until }: ResyncArgs): Promise<number> {
  const started = await remote.post<{ job?: ResyncJob; error?: string }>('resync', {
    platform,
    ...(shop ? { shop } : {}),
    since: since.toISOString(),
    ...(until ? { until: until.toISOString() } : {}),
  });
  if (started.status !== 202 || !started.body.job)
    return fail(`resync not started: ${started.body.error ?? started.status}`);
  const progress = progressReporter();
  let job = started.body.job;
  while (job.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    job = (await remote.get<{ job: ResyncJob }>(`resync/${job.id}`)).body.job;
    progress.update(job.progress);
  }
  progress.stop();
  return summarise(job.progress);
}

export async function localResync(
  config: Config,
  logger: Logger,
  { platform, shop, since, until }: ResyncArgs,
): Promise<number> {
  if (!config.LOYALTY_BASE_URL)
    return fail(
      'resync: LOYALTY_BASE_URL is not set; in sandbox mode the sandbox lives inside the running bridge, so resync through it with --url',
    );
  return withLocalEngine(config, logger, async ({ engine, platforms }) => {
    const source = platforms.sources.find((candidate) => candidate.platform === platform);
    if (!source) return fail(`resync --platform ${platform}: ${ordersNeed(platform)}`);
    await engine.startWorker();
    const shops = shop ? [shop] : await source.shops();
    const progress = progressReporter();
    const total: ResyncProgress = { fetched: 0, changed: 0, unchanged: 0, failed: 0, errors: [] };
    for (const each of shops) {
      const result = await resync(source.fetchOrders(each, { since, until }), engine.ingest, (current) =>
        progress.update({
          ...current,
          fetched: total.fetched + current.fetched,
          changed: total.changed + current.changed,
          unchanged: total.unchanged + current.unchanged,
          failed: total.failed + current.failed,
        }),
      );
      total.fetched += result.fetched;
      total.changed += result.changed;
      total.unchanged += result.unchanged;
      total.failed += result.failed;
      total.errors.push(...result.errors.map((error) => `${each}: ${error}`));
    }
    progress.stop();
    await engine.drain();
    return summarise(total);
  });
}
