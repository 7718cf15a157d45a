// Which holder a customer's reservations go under, and which others hold points of theirs (issue 64). The service finds
// one customer by e-mail or by phone, a phone standing for the customer of the e-mail last earned with it (the
// sandbox's #emailByMobile; an earn sends both), while a storefront names a customer by the e-mail where the platform's
// record has one, else by the phone (serviceCustomer). A checkout's e-mail is whatever the shopper typed, so a phone
// paired with an e-mail proves nothing of whose that e-mail is: a storefront customer known by a phone alone is shown
// and spends nothing (StorefrontReader.needsEmail), and a phone names only its own holder. The service's pairing says which
// holders hold one balance there (ofService, for a cover check): codes held under a phone's own holder (reserved
// before any order paired it with an e-mail, or by a release before this) hold the e-mail's points, counted beside it.
// Accounts sharing the service's key share its customers (AccountPool): every member's reservations go under the
// pool's first account's holder, and each member's own holders (codes reserved before) are counted beside it.
import type { AccountPool } from '../accounts.ts';
import type { OrderRecord } from '../order-record.ts';
import type { OperatorQueries, RecordRole } from '../store/ledger-store.ts';
import { customerKey, type ServiceCustomer } from './customer-points.ts';
import { ExpiringCache } from './expiring-cache.ts';
import { formerFirsts, PoolFirstsKept } from './pool-firsts.ts';
import { HOLDER_KIND, heldPoints, holderId, openInShop, type Holder, type Reservation } from './reservations.ts';
import { amountOffField } from '../reward-benefit.ts';

export interface CustomerHolders {
  /** Who the service finds (ofService: for a phone, the e-mail last earned with it on the account); else as named. */
  customer: ServiceCustomer;
  /** The holder their new reservations go under. */
  id: string;
  /** Other holders whose held points are theirs too: those of the phones their orders on the account carry. */
  others: string[];
}

/** The holders a page view counts are kept this long: a phone's first order with an e-mail shows within it. */
export const HOLDERS_FRESH_MS = 30_000;
const MAX_ENTRIES = 20_000;

/**
 * The e-mail of the order last earned with the phone on the account (`orders`: the phone's), as the service pairs them
 * at each earn; undefined where none of its earned orders has one. Orders of releases that kept no account are left out.
 */
export function emailLastEarned(
  orders: readonly OrderRecord[],
  account: string | readonly string[],
): string | undefined {
  const accounts: readonly string[] = typeof account === 'string' ? [account] : account;
  let last: { email: string; at: string } | undefined;
  for (const order of orders) {
    const { email } = order.snapshot.customer;
    const at = order.upstream.earnedAt;
    if (!email || !at || !accounts.includes(order.upstream.account ?? '')) continue;
    if (!last || at > last.at) last = { email, at };
  }
  return last?.email;
}

export class HolderFinder {
  readonly #store: Pick<OperatorQueries & RecordRole, 'customerOrders' | 'getRecord'>;
  readonly #firsts: PoolFirstsKept;
  /** Holder ids only (digests): no e-mail or phone is kept in memory by it. */
  readonly #kept: ExpiringCache<Pick<CustomerHolders, 'id' | 'others'>>;

  constructor(
    store: Pick<OperatorQueries & RecordRole, 'customerOrders' | 'getRecord' | 'changeRecord'>,
    now: () => number,
  ) {
    this.#store = store;
    this.#firsts = new PoolFirstsKept(store);
    this.#kept = new ExpiringCache({
      freshMs: HOLDERS_FRESH_MS,
      keepMs: HOLDERS_FRESH_MS,
      maxEntries: MAX_ENTRIES,
      now,
    });
  }

  /** Before `account` reserves under its pool's first's holders: kept, so they count should the pool change. */
  reservingUnder(pool: AccountPool, account: string): Promise<void> {
    return this.#firsts.note(account, pool.holder);
  }

  /** Read anew from the ledger: what a reservation counts. A phone is its own customer (never paired here). */
  of(pool: AccountPool, named: ServiceCustomer): Promise<CustomerHolders> {
    return this.#holders(pool, named, false);
  }

  /** As the service finds the customer, a phone standing for the e-mail last earned with it: one balance there. */
  ofService(pool: AccountPool, named: ServiceCustomer): Promise<CustomerHolders> {
    return this.#holders(pool, named, true);
  }

  /** `pool`: the account's (alone, where it shares no key). */
  async #holders(pool: AccountPool, named: ServiceCustomer, paired: boolean): Promise<CustomerHolders> {
    const { holder: first, members } = pool;
    let customer = named;
    if (paired && 'mobile' in named) {
      const email = emailLastEarned(await this.#store.customerOrders(named), members);
      if (email !== undefined) customer = { email };
    }
    const id = holderId(first, customer);
    const others = new Set<string>();
    // Each member's own holder too (codes reserved there before the pool's first account was theirs, or before this),
    // and those of every first a member reserved under before the pool changed (pool-firsts.ts).
    const accounts = [first, ...members, ...(await formerFirsts(this.#store, members))];
    const add = (each: ServiceCustomer) => accounts.forEach((account) => others.add(holderId(account, each)));
    add(customer);
    if ('mobile' in named && customerKey(named) !== customerKey(customer)) add(named);
    if ('email' in customer)
      for (const order of await this.#store.customerOrders(customer)) {
        const { mobile } = order.snapshot.customer;
        if (mobile && members.includes(order.upstream.account ?? '')) add({ mobile });
      }
    others.delete(id);
    return { customer, id, others: [...others] };
  }

  /**
   * As `ofService`, kept HOLDERS_FRESH_MS: what is held against a balance the service reads by `named` (a page view;
   * a redeem reads anew). Codes are listed by the platform's id of the customer alone (usableCodes).
   */
  async ids(pool: AccountPool, named: ServiceCustomer): Promise<Pick<CustomerHolders, 'id' | 'others'>> {
    const { value } = await this.#kept.read(`${pool.members.join(',')}:${holderId(pool.holder, named)}`, async () => {
      const { id, others } = await this.ofService(pool, named);
      return { id, others };
    });
    return value;
  }
}

/** The holders' records, those that exist. */
export async function readHolders(
  store: Pick<OperatorQueries & RecordRole, 'getRecord'>,
  ids: readonly string[],
): Promise<Holder[]> {
  const found = await Promise.all(ids.map((id) => store.getRecord(HOLDER_KIND, id)));
  return found.filter((each): each is Holder => each !== undefined);
}

/** The points the holders hold together, for a read of `source` that started at readStartedAt (heldPoints). */
export const heldIn = (holders: readonly Holder[], readStartedAt: number, source: 'service' | 'ledger'): number =>
  holders.reduce((total, each) => total + heldPoints(each, readStartedAt, source), 0);

type Asked = Pick<Reservation, 'platform' | 'shop' | 'customerId'>;

/** The customer's open codes in the shop across their holders (openInShop): what MAX_OPEN_CODES counts. */
export const openIn = (holders: ReadonlyArray<Holder | undefined>, asked: Asked, now: Date): number =>
  holders.reduce((total, each) => total + openInShop(each, asked, now), 0);

/**
 * The codes in this shop that the customer can still use, newest first, across their holders: only those made for
 * them (the platform's id of the customer in this shop), so no one sees a code of another's however holders pair.
 */
export function usableCodes(holders: readonly Holder[], asked: Asked, now: Date) {
  return holders
    .flatMap((holder) => [...holder.reservations].reverse())
    .filter(
      (each) =>
        each.state === 'issued' &&
        each.removedAt === undefined &&
        each.platform === asked.platform &&
        each.shop === asked.shop &&
        each.customerId === asked.customerId &&
        Date.parse(each.expiresAt) > now.getTime(),
    )
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .map((each) => ({
      ...{ code: each.code, benefit: each.benefit, ...amountOffField(each.benefit) },
      ...{ points: each.points, expiresAt: each.expiresAt },
    }));
}
