// Reserve at issue, redeem at use (../shared/DESIGN.md, "The storefront"). A redeem reads the balance anew, reserves
// the points (reservations.ts: a compare-and-set against the balance less all held), then makes the code in the store
// for that customer. An order paid with the code takes its reservation (claimForOrder); the worker redeems its points
// once, on the account that issued it (settled). The sweeper repairs what a crash leaves between (code-sweeper.ts).
import type { Logger } from '../../logger.ts';
import { alone, type AccountPool, type AccountRuntime } from '../accounts.ts';
import type { StoreCodes } from '../capabilities/codes.ts';
import type { RedeemCode } from '../order-record.ts';
import type { OperatorQueries, RecordRole } from '../store/ledger-store.ts';
import { markForCheck } from './cover-marks.ts';
import { codeIndexOrErased, reviveErasedCode, settleErasedHold } from './erased-codes.ts';
import { removeOrphan } from './orphan-codes.ts';
import { HolderFinder, heldIn, openIn, readHolders, usableCodes } from './customer-holders.ts';
import { callContact, type ServiceCustomer } from './customer-points.ts';
import type { RedeemPoints } from './storefront-reader.ts';
import { rewardWords, type Reward } from './rewards.ts';
import {
  CODE_KIND,
  ENDED,
  HOLDER_KIND,
  REDEEM_SKEW_MS,
  changeReservation,
  codeIndexId,
  release,
  takenBy,
  reservationNow,
  type CodeIndex,
  type Holder,
  type Reservation,
} from './reservations.ts';

export type { RedeemAnswer } from './redeem-answer.ts';
import type { RedeemAnswer } from './redeem-answer.ts';
import { MAX_OPEN_CODES, reserveCode } from './reserve-code.ts';

export { MAX_OPEN_CODES } from './reserve-code.ts';

export interface RewardCodesParts {
  store: Pick<
    OperatorQueries & RecordRole,
    'changeRecord' | 'getRecord' | 'addRecord' | 'deleteRecord' | 'customerOrders'
  >;
  codesOf: (platform: string) => StoreCodes | undefined;
  reader: {
    pointsToRedeem(
      account: AccountRuntime,
      customer: ServiceCustomer,
      asked: { platform: string; shop: string; needed: number },
    ): Promise<RedeemPoints>;
    dropBalance(account: string, customer: { email?: string; mobile?: string }): void;
  };
  logger: Logger;
  now?: () => Date;
  /** An account's pool by its id (AccountPool: accounts sharing the service's key); absent: every account alone. */
  pools?: (account: string) => Promise<AccountPool>;
}

export interface Redemption {
  platform: string;
  shop: string;
  customerId: string;
  account: AccountRuntime;
  customer: ServiceCustomer;
  reward: Reward;
}

export class RewardCodes {
  readonly #o: RewardCodesParts;
  readonly #now: () => Date;
  readonly #holders: HolderFinder;

  constructor(parts: RewardCodesParts) {
    this.#o = parts;
    this.#now = parts.now ?? (() => new Date());
    this.#holders = new HolderFinder(parts.store, () => this.#now().getTime());
  }

  /** The customer's holders on the account (which ones kept briefly, customer-holders.ts), as they are now. */
  #holdersOf = async (account: string, customer: ServiceCustomer): Promise<Holder[]> => {
    const pool = this.#o.pools ? await this.#o.pools(account) : await alone(account)();
    return readHolders(this.#o.store, Object.values(await this.#holders.ids(pool, customer)).flat());
  };

  /** The points held for the customer on the account, for a read of `source` that started at readStartedAt. */
  async held(account: string, customer: ServiceCustomer, source: 'service' | 'ledger', readStartedAt: number) {
    return heldIn(await this.#holdersOf(account, customer), readStartedAt, source);
  }

  /** The customer's codes in this shop that they can still use, newest first: theirs alone, by the platform's id. */
  async openCodes(account: string, customer: ServiceCustomer, platform: string, shop: string, customerId: string) {
    const holders = await this.#holdersOf(account, customer);
    return usableCodes(holders, { platform, shop, customerId }, this.#now());
  }

  async redeem(named: Redemption): Promise<RedeemAnswer> {
    const codes = this.#o.codesOf(named.platform);
    if (!codes) return { kind: 'not-allowed' };
    // Read anew: the holder every redeem of the service's customer writes, and the others that hold their points.
    // The pool read now: an account that took its key a moment ago leads it (review L), whatever this instance kept.
    const pool = await named.account.pool('fresh');
    const { customer, id: holder, others } = await this.#holders.of(pool, named.customer);
    if ('mobile' in customer) return { kind: 'needs-email' };
    const asked = { ...named, customer };
    const { platform, shop, account, reward } = asked;
    // Before the balance is read: a customer at the limit costs the account no call.
    const before = await readHolders(this.#o.store, [holder, ...others]);
    if (openIn(before, asked, this.#now()) >= MAX_OPEN_CODES) return { kind: 'too-many' };
    const read = await this.#o.reader.pointsToRedeem(account, customer, { platform, shop, needed: reward.points });
    if (read.ok === 'short') return { kind: 'short', available: read.available, points: reward.points };
    if (!read.ok) return { kind: 'busy', retryAfterSeconds: read.retryAfterSeconds };
    await this.#holders.reservingUnder(pool, account.id);
    const parts = {
      ...{ store: this.#o.store, now: this.#now },
      end: (id: string, reservation: Reservation, change: ReturnType<typeof release>) =>
        this.end(id, reservation, change),
      holdersNow: async () => {
        const found = await this.#holders.of(await named.account.pool(), customer);
        return [found.id, ...found.others];
      },
    };
    const reserved = await reserveCode(parts, asked, { holder, others, first: pool.holder }, read);
    if (reserved.kind !== 'reserved') return reserved;
    this.#o.reader.dropBalance(account.id, callContact(customer));
    // The code is made for the customer as the platform's record names them (named), not by an e-mail of another shop.
    const issued = await this.#issue(named, holder, reserved.reservation, codes);
    if (issued.kind !== 'issued') return issued;
    return { ...issued, available: Math.max(0, reserved.available - reward.points) };
  }

  /** The reserved code made in the store and marked issued; or, where it could not be, nothing left usable. */
  async #issue(
    asked: Redemption,
    holder: string,
    reservation: Reservation,
    codes: StoreCodes,
  ): Promise<Exclude<RedeemAnswer, { kind: 'issued' }> | Omit<Extract<RedeemAnswer, { kind: 'issued' }>, 'available'>> {
    const { shop, customer, reward } = asked;
    const made = await codes
      .make({
        shop,
        customerId: asked.customerId,
        ...('email' in customer ? { email: customer.email } : {}),
        code: reservation.code,
        title: `Loyalty reward: ${rewardWords(reward)}`,
        // What the reservation recorded: the code gives exactly what its points were held for.
        benefit: reservation.benefit,
        minimumOrder: reward.minimumOrder,
        startsAt: reservation.createdAt,
        expiresAt: reservation.expiresAt,
        combinesWithOthers: reward.combines,
      })
      .catch((error: unknown) => ({ kind: 'thrown' as const, error }));
    if (made.kind === 'thrown') return this.#makeThrew(asked, holder, reservation, codes, made.error);
    if (made.kind !== 'made') {
      // The store said it made nothing: the points are let go at once.
      await this.repairUnmade(holder, reservation, true).catch(() => undefined);
      return { kind: 'not-allowed' };
    }
    const issued = await changeReservation(this.#o.store, holder, reservation.id, (current) =>
      current.state === 'reserving' ? { state: 'issued', platformId: made.platformId } : undefined,
    ).catch(async (error: unknown) => {
      // A lost answer may hide a write that landed (a commit, then the connection went): a code it issued stays.
      const landed = await reservationNow(this.#o.store, holder, reservation.id);
      if (landed?.state === 'issued' && landed.platformId === made.platformId) return landed;
      // Else the sweeper may have let its points go meanwhile: removed, or it could pay with no reservation.
      await this.#orphan(asked.platform, shop, made.platformId, reservation);
      throw error;
    });
    if (issued?.state !== 'issued' || issued.platformId !== made.platformId) {
      // The sweeper let it go meanwhile (a make slower than its repair): no code stays without its reservation.
      await this.#orphan(asked.platform, shop, made.platformId, reservation);
      return { kind: 'failed' };
    }
    return {
      kind: 'issued',
      code: reservation.code,
      benefit: reservation.benefit,
      expiresAt: reservation.expiresAt,
    };
  }

  /**
   * A make not known to have made the code: a store may still make it after the bridge gave up (a timeout), so it is
   * not looked for now. The reservation stays 'reserving', its points held, until the sweeper's repair (REPAIR_MS)
   * removes the code if the store has it and lets the points go; unless the repair let it go while this make ran (a
   * make slower than REPAIR_MS): then no one looks for its code again, so it is looked for now, and removed.
   */
  async #makeThrew(
    asked: Redemption,
    holder: string,
    reservation: Reservation,
    codes: StoreCodes,
    error: unknown,
  ): Promise<{ kind: 'failed' }> {
    const { platform, shop } = asked;
    this.#o.logger.warn(
      { platform, shop, kind: (error as Error)?.name },
      'a reward code could not be made; its points are let go once the store says it has no such code',
    );
    if ((await reservationNow(this.#o.store, holder, reservation.id))?.state !== 'reserving') {
      const found = await codes.find(shop, reservation.code).catch(() => undefined);
      if (found !== undefined) await this.#orphan(platform, shop, found, reservation);
    }
    return { kind: 'failed' };
  }

  /** A code made whose reservation is gone: removed now, or kept for the sweeper to remove (orphan-codes.ts). */
  #orphan = (platform: string, shop: string, platformId: string, { expiresAt }: Reservation) =>
    removeOrphan(this.#o, { platform, shop, platformId, expiresAt, at: this.#now().toISOString() });

  /**
   * A reservation whose code was not made, or not known to be: the code is looked for by its text and removed if
   * there, then the points let go while it is still 'reserving' (a make that landed meanwhile issued its code to the
   * customer). `sure`: the platform said it made nothing, or why it cannot be asked.
   */
  async repairUnmade(holder: string, reservation: Reservation, sure: boolean | string = false): Promise<void> {
    const codes = this.#o.codesOf(reservation.platform);
    const found = !sure && codes ? await codes.find(reservation.shop, reservation.code) : undefined;
    await this.repairFound(holder, reservation, found, typeof sure === 'string' ? sure : undefined);
  }

  /** The repair, once the store was looked at (one look: a second could find a make that landed after the first). */
  async repairFound(holder: string, reservation: Reservation, found: string | undefined, why?: string): Promise<void> {
    if (found !== undefined) await this.#o.codesOf(reservation.platform)?.remove(reservation.shop, found);
    await this.end(
      holder,
      reservation,
      release(why ?? 'its code was never shown', this.#now(), new Set(['reserving'])),
    );
  }

  /** Changes a reservation, then drops its code's record once it ended (ENDED: a refused one's is the sweeper's). */
  async end(
    holder: string,
    reservation: Pick<Reservation, 'id' | 'platform' | 'shop' | 'code'>,
    change: Parameters<typeof changeReservation>[3],
  ): Promise<Reservation | undefined> {
    const after = await changeReservation(this.#o.store, holder, reservation.id, change, this.#now());
    const { platform, shop, code } = reservation;
    if (after && ENDED.has(after.state)) await this.#o.store.deleteRecord(CODE_KIND, codeIndexId(platform, shop, code));
    await this.#dropHolderBalance(holder);
    return after;
  }

  /**
   * A code just removed from the store unused: its points let go; or, where the store counts uses late (an order
   * that paid with it a moment ago may not show yet), marked removed and held until the sweeper's settling window
   * has passed (code-sweeper.ts), so that such an order still finds its reservation.
   */
  async removedUnused(
    holder: string,
    reservation: Reservation,
    why: string,
    countedLate: boolean,
  ): Promise<Reservation | undefined> {
    const now = this.#now();
    if (!countedLate) return this.end(holder, reservation, release(why, now, new Set(['issued'])));
    return this.end(holder, reservation, (current) =>
      current.state === 'issued' && current.removedAt === undefined
        ? { removedAt: now.toISOString(), endedWhy: why }
        : undefined,
    );
  }

  /**
   * An order paid with one of the bridge's codes takes its reservation, once; answered what its redeem needs. A
   * reservation gone since its index was read was taken off by its shop's erasure (another bridge's, maybe), which
   * kept the code first (erased-codes.ts): the order takes it back from there, or its discount would be free.
   */
  async claimForOrder(platform: string, shop: string, code: string, orderKey: string): Promise<RedeemCode | undefined> {
    const at = { platform, shop, code, orderKey };
    const take = (index: CodeIndex) =>
      changeReservation(this.#o.store, index.holder, index.reservation, takenBy(orderKey));
    let index = await codeIndexOrErased(this.#o.store, at, this.#now());
    let taken = index && (await take(index));
    if (index && !taken)
      taken = (index = await reviveErasedCode(this.#o.store, at, this.#now())) && (await take(index));
    if (!index || taken?.state !== 'used' || taken.orderKey !== orderKey) return undefined;
    const holder = await this.#o.store.getRecord(HOLDER_KIND, index.holder);
    if (!holder) return undefined;
    // Withdrawn, but used just before: no check since counted its points (cover-checks.ts); again after a crash.
    if (taken.removedAt !== undefined) await markForCheck(this.#o.store, holder.account, index.holder, this.#now());
    return {
      code: taken.code,
      account: taken.account ?? holder.account,
      points: taken.points,
      holder: index.holder,
      reservation: taken.id,
    };
  }

  /**
   * Whether the order's redeem of a code may go now, and for whom (read from the holder, so no order copies a
   * contact): only while the reservation is the order's ('used' by it, or 'refused', which a person retries), not
   * merely while the order's entry says so (the sweeper may have let the order's hold go: a cancel, a format 3
   * release). send: it is, naming `customer`; sent: the service took it already (its settle outlived the order's
   * save); not-held: it is not the order's now, nothing is sent, and the order takes the code anew if it can
   * (claimForOrder); gone: the holder or the reservation is gone (the customer's erasure).
   */
  async redeemFor(
    code: RedeemCode,
    orderKey: string,
  ): Promise<{ kind: 'send'; customer: ServiceCustomer } | { kind: 'sent' | 'not-held' | 'gone' }> {
    const holder = await this.#o.store.getRecord(HOLDER_KIND, code.holder);
    const reservation = holder?.reservations.find((each) => each.id === code.reservation);
    // Taken off by its shop's erasure as the order took it (erased-codes.ts): the order takes it back, as it can.
    if (holder?.erasedShopHolds?.some((each) => each.reservation === code.reservation)) return { kind: 'not-held' };
    if (!holder?.customer || !reservation) return { kind: 'gone' };
    if (reservation.orderKey !== orderKey) return { kind: 'not-held' };
    if (reservation.state === 'used' || reservation.state === 'refused')
      return { kind: 'send', customer: holder.customer };
    return { kind: reservation.state === 'redeemed' ? 'sent' : 'not-held' };
  }

  /**
   * The worker's word on a code's redeem: it went through, or the service refused it (a dead letter; its points stay
   * held until a person retries it, redeemed if it succeeds, or discards it: 'discarded', released).
   */
  async settled(
    code: RedeemCode,
    outcome: 'redeemed' | 'refused' | 'discarded',
    orderKey: string,
    /** When the service took the redeem, where it is known to have been earlier than now (the sweeper's repair). */
    tookAt?: string,
  ): Promise<void> {
    const at = tookAt ?? this.#now().toISOString();
    const after = await changeReservation(this.#o.store, code.holder, code.reservation, (current) => {
      if (current.orderKey !== orderKey) return undefined;
      if (outcome === 'redeemed' && (current.state === 'used' || current.state === 'refused'))
        return { state: 'redeemed', redeemedAt: at, endedAt: at };
      if (outcome === 'refused' && current.state === 'used')
        return { state: 'refused', endedAt: at, endedWhy: 'the service refused the redeem when the code was used' };
      if (outcome === 'discarded' && current.state === 'refused')
        return { state: 'released', endedAt: at, endedWhy: 'its refused redeem was discarded by a person' };
      return undefined;
    });
    if (!after) await settleErasedHold(this.#o.store, code.holder, code.reservation);
    // Spent, but a store may give its use back: the sweeper removes the code from the store, then drops its record.
    if (after?.state === 'redeemed' && after.platformId === undefined)
      await this.#o.store.deleteRecord(CODE_KIND, codeIndexId(after.platform, after.shop, after.code));
    await this.#dropHolderBalance(code.holder);
    // A read that starts within REDEEM_SKEW_MS of the redeem counts it as held and spent (heldPoints): it is kept
    // no longer than that, so the customer sees their true balance once the skew has passed.
    if (after?.state === 'redeemed')
      setTimeout(() => void this.#dropHolderBalance(code.holder), REDEEM_SKEW_MS + 50).unref();
  }

  async #dropHolderBalance(holder: string): Promise<void> {
    const value = await this.#o.store.getRecord(HOLDER_KIND, holder).catch(() => undefined);
    if (value?.customer) this.#o.reader.dropBalance(value.account, callContact(value.customer));
  }
}
