// Whether a shop shows its customers their points in its store: off until its merchant turns it on in Set up.
// Kept as a record naming its platform and shop, so that the shop's erasure takes it with the rest.
import type { LedgerStore } from '../store/ledger-store.ts';

export interface StorefrontSetting {
  platform: string;
  shop: string;
  on: boolean;
  /** Who changed it last, and when. */
  by: string;
  at: string;
}

const idOf = (platform: string, shop: string) => `${platform}:${shop}`;

export async function storefrontOn(
  store: Pick<LedgerStore, 'getRecord'>,
  platform: string,
  shop: string,
): Promise<boolean> {
  return (await store.getRecord<StorefrontSetting>('storefront', idOf(platform, shop)))?.on === true;
}

export async function setStorefront(
  store: Pick<LedgerStore, 'putRecord'>,
  setting: Omit<StorefrontSetting, 'at'>,
  now = new Date(),
): Promise<void> {
  await store.putRecord<StorefrontSetting>('storefront', idOf(setting.platform, setting.shop), {
    ...setting,
    at: now.toISOString(),
  });
}
