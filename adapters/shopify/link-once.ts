// A signed App URL opens the shop's page outside the admin once. Shopify's link is signed for 90 seconds with
// no nonce, and outside the admin no session token says whose browser it is: without this, anyone who saw
// the link (a proxy's log, a shared screen) within those seconds could send it again for a session of their
// own. Each link's hmac is kept as a 'callback-payload' record until it can no longer pass; addRecord is
// atomic across bridges, so of two uses racing exactly one wins.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { recordType } from '../../src/core/store/roles/record-types.ts';
import type { RecordRole } from '../../src/core/store/roles/records.ts';

const PREFIX = 'shopify-app-url:';
const KIND = recordType<{ expiresAt: string }>('callback-payload', z.looseObject({ expiresAt: z.string() }), PREFIX);
/** Shopify's 90 seconds either way, and a margin for bridges whose clocks differ. */
const KEPT_MS = 5 * 60_000;

export type LinkStore = Pick<RecordRole, 'addRecord' | 'listRecords' | 'deleteRecord'>;

/** True the first time this signed link (its hmac) is used; false for every use after. */
export async function firstUseOfLink(store: LinkStore, hmac: string, now = Date.now()): Promise<boolean> {
  for (const { id, value } of await store.listRecords(KIND))
    if (Date.parse(value.expiresAt) < now) await store.deleteRecord(KIND, id);
  const id = `${PREFIX}${createHash('sha256').update(hmac).digest('hex')}`;
  const { added } = await store.addRecord(KIND, id, { expiresAt: new Date(now + KEPT_MS).toISOString() });
  return added;
}
