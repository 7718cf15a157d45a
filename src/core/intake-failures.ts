// What intake does with a delivery it cannot read now: ask the platform again later, with backoff, or,
// past RETRY_MAX_AGE_HOURS or when it can never be read, make it a dead letter for a person.
import { createHash } from 'node:crypto';
import { PlatformUnavailableError } from './platform-adapter.ts';
import { backoffDelay } from './backoff.ts';
import type { Lease } from './leases.ts';
import type { InboxEntry, StoredDelivery } from './delivery.ts';
import { keptDelivery } from './kept-deliveries.ts';
import type { NewDeadLetter } from './store/ledger-store.ts';
import { HOUR, type IntakeSteps } from './intake-steps.ts';

/** A dead letter's id for an inbox entry: the same entry never makes two. */
export const deadLetterIdFor = (entryKey: string) =>
  `delivery-${createHash('sha256').update(entryKey).digest('hex').slice(0, 20)}`;

export function deadLetter(
  steps: IntakeSteps,
  entry: InboxEntry,
  delivery: StoredDelivery,
  reason: string,
): NewDeadLetter {
  // A delivery an instance of an earlier release kept whole (during a rolling upgrade) is kept as this one keeps it.
  const adapter = steps.o.adapterFor(delivery.platform);
  delivery = (adapter && keptDelivery(adapter, delivery)) ?? delivery;
  return {
    id: deadLetterIdFor(entry.key),
    kind: 'delivery',
    reason,
    platform: delivery.platform,
    topic: delivery.topic,
    shop: delivery.shop,
    deliveryKey: entry.key,
    delivery,
  };
}

export async function defer(
  steps: IntakeSteps,
  entry: InboxEntry,
  delivery: StoredDelivery,
  error: unknown,
  lease: Lease,
): Promise<void> {
  const now = steps.o.now();
  const message = (error as Error).message ?? String(error);
  const firstFailureAt = entry.retry?.firstFailureAt ?? now.toISOString();
  if (now.getTime() - Date.parse(firstFailureAt) >= steps.o.maxRetryAgeMs) {
    const reason = `${delivery.platform} did not answer for ${Math.round(steps.o.maxRetryAgeMs / HOUR)} h: ${message}`;
    steps.o.logger.error(
      { platform: delivery.platform, topic: delivery.topic, delivery: entry.key, reason },
      'delivery dead-lettered',
    );
    return steps.commit({ entryKey: entry.key, deadLetter: deadLetter(steps, entry, delivery, reason) }, lease);
  }
  if (!(error instanceof PlatformUnavailableError))
    steps.o.logger.error(
      { err: error, platform: delivery.platform, delivery: entry.key },
      'reading a delivery failed; it will be tried again',
    );
  const attempts = (entry.retry?.attempts ?? 0) + 1;
  const delay = backoffDelay(
    attempts,
    { minDelayMs: steps.o.retryMinDelayMs, maxDelayMs: steps.o.retryMaxDelayMs, random: steps.o.random },
    error instanceof PlatformUnavailableError ? error.retryAfterMs : undefined,
  );
  const retryAt = new Date(now.getTime() + delay).toISOString();
  steps.o.logger.warn(
    {
      platform: delivery.platform,
      topic: delivery.topic,
      delivery: entry.key,
      attempts,
      retryInMs: delay,
      error: message,
    },
    'the platform did not answer; the delivery will be read again',
  );
  if (!steps.stillHeld(lease)) return;
  await steps.o.store.deferInbox(lease.owner, entry.key, { attempts, firstFailureAt, retryAt, lastError: message });
}
