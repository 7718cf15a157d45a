// The acted-once records of intake: a destructive body (an uninstall, a redaction) acts once, however
// often the platform sends the same bytes again, until something lets it act again.
import { z } from 'zod';
import type { ActsOnce } from './platform-adapter.ts';
import { digestOf, type StoredDelivery } from './delivery.ts';
import { SHOP_KIND } from './store/roles/core-kinds.ts';
import { recordType } from './store/roles/record-types.ts';
import type { IntakeSteps } from './intake-steps.ts';

/** What is kept of a destructive body acted on: its digest (the id) and when; nothing of the shop or the customer. */
interface ActedOnce {
  topic: string;
  at: string;
}

const ACTED_ONCE_KIND = recordType<ActedOnce>('acted-once', z.looseObject({ topic: z.string(), at: z.string() }));

/** A destructive body's identity: its platform, topic and exact bytes as they came (which name the shop). */
const actedOnceId = (delivery: StoredDelivery) => digestOf(delivery);

/**
 * A body that takes a customer's data away, or a shop's install, acts once
 * however long after it comes again (the dedupe window forgets, this record
 * does not), until what lets it act again has happened (ActsOnce): the
 * platforms send the same bytes for a later install's uninstall and
 * shop/redact. The record is kept in the same step as the act.
 */
export async function actedBefore(steps: IntakeSteps, delivery: StoredDelivery, once: ActsOnce): Promise<boolean> {
  const acted = await steps.o.store.getRecord(ACTED_ONCE_KIND, actedOnceId(delivery));
  if (!acted) return false;
  if (once !== 'ever') {
    const state = await steps.o.store.getRecord(SHOP_KIND, `${delivery.platform}:${delivery.shop}`);
    const since = once === 'per-install' ? state?.installedAt : state?.uninstalledAt;
    if (since && Date.parse(since) > Date.parse(acted.at)) return false;
  }
  steps.o.logger.warn(
    { platform: delivery.platform, topic: delivery.topic, shop: delivery.shop, actedAt: acted.at },
    'a body that was acted on before came again, with nothing since that lets it act again: not acted on',
  );
  return true;
}

export function actedOn(
  steps: IntakeSteps,
  delivery: StoredDelivery,
): { kind: 'acted-once'; id: string; value: ActedOnce } {
  return {
    kind: 'acted-once',
    id: actedOnceId(delivery),
    value: { topic: delivery.topic, at: steps.o.now().toISOString() },
  };
}
