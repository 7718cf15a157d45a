// The one place a delivery enters the ledger, from the webhook route or from a platform's API (resync,
// reconciliation): the duplicate check and the durable store are one step of the store, so a duplicate is
// answered only once the first copy is durable, and nothing here waits on another server. What the delivery
// means is worked out after the answer, by intake, from what was stored here.
import type { AckPressure } from './ack-pressure.ts';
import type { InboxEntry, StoredDelivery } from './delivery.ts';
import type { Lane } from './lanes.ts';
import type { OrderEvent } from './order-event.ts';
import type { IntakeRole, RecordRole } from './store/ledger-store.ts';

export type IngestResult = 'accepted' | 'duplicate';

export interface Ingest {
  /** A platform's verified delivery, to be translated after the answer. */
  delivery(key: string, delivery: StoredDelivery, aliases?: string[], lane?: Lane): Promise<IngestResult>;
  /** Order events already in neutral form (resync, reconciliation, a retried dead letter), in the lane of the work they cause (live unless told). */
  events(key: string, events: OrderEvent[], aliases?: string[], lane?: Lane): Promise<IngestResult>;
}

/** ackPressure hears of each platform delivery answered: intake yields to them in a burst. */
export function ingest(
  store: IntakeRole & RecordRole,
  now: () => Date = () => new Date(),
  ackPressure?: Pick<AckPressure, 'noteAccepted'>,
): Ingest {
  const accept = (entry: Omit<InboxEntry, 'receivedAt' | 'retry'>) =>
    store.accept({ ...entry, receivedAt: now().toISOString(), retry: null });
  return {
    delivery: (key, delivery, aliases = [], lane = 'live') => {
      ackPressure?.noteAccepted();
      return accept({ key, aliases, delivery, ...(lane === 'live' ? {} : { lane }) });
    },
    events: (key, events, aliases = [], lane = 'live') =>
      accept({ key, aliases, events, ...(lane === 'live' ? {} : { lane }) }),
  };
}
