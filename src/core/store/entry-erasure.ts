// A customer's erasure and the inbox, the same on both backends (issue 64). Intake reads an entry, then
// commits what it made of it; an erasure in between rewrites the stored entry, not intake's copy, and the step
// would fold the customer back. So the erasure records on the entry which orders it reached, and the step, which
// takes the entry as it stands when it commits (in its transaction, or its turn of lowdb's queue), erases those
// orders as it folds them: what the erasure would have left, had the step gone first.
import type { EntryErasure, InboxEntry } from '../delivery.ts';
import { orderKey, type OrderEvent } from '../order-event.ts';
import type { OrderRecord } from '../order-record.ts';
import { inScope, orderMatches } from './customer-data.ts';
import type { CustomerMatch, DeliveryRedactor } from './ledger-store.ts';

const eventIsAbout = (event: OrderEvent, match: CustomerMatch): boolean =>
  orderMatches({ ...event, snapshot: { customer: event.customer } } as unknown as OrderRecord, match);

const deliveryIsAbout = (entry: InboxEntry, match: CustomerMatch, redactor: DeliveryRedactor): boolean =>
  Boolean(
    entry.delivery && inScope(entry.delivery.platform, entry.delivery.shop, match) && redactor(entry.delivery).about,
  );

export const entryIsAbout = (entry: InboxEntry, match: CustomerMatch, redactor: DeliveryRedactor): boolean =>
  Boolean(entry.events?.some((event) => eventIsAbout(event, match))) || deliveryIsAbout(entry, match, redactor);

const withoutContact = (event: OrderEvent): OrderEvent => ({
  ...event,
  customer: { name: null, email: null, mobile: null },
  attributes: {},
  landingSite: null,
});

/** The entry as the customer's erasure leaves it, with what it reached recorded; undefined when it is not about them. */
export function erasedEntry(
  entry: InboxEntry,
  match: CustomerMatch,
  redactor: DeliveryRedactor,
  at: string,
): InboxEntry | undefined {
  if (!entryIsAbout(entry, match, redactor)) return undefined;
  // A delivery about the customer is stripped of everyone's contact (redact.ts), so every order it tells of is reached.
  const reach: EntryErasure = deliveryIsAbout(entry, match, redactor)
    ? { at, ...(match.exceptOrderKeys?.length ? { except: [...match.exceptOrderKeys] } : {}) }
    : { at, orders: [...new Set((entry.events ?? []).filter((event) => eventIsAbout(event, match)).map(orderKey))] };
  return {
    ...entry,
    ...(entry.delivery ? { delivery: redactor(entry.delivery).redacted } : {}),
    ...(entry.events
      ? { events: entry.events.map((event) => (eventIsAbout(event, match) ? withoutContact(event) : event)) }
      : {}),
    erasures: [...(entry.erasures ?? []), reach],
  };
}

/**
 * When the latest of the erasures that reached an entry reached one of the orders it folds into; undefined when
 * none did. The step erases the order as it folds it (eraseOrder), before anything of it is written: whatever the
 * step read, before the erasure or after, nothing of the customer stays, and later events add none back.
 */
export function reachedAt(erasures: readonly EntryErasure[] | null | undefined, orderKey: string): string | undefined {
  let at: string | undefined;
  for (const reach of erasures ?? [])
    if (reach.orders ? reach.orders.includes(orderKey) : !reach.except?.includes(orderKey)) at = reach.at;
  return at;
}
