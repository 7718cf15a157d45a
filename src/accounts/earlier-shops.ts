// Shops that earned on the one account a bridge had before accounts existed keep earning on it after the
// upgrade, even those let in by open installs: at the first start, every installed shop, and every shop with
// orders whose account is not fixed yet, that the operator did not choose is linked to the default account,
// once, and named in the log. The links are written before the 'migration' record that marks it done, so a
// crash in between only does it again.
import { z } from 'zod';
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import { ACCESS_KIND } from '../core/store/roles/core-kinds.ts';
import { recordType } from '../core/store/roles/record-types.ts';
import type { OrderWorkRole } from '../core/store/roles/orders.ts';
import type { RecordRole } from '../core/store/roles/records.ts';
import type { Logger } from '../logger.ts';
import type { AccountRegistry } from './registry.ts';

export const EARLIER_SHOPS_MIGRATION = 'accounts-earlier-shops';

interface EarlierShopsDone {
  doneAt: string;
  linked: string[];
}

const DONE = recordType<EarlierShopsDone>(
  'migration',
  z.looseObject({ doneAt: z.string(), linked: z.array(z.string()) }),
  EARLIER_SHOPS_MIGRATION,
);

export async function linkEarlierShops(
  store: Pick<OrderWorkRole, 'shopsWithUnfixedOrders'> & RecordRole,
  registry: Pick<AccountRegistry, 'forShop' | 'link'>,
  logger: Logger,
): Promise<string[]> {
  if (await store.getRecord(DONE, EARLIER_SHOPS_MIGRATION)) return [];
  const linked: string[] = [];
  const installed = (await store.listRecords(ACCESS_KIND)).map(({ value }) => value);
  for (const { platform, shop } of [...installed, ...(await store.shopsWithUnfixedOrders())]) {
    // Pending connects and the like are sessions too, without a shop of their own.
    if (typeof platform !== 'string' || typeof shop !== 'string') continue;
    if (linked.includes(`${platform} ${shop}`) || (await registry.forShop(platform, shop)) !== undefined) continue;
    await registry.link({ platform, shop }, DEFAULT_ACCOUNT, 'upgrade: served before accounts');
    linked.push(`${platform} ${shop}`);
  }
  await store.putRecord(DONE, EARLIER_SHOPS_MIGRATION, {
    doneAt: new Date().toISOString(),
    linked,
  });
  if (linked.length > 0) {
    logger.warn(
      { shops: linked },
      `Shops now earn on the loyalty account they are linked to, and a shop let in by open installs on none until linked. These were installed before, and stay on the default account: ${linked.join(', ')}. Move them with PATCH /admin/api/shops or loyalty-bridge shops link`,
    );
  }
  return linked;
}
