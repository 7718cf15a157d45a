// Shops that earned on the one account a bridge had before accounts existed
// keep earning on it (the default account) after the upgrade, even those let
// in only by open installs, which from now on earn on nobody's account until
// linked: at the first start of this release, every shop installed (a
// 'session' record), and every shop with orders whose account is not fixed
// yet (an app uninstalled and installed again has orders and no session),
// that the operator did not choose is linked to the default account, once,
// and named in the log, so that the operator can move
// it to an account of its own. A 'migration' record says it was done; shops
// installed after need a link. The links are written before the mark, so a
// crash in between only does it again.
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import type { LedgerStore } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import type { AccountRegistry } from './registry.ts';

export const EARLIER_SHOPS_MIGRATION = 'accounts-earlier-shops';

interface EarlierShopsDone {
  doneAt: string;
  linked: string[];
}

export async function linkEarlierShops(
  store: LedgerStore,
  registry: Pick<AccountRegistry, 'forShop' | 'link'>,
  logger: Logger,
): Promise<string[]> {
  if (await store.getRecord<EarlierShopsDone>('migration', EARLIER_SHOPS_MIGRATION)) return [];
  const linked: string[] = [];
  const installed = (await store.listRecords<{ platform?: unknown; shop?: unknown }>('session')).map(
    ({ value }) => value,
  );
  for (const { platform, shop } of [...installed, ...(await store.shopsWithUnfixedOrders())]) {
    // Pending WooCommerce connects and the like are sessions too, without a shop of their own.
    if (typeof platform !== 'string' || typeof shop !== 'string') continue;
    if (linked.includes(`${platform} ${shop}`) || (await registry.forShop(platform, shop)) !== undefined) continue;
    await registry.link({ platform, shop }, DEFAULT_ACCOUNT, 'upgrade: served before accounts');
    linked.push(`${platform} ${shop}`);
  }
  await store.putRecord<EarlierShopsDone>('migration', EARLIER_SHOPS_MIGRATION, {
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
