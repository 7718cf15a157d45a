// How orders and inbox entries are laid out in their tables, and read back.
// An order is split in two JSON columns: fold (written by folding events) and
// progress (written by the worker), so that neither overwrites the other; the
// columns beside them are copies for querying.
import type { Lane } from '../../lanes.ts';
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import type { FoldPart, OrderRecord, ProgressPart } from '../../order-record.ts';
import { upgradeInboxEntry, upgradeOrder } from '../format/upgrade-records.ts';

export interface OrderRow {
  key: string;
  platform: string;
  shop: string;
  order_id: string;
  updated_at: Date;
  due_at: Date | null;
  version: string;
  fold_version: string;
  fold: FoldPart;
  progress: ProgressPart;
  lane: Lane;
}

export const ORDER_COLUMNS =
  'key, platform, shop, order_id, updated_at, due_at, version, fold_version, fold, progress, lane';

export function recordOf(row: OrderRow): OrderRecord {
  return upgradeOrder({
    key: row.key,
    platform: row.platform,
    shop: row.shop,
    orderId: row.order_id,
    ...row.fold,
    ...row.progress,
    updatedAt: row.updated_at.toISOString(),
    dueAt: row.due_at?.toISOString() ?? null,
    version: Number(row.version),
    foldVersion: Number(row.fold_version),
    lane: row.lane,
  });
}

/** The columns kept beside the JSON for lists, counts and search. */
export const summaryColumns = (record: OrderRecord) => ({
  orderName: record.snapshot.orderName,
  state: record.target?.state ?? 'new',
  reason: record.target?.reason ?? null,
  upstream: record.upstream.points,
  email: record.snapshot.customer.email,
  mobile: record.snapshot.customer.mobile,
});

export interface InboxRow {
  key: string;
  aliases: string[];
  received_at: Date;
  entry: Pick<InboxEntry, 'delivery' | 'events' | 'lane' | 'erasures'>;
  retry: EntryRetry | null;
}

export const INBOX_COLUMNS = 'key, aliases, received_at, entry, retry';

export const entryOf = (row: InboxRow): InboxEntry =>
  upgradeInboxEntry({
    key: row.key,
    aliases: row.aliases,
    receivedAt: row.received_at.toISOString(),
    ...row.entry,
    retry: row.retry,
  });

/**
 * What an inbox row's entry column holds: the delivery as received, or events already in neutral form, the lane of
 * its work, and what customers' erasures reached of it.
 */
export const entryPayload = (entry: InboxEntry): InboxRow['entry'] => ({
  ...(entry.delivery ? { delivery: entry.delivery } : {}),
  ...(entry.events ? { events: entry.events } : {}),
  ...(entry.lane ? { lane: entry.lane } : {}),
  ...(entry.erasures?.length ? { erasures: entry.erasures } : {}),
});
