// Whether a shop shows its customers their points in its store: off until its merchant turns it on in Set up.
// Kept as a record naming its platform and shop, so that the shop's erasure takes it with the rest.
import type { RecordRole } from '../store/ledger-store.ts';
import { z } from 'zod';
import { recordType } from '../store/roles/record-types.ts';

export interface StorefrontSetting {
  platform: string;
  shop: string;
  on: boolean;
  /** Who changed it last, and when. */
  by: string;
  at: string;
}

export const STOREFRONT_KIND = recordType<StorefrontSetting>(
  'storefront',
  z.looseObject({ platform: z.string(), shop: z.string(), on: z.boolean(), by: z.string(), at: z.string() }),
);
const KIND = STOREFRONT_KIND;
const idOf = (platform: string, shop: string) => `${platform}:${shop}`;

export async function storefrontOn(
  store: Pick<RecordRole, 'getRecord'>,
  platform: string,
  shop: string,
): Promise<boolean> {
  return (await store.getRecord(KIND, idOf(platform, shop)))?.on === true;
}

/**
 * Saves the merchant's choice; `served` is asked after the write: a shop uninstalled or erased while the write was
 * on its way (which turned its storefront off, or erased the record, before this write landed) is not served any
 * more, and the write is taken back, so the switch never comes back on for a shop that left ('not-served'). The
 * uninstall forgets the shop's install before it turns the storefront off, and the erasure takes both at once:
 * an uninstall whose turning off comes after this write removes it itself; one whose turning off came before it
 * has already made `served` false. A write the store refuses leaves what was there before (lowdb holds a write in
 * memory before its flush, and a flush that fails would otherwise leave it read as saved), if the shop is still
 * served, and throws.
 */
export async function setStorefront(
  store: Pick<RecordRole, 'getRecord' | 'putRecord' | 'deleteRecord'>,
  setting: Omit<StorefrontSetting, 'at'>,
  served: () => Promise<boolean>,
  now = new Date(),
): Promise<'saved' | 'not-served'> {
  const id = idOf(setting.platform, setting.shop);
  const before = await store.getRecord(KIND, id);
  try {
    await store.putRecord(KIND, id, { ...setting, at: now.toISOString() });
  } catch (error) {
    await (before ? store.putRecord(KIND, id, before) : store.deleteRecord(KIND, id)).catch(() => undefined);
    // What was there may be from before the shop left (an uninstall or erasure during the refused write): put
    // back, it would turn the switch on again, or keep a record of an erased shop, so it is checked as a write is.
    if (!(await served().catch(() => false))) await store.deleteRecord(KIND, id).catch(() => undefined);
    throw error;
  }
  if (await served().catch(() => false)) return 'saved';
  await store.deleteRecord(KIND, id);
  return 'not-served';
}
