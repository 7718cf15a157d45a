// What an approval leaves for the browser that comes back from it. WooCommerce POSTs the key to the
// callback, then sends the browser to return_url with the same user_id; the callback leaves a return
// ticket under the nonce's hash, for a few minutes, which the return takes once. Only the return may call
// the store: WooCommerce waits on the callback inside its own request, and a small site's one PHP worker
// could not answer.
import { z } from 'zod';
import type { RecordRole, LedgerLifecycle } from '../../src/core/store/ledger-store.ts';
import { recordType, type RecordType } from '../../src/core/store/roles/record-types.ts';
import { sha256, type PendingConnect } from './connect.ts';
import type { WooKeyPermissions } from './stores.ts';

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

const TICKET = recordType<ReturnTicket>(
  'woocommerce-return',
  z.looseObject({
    platform: z.literal('woocommerce'),
    purpose: z.enum(['connect', 'reentry']),
    forShop: z.string(),
    storeUrl: z.string(),
    browser: z.string().optional(),
    keyId: z.number().nullable(),
    consumerKey: z.string().optional(),
    consumerSecret: z.string().optional(),
    keyPermissions: z.enum(['read', 'write', 'read_write']).optional(),
    createdAt: z.string(),
    expiresAt: z.string(),
  }),
);

export async function keepReturnTicket(
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>,
  nonce: string,
  ticket: Omit<ReturnTicket, 'createdAt' | 'expiresAt' | 'platform'>,
  now = new Date(),
): Promise<void> {
  for (const { id, value } of await store.listRecords(TICKET))
    if (Date.parse(value.expiresAt) <= now.getTime()) await store.deleteRecord(TICKET, id);
  await store.putRecord(TICKET, ticketId(nonce), {
    platform: 'woocommerce',
    ...ticket,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + RETURN_TTL_MS).toISOString(),
  });
}

/** A shop's re-entry tickets awaiting their browser, unexpired: their record ids and when each was made. */
export async function reentryTickets(
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>,
  shop: string,
  now = new Date(),
): Promise<Array<{ type: RecordType<unknown>; id: string; createdAt: string }>> {
  return (await store.listRecords(TICKET))
    .filter(
      ({ value }) =>
        value.purpose === 'reentry' && value.forShop === shop && Date.parse(value.expiresAt) > now.getTime(),
    )
    .map(({ id, value }) => ({ type: TICKET, id, createdAt: value.createdAt }));
}

/** The ticket the callback left for this nonce, taken: it works once, before it expires. */
export async function takeReturnTicket(
  store: RecordRole & Pick<LedgerLifecycle, 'exclusive'>,
  nonce: string,
  now = new Date(),
): Promise<ReturnTicket | undefined> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(nonce)) return undefined;
  const id = ticketId(nonce);
  const taken = await store.exclusive(id, async () => {
    const ticket = await store.getRecord(TICKET, id);
    if (ticket) await store.deleteRecord(TICKET, id);
    return ticket;
  });
  const ticket = taken.ran ? taken.value : undefined;
  return ticket && Date.parse(ticket.expiresAt) > now.getTime() ? ticket : undefined;
}
