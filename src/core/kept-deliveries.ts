// Deliveries kept by releases before the ledger kept only what translation
// reads hold whole bodies: street addresses, the buyer's IP and browser. At
// the first start of this release, the inbox's and the dead letters' are
// trimmed by their own platform's adapter (keptBody), backups included, and a
// 'migration' record says it was done. A delivery whose platform has no
// adapter configured at that start cannot be read: it stays whole, the
// start says how many, and each later start tries again until none is left.
// Later, a delivery an instance of an earlier release keeps whole during a
// rolling upgrade is trimmed when it becomes a dead letter (intake.ts), and
// goes when it is translated. Trimming is a no-op on a body already trimmed,
// so two instances doing it at once do no harm.
import { deliveryBody, digestOf, storedBody, type StoredDelivery } from './delivery.ts';
import type { PlatformAdapter } from './platform-adapter.ts';
import type { LedgerStore } from './store/ledger-store.ts';
import type { Logger } from '../logger.ts';

export const KEPT_FIELDS_MIGRATION = 'kept-fields';

interface KeptFieldsDone {
  at: string;
  inbox: number;
  deadLetters: number;
  unread: number;
}

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
  store: LedgerStore,
  adapterFor: (platform: string) => PlatformAdapter<unknown> | undefined,
  logger: Logger,
  now: () => Date = () => new Date(),
): Promise<{ inbox: number; deadLetters: number; unread: number } | undefined> {
  // Done, unless some could not be read: each start tries those again, once their platform may be configured.
  const done = await store.getRecord<KeptFieldsDone>('migration', KEPT_FIELDS_MIGRATION);
  if (done && !(done.unread > 0)) return undefined;
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
  await store.putRecord<KeptFieldsDone>('migration', KEPT_FIELDS_MIGRATION, {
    at: now().toISOString(),
    ...trimmed,
    unread,
  });
  return { ...trimmed, unread };
}
