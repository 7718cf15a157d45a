// An adapter driven as the bridge drives it: verify and describe the raw
// delivery (before the answer), keep it as the ledger would, translate it
// (after the answer).
import {
  storedDelivery,
  type DeliveryInfo,
  type PlatformAdapter,
  type Translation,
} from '../../src/core/platform-adapter.ts';
import type { StoredDelivery } from '../../src/core/delivery.ts';

export interface Received {
  info: DeliveryInfo;
  stored: StoredDelivery;
}

export async function receive<Delivery>(
  adapter: PlatformAdapter<Delivery>,
  body: string | Buffer,
  headers: Record<string, string>,
  receivedAt = new Date(),
): Promise<Received> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const verified = await adapter.verify({ body: bytes, headers, receivedAt });
  if (!verified.ok) throw new Error(`refused (${verified.status}): ${verified.reason}`);
  const info = adapter.describe(verified.delivery);
  const kept = adapter.keptBody?.(info.topic, bytes);
  return { info, stored: storedDelivery(adapter.platform, info, bytes, receivedAt, kept) };
}

/** What the delivery becomes when the ledger keeps its whole body, as releases before kept fields did. */
export async function translateWhole<Delivery>(
  adapter: PlatformAdapter<Delivery>,
  body: string | Buffer,
  headers: Record<string, string>,
  receivedAt = new Date(),
): Promise<Translation> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const { info } = await receive(adapter, bytes, headers, receivedAt);
  return adapter.translate(storedDelivery(adapter.platform, info, bytes, receivedAt));
}

/** What the delivery becomes: 'ignored' or 'mislabelled' when the route would not even keep it. */
export async function translateRaw<Delivery>(
  adapter: PlatformAdapter<Delivery>,
  body: string | Buffer,
  headers: Record<string, string>,
  receivedAt = new Date(),
): Promise<Translation | { kind: 'mislabelled'; reason: string }> {
  const { info, stored } = await receive(adapter, body, headers, receivedAt);
  if (info.ignore) return { kind: 'ignored', reason: info.ignore };
  if (info.mislabelled) return { kind: 'mislabelled', reason: info.mislabelled };
  return adapter.translate(stored);
}
