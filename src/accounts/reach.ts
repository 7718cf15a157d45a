// A merchant's reach: what a caller limited to one shop (a store page's session) may do with loyalty
// accounts. Accounts hold other merchants' points and customers, so the rule is narrow: it reads and changes
// only its shop's account, and only while that account is its own; it may make one when its shop earns on
// none; it never links to an existing account, sees another, or touches the default. Pure: the caller
// gathers the facts (registry.ts). The rule in full: docs/accounts.md, "A merchant's reach".
import { DEFAULT_ACCOUNT } from '../core/accounts.ts';
import type { AccountRecord, ShopRef } from './account-records.ts';

export interface ReachFacts {
  /** The account the shop earns on now: its link, or the default for a shop the operator chose; undefined: none. */
  account: string | undefined;
  /** That account's record; undefined for the default account, for none, or for one that no longer exists. */
  record: Pick<AccountRecord, 'id' | 'madeFor' | 'sharedAt'> | undefined;
  /** Every shop linked to that account. */
  linked: readonly ShopRef[];
}

/**
 *   unlinked   the shop earns on no account
 *   own        made for this shop, and no other shop is linked to it
 *   outgrown   made for this shop, but the operator has linked another shop to it since
 *   operator   the default account, or one the operator made (or made for another shop)
 */
export type Standing = 'unlinked' | 'own' | 'outgrown' | 'operator';

export interface Allowed {
  /** See the account (without its key) and its settings. */
  read: boolean;
  /** Change its name, address, credentials, limit or settings. */
  change: boolean;
  /** Make a new account for the shop, the shop linked to it. */
  create: boolean;
}

export const ALLOWED: Readonly<Record<Standing, Allowed>> = {
  unlinked: { read: false, change: false, create: true },
  own: { read: true, change: true, create: true },
  // Another merchant's shop earns on it now: nothing of it is this shop's alone to see or change; a new one of its own is.
  outgrown: { read: false, change: false, create: true },
  operator: { read: false, change: false, create: false },
};

/** What the merchant is told when a step is not theirs to take. */
export const WHY_NOT: Readonly<Record<Standing, string>> = {
  unlinked: 'this shop earns on no loyalty account yet: create one for it',
  own: '',
  outgrown:
    'another shop now earns on the account made for this shop, so the bridge’s operator manages it; you may create a new account for this shop',
  operator:
    'this shop earns on a loyalty account the bridge’s operator manages: ask them to change it, or to unlink the shop so that you can create your own',
};

export const sameShop = (a: ShopRef, b: ShopRef) => a.platform === b.platform && a.shop === b.shop;

export function standing(shop: ShopRef, facts: ReachFacts): Standing {
  if (facts.account === undefined) return 'unlinked';
  const { record } = facts;
  if (facts.account === DEFAULT_ACCOUNT || !record || record.id !== facts.account) return 'operator';
  if (!record.madeFor || !sameShop(record.madeFor, shop)) return 'operator';
  // Once another shop was linked to it, that shop's orders may stay with it after moving away: never its own again.
  if (record.sharedAt) return 'outgrown';
  return facts.linked.every((each) => sameShop(each, shop)) ? 'own' : 'outgrown';
}

/** What a caller limited to `shop` may do with the account its shop earns on. */
export const allowedFor = (shop: ShopRef, facts: ReachFacts): Allowed & { standing: Standing } => {
  const found = standing(shop, facts);
  return { standing: found, ...ALLOWED[found] };
};
