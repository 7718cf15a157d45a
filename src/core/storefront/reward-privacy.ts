// A customer's reward codes and reservations in their export and erasure, and what a shop's uninstall and erasure
// do to them (../shared/DESIGN.md, "The storefront", Endings and privacy):
// - an erasure removes the customer's live codes from the store while the bridge still has access (a code the
//   store cannot remove now ends by its own expiry), then releases and forgets their reservations;
// - an uninstall cannot remove codes (the platform revoked the bridge's access): its codes pay until their expiry,
//   so the shop's open reservations stay held until then (the sweeper lets them go);
// - a shop's erasure forgets every reservation made in it, and keeps the points of its open codes held, by amount,
//   and the codes by a digest, for an order that pays with one after a reinstall (erased-codes.ts); a used code's
//   points are kept by what became of its redeem (erased-holds.ts);
// - a customer's erasure keeps, by amount, the points of a code the store could not remove while it may pay, and the
//   code for the sweeper to remove once the store lets the bridge in (review G, G5);
// - a customer's erasure keeps a code whose order's redeem is on its way ('used'), marked, with its holder's contact,
//   until that redeem ends: sent once, then forgotten (reservations.ts, withoutErased; review H, 2); and so one used
//   at checkout whose order has not come yet (review J, 1);
// - a customer's erasure drops the cover checks' fences and marks of the holders it removed (their ids name the
//   customer), save a mark with a cancel on its way, kept for that cancel's check.
import type { Logger } from '../../logger.ts';
import type { Accounts } from '../accounts.ts';
import type { StoreCodes } from '../capabilities/codes.ts';
import type { KeptRecords } from '../privacy.ts';
import type { CustomerMatch, OrderWorkRole, RecordRole } from '../store/ledger-store.ts';
import { CHECK_KIND, cancelsOnTheirWay } from './cover-marks.ts';
import { exportedReservation } from './reward-export.ts';
import { dropErasedCodesOf, erasedCodesOf, keepErasedCode } from './erased-codes.ts';
import { formerFirsts } from './pool-firsts.ts';
import {
  anonymousHolder,
  fateAtShopErasure,
  holdOf,
  holdShown,
  keepForRemoval,
  liveHolds,
  type ErasedFate,
  type Hold,
} from './erased-holds.ts';
import {
  CODE_KIND,
  FENCE_KIND,
  HELD,
  HOLDER_KIND,
  codeIndexId,
  holderId,
  type Holder,
  type Reservation,
} from './reservations.ts';
import { internationalPhone } from '../store/customer-data.ts';

export interface RewardPrivacyParts {
  store: Pick<
    OrderWorkRole & RecordRole,
    'getRecord' | 'changeRecord' | 'deleteRecord' | 'listRecords' | 'putRecord' | 'getOrder'
  >;
  accounts: Pick<Accounts, 'all' | 'runtime'>;
  codesOf: (platform: string) => StoreCodes | undefined;
  logger: Logger;
  now?: () => Date;
  /** The window after a code's expiry in which its store's count of uses settles (the sweeper's). */
  settleMs: number;
}

export class RewardPrivacy implements KeptRecords {
  readonly name = 'rewards';
  readonly #o: RewardPrivacyParts;

  constructor(parts: RewardPrivacyParts) {
    this.#o = parts;
  }

  /**
   * The holders of the customer's reservations, each with those of them that are the customer's: one holder per
   * account and identifier the match names (all its reservations in scope), and any holder with a reservation of
   * the platform's id of the customer in the match's shop (those reservations): a customer whose e-mail changed
   * since they redeemed is erased by their id, which their codes were made for.
   */
  async #theirs(
    match: CustomerMatch,
    account?: string,
  ): Promise<Array<{ id: string; holder: Holder; theirs: Reservation[] }>> {
    const found = new Map<string, { id: string; holder: Holder; theirs: Reservation[] }>();
    // With an account: its reservations alone, also those under its pool's first's holders (AccountPool).
    const ofAccount = (holder: Holder, each: Reservation) =>
      account === undefined || (each.account ?? holder.account) === account;
    const mine = (holder: Holder, each: Reservation) => inScope(each, match) && ofAccount(holder, each);
    for (const { id, holder } of await this.#holders(match, account))
      found.set(id, { id, holder, theirs: holder.reservations.filter((each) => mine(holder, each)) });
    const ids = new Set(match.customerIds ?? []);
    if (ids.size === 0 || match.platform === undefined || match.shop === undefined) return [...found.values()];
    const accounts = await this.#holderAccounts(account);
    for (const { id, value: holder } of await this.#o.store.listRecords(HOLDER_KIND)) {
      if (found.has(id) || !accounts.includes(holder.account)) continue;
      const theirs = holder.reservations.filter((each) => mine(holder, each) && ids.has(each.customerId));
      if (theirs.length > 0) found.set(id, { id, holder, theirs });
    }
    return [...found.values()];
  }

  /** The holders of the customer's reservations: one per account and identifier the match names. */
  async #holders(match: CustomerMatch, account?: string): Promise<Array<{ id: string; holder: Holder }>> {
    const found: Array<{ id: string; holder: Holder }> = [];
    for (const id of await this.#holderIds(match, account)) {
      const holder = await this.#o.store.getRecord(HOLDER_KIND, id);
      if (holder) found.push({ id, holder });
    }
    return found;
  }

  /** The ids the customer's holders have, or would have: one per account and identifier the match names. */
  async #holderIds(match: CustomerMatch, account?: string): Promise<string[]> {
    const accounts = await this.#holderAccounts(account);
    const customers = [
      ...match.emails.map((email) => ({ email })),
      ...match.phones.map((phone) => ({ mobile: internationalPhone(phone) ?? phone })),
    ];
    return accounts.flatMap((accountId) => customers.map((customer) => holderId(accountId, customer)));
  }

  /**
   * The accounts whose holders keep the account's reservations: every account's, or the account's own and its pool's
   * first's, under whose holders a pool's member reserves (review J, 3), and every first it reserved under before its
   * pool changed (pool-firsts.ts; review L, 3). All with no account.
   */
  async #holderAccounts(account?: string): Promise<string[]> {
    if (account === undefined) return (await this.#o.accounts.all()).map((each) => each.id);
    const first = (await (await this.#o.accounts.runtime(account))?.pool())?.holder;
    const firsts = [...(first === undefined ? [] : [first]), ...(await formerFirsts(this.#o.store, [account]))];
    return [...new Set([account, ...firsts])];
  }

  #now = () => this.#o.now?.() ?? new Date();

  /**
   * Their reservations, as they would read them (reward-export.ts); and what is kept of them by amount on their holders (review G, G2): points held for erased
   * shops' codes or owed, long-spent points, and the erased shops' codes kept for them (how many points, until when).
   * Only their own holders' (by their identifiers): a holder found by the platform's id of a code is not theirs whole.
   */
  async exportCustomer(match: CustomerMatch, account?: string): Promise<unknown> {
    const reservations = [];
    for (const { holder, theirs } of await this.#theirs(match, account))
      for (const each of theirs) reservations.push(exportedReservation(holder.account, each));
    const kept = [];
    const now = this.#now().getTime();
    const own = await this.#holders(match, account);
    for (const { holder } of own) {
      const holds = liveHolds(holder, now).map(holdShown);
      const earlier = holder.redeemedEarlier ?? 0;
      if (holds.length > 0 || earlier > 0)
        kept.push({ account: holder.account, heldByAmount: holds, redeemedEarlier: earlier });
    }
    const erasedShopCodes = (await erasedCodesOf(this.#o.store, new Set(own.map(({ id }) => id)))).filter(
      (each) => Date.parse(each.until) > now,
    );
    return { reservations, kept, erasedShopCodes };
  }

  async eraseCustomer(match: CustomerMatch, account?: string): Promise<number> {
    let erased = 0;
    const holders = await this.#theirs(match, account);
    for (const { id, theirs } of holders) {
      // Codes that may still pay: the store could not remove them (review G, G5).
      const paying: Hold[] = [];
      // Used at checkout, its order not here yet: the merchant's money, as a used one's (kept for its order's redeem).
      const usedInStore = new Set<string>();
      for (const reservation of theirs) {
        if (await this.#usedInStore(reservation)) {
          usedInStore.add(reservation.id);
          erased += 1;
          continue;
        }
        const hold = await this.#removeFromStore(reservation);
        if (hold) paying.push(hold);
        erased += 1;
      }
      const owed = await this.#forget(id, theirs, { paying, usedInStore }, { match, account });
      // A code kept for its order's redeem keeps its record: the sweeper watches its order (cancelled first: let go).
      for (const reservation of theirs.filter((each) => !owed.has(each.id)))
        await this.#o.store.deleteRecord(
          CODE_KIND,
          codeIndexId(reservation.platform, reservation.shop, reservation.code),
        );
    }
    const ids = new Set([...(await this.#holderIds(match, account)), ...holders.map(({ id }) => id)]);
    await this.#dropChecks(ids);
    // An erased shop's codes kept for the customer's holders (erased-codes.ts): the named shop's alone, if any.
    await dropErasedCodesOf(this.#o.store, ids, match, this.#now().getTime());
    return erased;
  }

  /**
   * Whether an issued code was used at checkout, its order not at the bridge yet (a late webhook, a payment days
   * later): the sweeper found it so (usedAtPlatform), or the store counts a use now. Left in the store, as the
   * sweeper leaves it: it pays for nothing more, and the sweeper lets its points go if no order comes.
   */
  async #usedInStore(reservation: Reservation): Promise<boolean> {
    if (reservation.state !== 'issued' || reservation.platformId === undefined) return false;
    if (reservation.usedAtPlatform === true) return true;
    const codes = this.#o.codesOf(reservation.platform);
    const uses = await codes?.uses(reservation.shop, reservation.platformId).catch(() => undefined);
    return uses !== undefined && uses > 0;
  }

  /**
   * The reservation's code removed from the store while the bridge has access. A spent code too ('redeemed',
   * 'refused'), and one whose order's redeem is on its way ('used', kept for that redeem): a store may give its use
   * back (its order cancelled), and the sweeper, which would have removed it or given it back to its holder, never
   * sees a spent one once its record goes. A 'reserving' one may be in the store with no answer kept (a crash after its make): looked
   * for by its text, as the sweeper would have. An open code the store could not remove still pays until its expiry:
   * answered its hold, its points held by amount until then and its settling, and it is kept for the sweeper to remove
   * once the store lets the bridge in again (an uninstalled store, reinstalled).
   */
  async #removeFromStore(reservation: Reservation): Promise<Hold | undefined> {
    const codes = this.#o.codesOf(reservation.platform);
    const spent = reservation.state === 'redeemed' || reservation.state === 'refused' || reservation.state === 'used';
    const live = reservation.state === 'issued' || reservation.state === 'reserving';
    if (!codes || !(live || (spent && reservation.platformId !== undefined))) return undefined;
    const removed = await removeLive(codes, reservation).then(
      () => true,
      () => false,
    );
    if (removed) return undefined;
    const { platform, shop } = reservation;
    this.#o.logger.info(
      { platform, shop },
      "an erased customer's reward code could not be removed from the store; it ends by its own expiry",
    );
    if (!live) return undefined;
    const now = this.#now();
    const hold = holdOf(reservation, undefined, this.#o.settleMs);
    if (Date.parse(hold.until) <= now.getTime()) return undefined;
    await keepForRemoval(this.#o.store, reservation, now);
    return hold;
  }

  /**
   * The holder without the erased reservations. An erasure in one shop leaves the account's count of long-spent
   * points (redeemedEarlier), which other shops' orders of the customer still need, and the points held by amount
   * (erased shops' codes, which still pay; owed redeems); the customer's whole erasure takes the count with the rest,
   * and keeps the holds, the holder naming no customer then (anonymousHolder).
   */
  async #forget(
    id: string,
    theirs: Reservation[],
    { paying, usedInStore }: { paying: Hold[]; usedInStore: ReadonlySet<string> },
    { match, account }: { match: CustomerMatch; account: string | undefined },
  ): Promise<Set<string>> {
    const gone = new Set(theirs.map((reservation) => reservation.id));
    const now = this.#now();
    let owed = new Set<string>();
    await this.#o.store.changeRecord(HOLDER_KIND, id, (current) => {
      if (!current) return undefined;
      // An order's redeem on its way ('used', or 'refused' for a retry, as at this write) stays owed: kept, marked.
      const kept = keptForRedeem(current.reservations, gone, usedInStore, now);
      owed = new Set(kept.filter((each) => gone.has(each.id)).map((each) => each.id));
      const left = kept.filter((each) => !gone.has(each.id));
      const known = new Set((current.erasedShopHolds ?? []).map((each) => each.reservation));
      const holds = [...liveHolds(current, now.getTime()), ...paying.filter((each) => !known.has(each.reservation))];
      const erasedShopHolds = holds.length ? holds : undefined;
      const accountWide = (current.redeemedEarlier ?? 0) > 0 || holds.length > 0;
      // Another account's holder (its pool's first's): its long-spent count and holds are that account's to keep.
      const partial = match.shop !== undefined || (account !== undefined && current.account !== account);
      if (left.length > 0 || (partial && accountWide))
        return { put: { ...current, reservations: kept, erasedShopHolds } };
      // The whole erasure takes the long-spent count now; what an owed redeem keeps goes once it is settled.
      if (owed.size > 0)
        return { put: { ...current, reservations: kept, erasedShopHolds, redeemedEarlier: undefined } };
      return holds.length > 0 ? { put: anonymousHolder(current.account, holds) } : { delete: true };
    });
    return owed;
  }

  /**
   * The cover checks' fences and marks (cover-checks.ts) of the customer's holders that are gone now, or never were:
   * their ids are their holder's, the account and a digest of the customer's identifier, so they name them. A holder
   * the erasure kept (their reservations in other shops) keeps both. A Redeem whose read noted the fence before the
   * erasure and whose reservation lands after it brings the customer back (the erasure's own race); its fence may
   * then read as before the check, so it answers as if no check had looked. A mark with a cancel on its way stays
   * (compared as it is dropped): it is what has a reservation made meanwhile, on a read before the cancel landed,
   * checked when that cancel's own check does not come; the cancel's check, or the sweep after CANCEL_LANDS_MS,
   * finds no holder and takes it.
   */
  async #dropChecks(ids: Iterable<string>): Promise<void> {
    for (const id of ids) {
      // A holder kept naming no customer (anonymousHolder) keeps neither: its holds need no check.
      if ((await this.#o.store.getRecord(HOLDER_KIND, id))?.customer !== undefined) continue;
      await this.#o.store.deleteRecord(FENCE_KIND, id);
      const now = (this.#o.now?.() ?? new Date()).getTime();
      await this.#o.store.changeRecord(CHECK_KIND, id, (current) =>
        current && cancelsOnTheirWay(current, now).length === 0 ? { delete: true } : undefined,
      );
    }
  }

  /**
   * Forgets every reservation made in the shop (its codes' own records go with the shop's records). A code still open
   * pays in the store until its expiry (an erasure removes none, and after an uninstall none can be): its points
   * stay held until then and its settling, by amount (Holder.erasedShopHolds keeps no shop, code or customer id), and
   * the code is kept by a digest for an order that pays with it after a reinstall (erased-codes.ts). A code an order
   * used is kept by what became of its redeem, read from the order before the shop's records go (erased-holds.ts):
   * sent or in doubt, never redeemed again; not sent, its points owed for good unless that order comes again. A
   * refused one (not HELD) is let go: its dead letter goes with the shop, so no one can retry its redeem.
   */
  async eraseShop(platform: string, shop: string): Promise<void> {
    const now = this.#now().getTime();
    const inShop = (each: Reservation) => each.platform === platform && each.shop === shop;
    for (const { id, value } of await this.#o.store.listRecords(HOLDER_KIND)) {
      const fates = new Map<string, ErasedFate>();
      // Kept first: a crash before the holder's write leaves a record that finds no hold, and does nothing.
      for (const each of value.reservations.filter((each) => inShop(each) && HELD.has(each.state))) {
        const fate = await fateAtShopErasure(this.#o.store, each, this.#o.settleMs);
        fates.set(each.id, fate);
        if (Date.parse(fate.codeUntil) > now)
          await keepErasedCode(this.#o.store, id, each, { until: fate.codeUntil, state: fate.state });
      }
      await this.#o.store.changeRecord(HOLDER_KIND, id, (current) => {
        if (!current) return undefined;
        const left = current.reservations.filter((each) => !inShop(each));
        if (left.length === current.reservations.length) return undefined;
        const holds = [
          ...liveHolds(current, now),
          ...current.reservations
            .filter((each) => inShop(each) && HELD.has(each.state))
            .map((each) => holdOf(each, fates.get(each.id), this.#o.settleMs)),
        ].filter((each) => Date.parse(each.until) > now);
        const put: Holder = { ...current, reservations: left, erasedShopHolds: holds.length ? holds : undefined };
        if (left.length === 0 && holds.length === 0) return { delete: true };
        // Its customer was erased, and kept for the shop's owed redeem alone: nothing more needs their contact.
        const erased = current.reservations.some((each) => inShop(each) && each.erasedAt !== undefined);
        return { put: erased && left.length === 0 ? anonymousHolder(current.account, holds) : put };
      });
    }
  }

  /**
   * Nothing goes: the bridge's access is gone, and the shop's codes, open or spent, are in its store until their
   * expiry. Open ones stay held, and spent ones stay known to be removed after a reinstall (a store may give a
   * cancelled order's use back); the sweeper lets both go once they have expired and settled.
   */
  async shopUninstalled(_platform: string, _shop: string): Promise<void> {}
}

/** The reservation's code, removed from the store if it is there: by its id, or found by its text. */
async function removeLive(codes: StoreCodes, reservation: Reservation): Promise<void> {
  const platformId = reservation.platformId ?? (await codes.find(reservation.shop, reservation.code));
  if (platformId !== undefined) await codes.remove(reservation.shop, platformId);
}

/**
 * The holder's reservations without the erased ones (`gone`), save those an order's redeem is on its way for: marked
 * (Reservation.erasedAt) and kept, with the holder's contact, which that redeem names, until it ends (withoutErased).
 */
function keptForRedeem(
  reservations: Reservation[],
  gone: Set<string>,
  usedInStore: ReadonlySet<string>,
  now: Date,
): Reservation[] {
  const usedAtCheckout = (each: Reservation) => each.state === 'issued' && usedInStore.has(each.id);
  // Refused: its dead letter's retry redeems it, as one refused after the erasure (review J, 2).
  const owed = (each: Reservation) => each.state === 'used' || each.state === 'refused' || usedAtCheckout(each);
  return reservations
    .filter((each) => !gone.has(each.id) || owed(each))
    .map((each) => {
      if (!gone.has(each.id) || each.erasedAt !== undefined) return each;
      // Held for its order as the sweeper holds a code used in the store: until it comes, or PLACED_WAIT_MS.
      return { ...each, erasedAt: now.toISOString(), ...(usedAtCheckout(each) ? { usedAtPlatform: true } : {}) };
    });
}

const inScope = (reservation: Reservation, match: Pick<CustomerMatch, 'platform' | 'shop'>) =>
  (match.platform === undefined || match.platform === reservation.platform) &&
  (match.shop === undefined || match.shop === reservation.shop);
