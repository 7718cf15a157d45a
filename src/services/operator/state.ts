// What the operator is told of each platform's reading and receiving: reconciliation (what a resync reads and how
// far it got) and connections (webhook deliveries and subscriptions), for the status and their own routes.
import { reconciliationId } from '../../core/reconciler.ts';
import type { ReconciliationState } from '../../core/store/ledger-store.ts';
import { RECONCILIATION_KIND } from '../../core/store/roles/core-kinds.ts';
import { HEALTH_KIND } from '../../core/order-source.ts';
import type { OperatorParts } from './parts.ts';

export async function reconciledState({ engine: { store }, resyncJobs }: OperatorParts) {
  const states = await store.listRecords(RECONCILIATION_KIND);
  const result: Record<string, ReconciliationState & { platform: string; shop: string | null }> = {};
  // What a resync reads (a first run's demo shops among them), not only the platforms' own: the dashboard
  // offers what POST /resync starts.
  for (const source of resyncJobs.sources) {
    const shops = await source.shops().catch(() => [] as string[]);
    for (const each of shops.length > 0 ? shops : ['']) {
      const state = states.find(({ id }) => id === reconciliationId(source.platform, each))?.value;
      result[shops.length > 1 ? reconciliationId(source.platform, each) : source.platform] = {
        platform: source.platform,
        shop: each || null,
        highWaterMark: state?.highWaterMark ?? null,
        lastRun: state?.lastRun ?? null,
      };
    }
  }
  return result;
}

/** Per platform: deliveries in the last hour, the last one, signature failures, and what the platform says of our subscriptions. */
export async function connectionsState({ engine: { store }, platforms, resyncJobs, activity }: OperatorParts) {
  const reports = (await store.listRecords(HEALTH_KIND)).map(({ value }) => value);
  const notesOf = async (name: string) => {
    const built = platforms.modules.find(({ module }) => module.name === name);
    const notes = built?.parts.notes;
    // What to do about topics declared but not yet seen delivered: the module's own words, as the CLI's status says.
    const unconfirmed = built?.module.unconfirmedWhy;
    if (!notes && !unconfirmed) return {};
    return { notes: { notServed: notes?.notServed, unconfirmed, attention: (await notes?.attention()) ?? [] } };
  };
  // Store API: what a resync reads (the demo's shops too); only a platform's own source has subscriptions.
  const reads = (name: string) => resyncJobs.sources.some((source) => source.platform === name);
  return Promise.all(
    platforms.directory
      .filter(({ name }) => platforms.adapterFor(name) || reads(name))
      .map(async ({ name, names }) => ({
        platform: name,
        label: names.platform,
        webhooks: Boolean(platforms.adapterFor(name)),
        ...{ api: reads(name), subscriptionsHeld: platforms.sources.some((each) => each.platform === name) },
        ...activity.platform(name),
        subscriptions: reports.filter((report) => report.platform === name),
        // In the operator's words, the module's own: how to serve a shop, what needs their eye.
        ...(await notesOf(name)),
      })),
  );
}
