// Deliveries kept by releases before the ledger kept only what translation
// reads hold whole bodies: street addresses, the buyer's IP and browser. At
// the first start of this release, the inbox's and the dead letters' are
// trimmed by their own platform's adapter (keptBody), backups included, and a
// 'migration' record says it was done. A delivery whose platform has no
// adapter configured at that start cannot be read, so it stays whole and the
// step is tried again at the next start. Trimming is a no-op on a body already
// trimmed, so two instances doing it at once do no harm.
import { deliveryBody, storedBody, type StoredDelivery } from './delivery.ts';
import type { PlatformAdapter } from './platform-adapter.ts';
import type { LedgerStore } from './store/ledger-store.ts';
import type { Logger } from '../logger.ts';

export const KEPT_FIELDS_MIGRATION = 'kept-fields';

interface KeptFieldsDone {
  at: string;
  inbox: number;
  deadLetters: number;
}

export async function trimEarlierDeliveries(
  store: LedgerStore,
  adapterFor: (platform: string) => PlatformAdapter<unknown> | undefined,
  logger: Logger,
  now: () => Date = () => new Date(),
): Promise<{ inbox: number; deadLetters: number; unread: number } | undefined> {
  if (await store.getRecord<KeptFieldsDone>('migration', KEPT_FIELDS_MIGRATION)) return undefined;
  let unread = 0;
  const trim = (delivery: StoredDelivery): StoredDelivery | undefined => {
    const adapter = adapterFor(delivery.platform);
    if (!adapter) {
      unread++;
      return undefined;
    }
    if (!adapter.keptBody) return undefined;
    const kept = storedBody(adapter.keptBody(delivery.topic, deliveryBody(delivery)));
    return kept.body === delivery.body && kept.bodyEncoding === delivery.bodyEncoding
      ? undefined
      : { ...delivery, ...kept };
  };
  const trimmed = await store.trimDeliveries(trim);
  if (trimmed.inbox + trimmed.deadLetters > 0)
    logger.info(
      trimmed,
      'deliveries kept whole by an earlier release now keep only the fields the bridge reads (no street address, IP or browser)',
    );
  if (unread > 0) {
    logger.warn(
      { deliveries: unread },
      'deliveries of a platform not configured now keep their whole bodies; they are trimmed at a start with that platform configured',
    );
  } else {
    await store.putRecord<KeptFieldsDone>('migration', KEPT_FIELDS_MIGRATION, { at: now().toISOString(), ...trimmed });
  }
  return { ...trimmed, unread };
}
