// Each record kind read in the current format, whatever format wrote it: the one place per kind where an
// older shape is mended, so nothing else in the code meets one. Both stores call these where they read a
// record. Each step is a no-op on a record already current, since records are upgraded as they are read,
// not all at once.
import { DEFAULT_ACCOUNT } from '../../accounts.ts';
import type { InboxEntry } from '../../delivery.ts';
import type { OrderRecord, RedeemCode, RefundAmount } from '../../order-record.ts';

/** An order as format 0 may have kept it. */
type StoredOrder = Omit<OrderRecord, 'version' | 'foldVersion' | 'dueAt' | 'refunds'> &
  Partial<Pick<OrderRecord, 'version' | 'foldVersion' | 'dueAt'>> & { refunds: Record<string, RefundAmount | string> };

/** Format 3's one reward code of an order, whose redeem's state was the order's `redemption`. */
type StoredUpstream = OrderRecord['upstream'] & { redeemCode?: RedeemCode | undefined };

export function upgradeOrder(stored: StoredOrder): OrderRecord {
  const order = stored as OrderRecord & StoredOrder;
  // Format 0: kept before versions and due times were (an order with no due time was due when last changed).
  order.version ??= 0;
  order.foldVersion ??= 0;
  if (order.dueAt === undefined) order.dueAt = order.updatedAt;
  // Format 0: a refund as a plain amount, in the shop's currency (ledgers before currencies were kept).
  for (const [id, refund] of Object.entries(order.refunds)) {
    if (typeof refund === 'string') order.refunds[id] = { amount: refund, currency: order.snapshot.total.currency };
  }
  // Before format 3 (loyalty accounts), every call went to the one account the environment describes: an order
  // that made one belongs to the default account. (Since, every first call names its account.)
  if (order.upstream.account === undefined && hasCalled(order)) order.upstream.account = DEFAULT_ACCOUNT;
  upgradeRedeemCode(order.upstream);
  return order;
}

/**
 * Before format 4 an order took one reward code (`redeemCode`), and `redemption` with `redeemedPoints` were that
 * code's redeem (a code's order made no redeem of its own). Since, each code has its own redeem in `redeemCodes`, and
 * `redemption` is the order's own.
 */
function upgradeRedeemCode(upstream: StoredUpstream): void {
  const code = upstream.redeemCode;
  if (code === undefined) return;
  delete upstream.redeemCode;
  upstream.redeemCodes = [{ ...code, redemption: upstream.redemption }];
  upstream.redemption = 'none';
  delete upstream.redeemedPoints;
}

/** Whether any call was made, or may have been, for the order. */
const hasCalled = ({ upstream, calls }: OrderRecord) =>
  upstream.points !== 'none' || upstream.conversion !== 'none' || upstream.redemption !== 'none' || calls.length > 0;

/** An inbox entry as format 0 may have kept it. */
type StoredInboxEntry = Omit<InboxEntry, 'aliases' | 'retry'> & Partial<Pick<InboxEntry, 'aliases' | 'retry'>>;

export function upgradeInboxEntry(stored: StoredInboxEntry): InboxEntry {
  const entry = stored as InboxEntry & StoredInboxEntry;
  // Format 0: entries kept before aliases and retries were.
  entry.aliases ??= [];
  entry.retry ??= null;
  return entry;
}

/** The per-reason counts of a settled chunk's summary: format 0 summaries from before attention reasons have none. */
export function upgradeChunkAttention(attention: Record<string, number> | undefined): Record<string, number> {
  return attention ?? {};
}

/** A dead letter: kept as written since format 0. The place where a later format's change to dead letters is read. */
export function upgradeDeadLetter<T extends { id: string }>(stored: T): T {
  return stored;
}

/**
 * A record of any kind (sessions, shops, reconciliation, ...): kept as
 * written since format 0. The place where a later format's change to records
 * is read. Format 2 seals secret fields; their opening is not an upgrade
 * step but the store's record boundary (record-secrets.ts), called right
 * after this one, where a format 1 plain value is read as plain.
 */
export function upgradeRecord<T>(_kind: string, stored: T): T {
  return stored;
}
