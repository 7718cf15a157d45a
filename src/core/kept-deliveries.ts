// Deliveries kept whole by releases before kept-fields.ts (street addresses, the buyer's IP and browser)
// are trimmed by their platform's adapter at the first start, backups included, once, as a 'migration'
// record says. One whose platform is not configured stays whole until a later start can read it. Trimming
// a trimmed body changes nothing, so two instances doing it at once do no harm (docs/upgrading.md).
import { deliveryBody, digestOf, storedBody, type StoredDelivery } from './delivery.ts';
import type { PlatformAdapter } from './platform-adapter.ts';
import type { RecordRole, PrivacyRole } from './store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { z } from 'zod';
import { recordType } from './store/roles/record-types.ts';

export const KEPT_FIELDS_MIGRATION = 'kept-fields';

interface KeptFieldsDone {
  at: string;
  inbox: number;
  deadLetters: number;
  /** Missing where the first release of this migration kept it. */
  unread?: number | undefined;
}

const DONE = recordType<KeptFieldsDone>(
  'migration',
  z.looseObject({ at: z.string(), inbox: z.number(), deadLetters: z.number(), unread: z.number().optional() }),
  KEPT_FIELDS_MIGRATION,
);

/**
 * The delivery as this release keeps it, with the digest of its body as it
 * came (what a destructive body is known again by); undefined when its
 * adapter keeps it as it is.
 */
export function keptDelivery(adapter: PlatformAdapter<unknown>, delivery: StoredDelivery): StoredDelivery | undefined {
  if (!adapter.keptBody) return undefined;
  const kept = storedBody(adapter.keptBody(delivery.topic, deliveryBody(delivery)));
  if (kept.body === delivery.body && kept.bodyEncoding === delivery.bodyEncoding) return undefined;
  return { ...delivery, ...kept, digest: digestOf(delivery) };
}

export async function trimEarlierDeliveries(
  store: RecordRole & PrivacyRole,
  adapterFor: (platform: string) => PlatformAdapter<unknown> | undefined,
  logger: Logger,
  now: () => Date = () => new Date(),
): Promise<{ inbox: number; deadLetters: number; unread: number } | undefined> {
  // Done, unless some could not be read: each start tries those again, once their platform may be configured.
  const done = await store.getRecord(DONE, KEPT_FIELDS_MIGRATION);
  if (done && !((done.unread ?? 0) > 0)) return undefined;
  let unread = 0;
  const trim = (delivery: StoredDelivery): StoredDelivery | undefined => {
    const adapter = adapterFor(delivery.platform);
    if (adapter) return keptDelivery(adapter, delivery);
    unread++;
    return undefined;
  };
  const trimmed = await store.trimDeliveries(trim);
  if (trimmed.inbox + trimmed.deadLetters > 0)
    logger.info(
      trimmed,
      'deliveries kept whole by an earlier release now keep only the fields the bridge reads (no street address, IP or browser)',
    );
  if (unread > 0)
    logger.warn(
      { deliveries: unread },
      'deliveries of a platform not configured keep their whole bodies until a start where it is: configure it, or discard those dead letters',
    );
  await store.putRecord(DONE, KEPT_FIELDS_MIGRATION, {
    at: now().toISOString(),
    ...trimmed,
    unread,
  });
  return { ...trimmed, unread };
}
