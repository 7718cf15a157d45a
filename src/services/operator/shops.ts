// What the operator reads of the accounts beside their records: every shop the bridge knows and the account it
// earns on, and each account's health (its pause, its load, its dead letters).
import type { AccountLoad } from '../../accounts/account-load.ts';
import type { ShopLink, ShopRef } from '../../accounts/account-records.ts';
import type { AccountView } from '../../accounts/account-view.ts';
import { DEFAULT_ACCOUNT, type AccountRuntime } from '../../core/accounts.ts';
import { emptyLaneCounts } from '../../core/lanes.ts';
import { ADJUSTMENT_KIND } from '../../core/store/roles/core-kinds.ts';
import type { OperatorParts } from './parts.ts';
import { accountLoadsNow } from './status.ts';

/** Past this many dead letters, counting them per account (a read of each one's order) is not worth a dashboard refresh. */
const MAX_DEAD_LETTERS_COUNTED = 200;

export interface ShopView extends ShopRef {
  /** The account its orders earn on: its link, or the default for a shop the operator chose; null: none. */
  account: string | null;
  accountName: string | null;
  /** The explicit link, if there is one (without one, the environment decides). */
  link: Pick<ShopLink, 'linkedAt' | 'by'> | null;
}

type ShopsParts = Pick<OperatorParts, 'accounts' | 'platforms' | 'defaultAccount'>;

/** Every shop the bridge knows: each platform's (installed, connected, allowed by name), and every linked shop. */
export async function knownShops({ accounts, platforms, defaultAccount }: ShopsParts): Promise<ShopView[]> {
  const [links, records] = await Promise.all([accounts.links(), accounts.list()]);
  const names = new Map<string, string>([
    [DEFAULT_ACCOUNT, defaultAccount().name],
    ...records.map((record): [string, string] => [record.id, record.name]),
  ]);
  const shops = new Map<string, ShopRef>();
  const add = (platform: string, shop: string) => shops.set(`${platform}:${shop}`, { platform, shop });
  for (const { module, parts } of platforms.modules)
    for (const shop of (await parts.shops?.list()) ?? []) add(module.name, shop);
  for (const link of links) add(link.platform, link.shop);
  const sorted = [...shops.values()].sort(
    (a, b) => a.platform.localeCompare(b.platform) || a.shop.localeCompare(b.shop),
  );
  return Promise.all(
    sorted.map(async (shop): Promise<ShopView> => {
      const link = links.find((each) => each.platform === shop.platform && each.shop === shop.shop);
      const account = (await accounts.accountOf(shop, links)) ?? null;
      return {
        ...shop,
        account,
        accountName: account === null ? null : (names.get(account) ?? null),
        link: link ? { linkedAt: link.linkedAt, by: link.by } : null,
      };
    }),
  );
}

/** Accounts' views with their shops and health, the shops, the dead letters and the loads read once for all. */
export async function withHealthOf(parts: OperatorParts) {
  const [shops, deadLetters, loads] = await Promise.all([
    knownShops(parts),
    deadLettersByAccount(parts),
    accountLoadsNow(parts).then((each) => new Map(each.map((load) => [load.id, load]))),
  ]);
  return (view: AccountView) => withHealth(parts, view, shops, deadLetters, loads);
}

/** An account as the operator is shown it: its view, its shops, and its health. */
export interface AccountHealth extends AccountView {
  shops: ShopRef[];
  health: {
    paused: boolean;
    callsLastMinute: AccountLoad['callsLastMinute'] | null;
    limitPerMinute: AccountLoad['limitPerMinute'] | null;
    limitWords: AccountLoad['limitWords'] | null;
    budgetSpentUntil: AccountLoad['budgetSpentUntil'] | null;
    lanes: AccountLoad['lanes'];
    /** Null: too many dead letters to count cheaply. */
    deadLetters: number | null;
  };
}

async function withHealth(
  { accounts }: OperatorParts,
  view: AccountView,
  shops: ShopView[],
  deadLetters: Map<string, number> | undefined,
  loads: Map<string, AccountLoad>,
): Promise<AccountHealth> {
  const runtime: AccountRuntime | undefined = await accounts.runtime(view.id);
  const load = loads.get(view.id);
  return {
    ...view,
    shops: shops.filter((shop) => shop.account === view.id).map(({ platform, shop }) => ({ platform, shop })),
    health: {
      paused: runtime?.authPause.paused ?? false,
      callsLastMinute: load?.callsLastMinute ?? null,
      limitPerMinute: load?.limitPerMinute ?? null,
      limitWords: load?.limitWords ?? null,
      budgetSpentUntil: load?.budgetSpentUntil ?? null,
      lanes: load?.lanes ?? emptyLaneCounts(),
      deadLetters: deadLetters ? (deadLetters.get(view.id) ?? 0) : null,
    },
  };
}

/** Dead letters by the account their order (or adjustment, or shop) belongs to; undefined when there are too many to count cheaply. */
async function deadLettersByAccount({ accounts, engine: { store } }: OperatorParts) {
  const letters = await store.listDeadLetters();
  if (letters.length > MAX_DEAD_LETTERS_COUNTED) return undefined;
  const counts = new Map<string, number>();
  for (const letter of letters) {
    let account: string | undefined;
    if (letter.adjustmentId)
      account = (await store.getRecord(ADJUSTMENT_KIND, letter.adjustmentId))?.account ?? DEFAULT_ACCOUNT;
    else if (letter.orderKey) account = (await store.getOrder(letter.orderKey))?.upstream.account;
    if (account === undefined && letter.platform && letter.shop)
      account = await accounts.accountOf({ platform: letter.platform, shop: letter.shop });
    if (account !== undefined) counts.set(account, (counts.get(account) ?? 0) + 1);
  }
  return counts;
}
