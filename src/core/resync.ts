// Resync: orders fetched from a platform's API go through the same path as
// webhooks (ingest, intake, lifecycle), so a resync only ever fills gaps. An
// unchanged order comes back under the same delivery id, so running the same
// resync twice changes nothing.
import type { Ingest } from './ingest.ts';
import type { Lane } from './lanes.ts';
import type { OrderEvent } from './order-event.ts';

export interface ResyncProgress {
  fetched: number;
  /** Orders whose state was new to the ledger. */
  changed: number;
  /** Orders already known in this state. */
  unchanged: number;
  failed: number;
  errors: string[];
  /** How many orders the source said it would yield, when it could tell (a count before a large resync). */
  expected?: number | undefined;
}

export const emptyProgress = (): ResyncProgress => ({ fetched: 0, changed: 0, unchanged: 0, failed: 0, errors: [] });

/** Resyncs and reconciliations are backfill: live deliveries go before them (lanes.ts). A person's resync of a few chosen orders is live. */
export async function resync(
  source: AsyncIterable<OrderEvent> & { expected?: number | undefined },
  ingest: Pick<Ingest, 'events'>,
  onProgress?: (progress: ResyncProgress) => void,
  lane: Lane = 'backfill',
): Promise<ResyncProgress> {
  const progress = emptyProgress();
  try {
    for await (const event of source) {
      progress.fetched++;
      if (source.expected !== undefined) progress.expected = source.expected;
      try {
        const result = await ingest.events(event.deliveryId, [event], [], lane);
        if (result === 'accepted') progress.changed++;
        else progress.unchanged++;
      } catch (error) {
        progress.failed++;
        progress.errors.push(`order ${event.orderId}: ${(error as Error).message}`);
      }
      onProgress?.(progress);
    }
  } catch (error) {
    // The source itself failed (the platform refused, or went away): what was fetched so far counts.
    progress.errors.push((error as Error).message);
    progress.failed++;
    onProgress?.(progress);
  }
  return progress;
}
