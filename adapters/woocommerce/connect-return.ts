// What an approval leaves for the browser that comes back from it. WooCommerce POSTs the key to the
// callback, then sends the browser to return_url with the same user_id; the callback leaves a return
// ticket under the nonce's hash, for a few minutes, which the return takes once. Only the return may call
// the store: WooCommerce waits on the callback inside its own request, and a small site's one PHP worker
// could not answer.
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import { sha256, type PendingConnect } from './connect.ts';
import type { WooKeyPermissions } from './stores.ts';

const KIND = 'woocommerce-return';
/** The browser comes back at once; this only leaves room for a slow page load. */
export const RETURN_TTL_MS = 10 * 60_000;

export interface ReturnTicket {
  platform: 'woocommerce';
  purpose: PendingConnect['purpose'];
  forShop: string;
  storeUrl: string;
  /** A re-entry: the hash of the cookie secret of the browser that started it. */
  browser?: string | undefined;
  keyId: number | null;
  /** A re-entry's key, offered: it replaces the store's old one only once the store accepted it. */
  consumerKey?: string | undefined;
  consumerSecret?: string | undefined;
  keyPermissions?: WooKeyPermissions | undefined;
  createdAt: string;
  expiresAt: string;
}

const ticketId = (nonce: string) => `woocommerce-return:${sha256(nonce)}`;

export async function keepReturnTicket(
  store: RecordRole & LedgerLifecycle,
  nonce: string,
  ticket: Omit<ReturnTicket, 'createdAt' | 'expiresAt' | 'platform'>,
  now = new Date(),
): Promise<void> {
  for (const { id, value } of await store.listRecords<Partial<ReturnTicket>>(KIND))
    if (Date.parse(value.expiresAt ?? '') <= now.getTime()) await store.deleteRecord(KIND, id);
  await store.putRecord<ReturnTicket>(KIND, ticketId(nonce), {
    platform: 'woocommerce',
    ...ticket,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + RETURN_TTL_MS).toISOString(),
  });
}

/** A shop's re-entry tickets awaiting their browser, unexpired: their record ids and when each was made. */
export async function reentryTickets(
  store: RecordRole & LedgerLifecycle,
  shop: string,
  now = new Date(),
): Promise<Array<{ kind: typeof KIND; id: string; createdAt: string }>> {
  return (await store.listRecords<Partial<ReturnTicket>>(KIND))
    .filter(
      ({ value }) =>
        value.purpose === 'reentry' && value.forShop === shop && Date.parse(value.expiresAt ?? '') > now.getTime(),
    )
    .map(({ id, value }) => ({ kind: KIND, id, createdAt: value.createdAt ?? '' }));
}

/** The ticket the callback left for this nonce, taken: it works once, before it expires. */
export async function takeReturnTicket(
  store: RecordRole & LedgerLifecycle,
  nonce: string,
  now = new Date(),
): Promise<ReturnTicket | undefined> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(nonce)) return undefined;
  const id = ticketId(nonce);
  const taken = await store.exclusive(id, async () => {
    const ticket = await store.getRecord<ReturnTicket>(KIND, id);
    if (ticket) await store.deleteRecord(KIND, id);
    return ticket;
  });
  const ticket = taken.ran ? taken.value : undefined;
  return ticket && Date.parse(ticket.expiresAt) > now.getTime() ? ticket : undefined;
}
