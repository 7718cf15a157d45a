// A customer's codes against their balance once orders that earned their points are cancelled. A code reserved the
// points it was issued for, but the orders that earned them can be cancelled afterwards: the balance then no longer
// covers what the codes hold, and a code still in the store would pay for an order whose redeem the service refuses,
// at the merchant's cost. So, before an earning's cancel is sent, its customer's holder is marked ('reward-check',
// by the holder's id), whether or not they hold a code then (one may be reserved meanwhile, on any bridge); after
// the cancel, the balance is read anew and, while the reservations hold more than it, the customer's newest unused
// codes are withdrawn: removed from the store, their points let go (RewardCodes.removedUnused). A code the store
// already counts as used stays held for its order. The mark goes only with a check made after the cancel landed
// (a check before it cannot say the holder is covered): one that cannot be made now (no room in the budget, the
// store down, a crash) leaves it, and the sweeper makes it.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.ts';
import type { Accounts, AccountRuntime } from '../accounts.ts';
import type { StoreCodes } from '../capabilities/codes.ts';
import type { OperatorQueries, RecordRole } from '../store/ledger-store.ts';
import { CHECK_KIND, cancelsOnTheirWay, type CoverCheck } from './cover-marks.ts';
import { HolderFinder } from './customer-holders.ts';
import type { ServiceCustomer } from './customer-points.ts';
import {
  FENCE_DROPPED_MS,
  FENCE_KIND,
  HOLDER_KIND,
  heldPoints,
  holderId,
  type CheckFence,
  type Holder,
  type Reservation,
} from './reservations.ts';
import type { RewardCodes } from './reward-codes.ts';
import type { FreshPoints } from './storefront-reader.ts';

export interface CoverCheckParts {
  store: Pick<
    OperatorQueries & RecordRole,
    'getRecord' | 'putRecord' | 'deleteRecord' | 'listRecords' | 'changeRecord' | 'customerOrders'
  >;
  codesOf: (platform: string) => StoreCodes | undefined;
  reader: {
    pointsNow(account: AccountRuntime, customer: ServiceCustomer): Promise<FreshPoints>;
  };
  codes: Pick<RewardCodes, 'removedUnused' | 'end'>;
  logger: Logger;
  now: () => Date;
}

/** Unused codes in the store: what a withdrawal can take back. */
const withdrawable = (reservation: Reservation) =>
  reservation.state === 'issued' && reservation.removedAt === undefined && reservation.platformId !== undefined;
/**
 * A code being made: its points were reserved against a balance read before now (maybe before the cancel), and it
 * becomes withdrawable once made. A check keeps its mark while one is, so that the sweeper checks it once it is.
 */
const beingMade = (holder: Holder | undefined) =>
  (holder?.reservations ?? []).some((reservation) => reservation.state === 'reserving');

/**
 * What a check counts as held: a code withdrawn from a store that counts uses late keeps its points held for its
 * settling window (a redeem may not spend them), but to a check it is gone, as to the check that withdrew it; counted,
 * the next check of the customer would withdraw another code their balance covers. An order that paid with it before
 * it went marks the holder when it takes it (RewardCodes.claimForOrder), and that check counts it as used.
 */
const stillHeld = (holder: Holder, readStartedAt: number, source: 'service' | 'ledger') =>
  heldPoints(holder, readStartedAt, source) -
  holder.reservations.reduce(
    (total, each) => total + (each.state === 'issued' && each.removedAt !== undefined ? each.points : 0),
    0,
  );

/** The group's codes a withdrawal can take back, newest first: one order for every check, whichever holder it names. */
const newestFirst = (group: ReadonlyArray<{ id: string; value: Holder }>) =>
  group
    .flatMap(({ id, value }) =>
      value.reservations.filter(withdrawable).map((reservation) => ({ holder: id, reservation })),
    )
    .sort(
      (a, b) =>
        b.reservation.createdAt.localeCompare(a.reservation.createdAt) ||
        b.reservation.id.localeCompare(a.reservation.id),
    );

export class CoverChecks {
  readonly #o: CoverCheckParts;
  readonly #holders: HolderFinder;

  constructor(parts: CoverCheckParts) {
    this.#o = parts;
    this.#holders = new HolderFinder(parts.store, () => parts.now().getTime());
  }

  /**
   * Before an earning of the customer's on the account is cancelled: marked, whatever they hold now (a Redeem whose
   * read comes before the cancel lands may reserve after this look). Answers the cancel's token, for its check.
   * `holderAccount`: the account's pool's first (AccountPool), under whose holder its reservations go.
   */
  async cancelling(account: string, customer: ServiceCustomer, holderAccount = account): Promise<string> {
    const holder = holderId(holderAccount, customer);
    const at = this.#o.now().toISOString();
    const token = randomUUID();
    await this.#o.store.changeRecord(CHECK_KIND, holder, (current) => ({
      put: { account, holder, at, id: token, cancels: [...this.#landing(current), { id: token, at }] },
    }));
    return token;
  }

  /**
   * The marked holder's codes against a balance read anew; the mark goes once they are covered, and no one marked
   * the holder since this check began, nor has a cancel on its way. `cancel`: the token of the cancel this check
   * follows (it landed): its own entry goes.
   */
  async check(account: AccountRuntime, holder: string, cancel?: string): Promise<'covered' | 'later'> {
    const seen = await this.#o.store.getRecord(CHECK_KIND, holder);
    const fence: CheckFence = { account: account.id, id: randomUUID(), at: this.#o.now().toISOString() };
    await this.#o.store.putRecord(FENCE_KIND, holder, fence);
    const value = await this.#o.store.getRecord(HOLDER_KIND, holder);
    // A holder whose customer was erased keeps holds by amount alone, no reservation to withdraw (anonymousHolder).
    if (!value?.customer || !value.reservations.some(withdrawable)) {
      if (beingMade(value)) return this.#later(account, holder, cancel);
      await this.#unmark(holder, seen, cancel);
      return 'covered';
    }
    const read = await this.#o.reader.pointsNow(account, value.customer);
    if (!read.ok) return this.#later(account, holder, cancel);
    const { approved, redeemed, source } = read.points.balance;
    // The customer's other holders (customer-holders.ts: a phone's own, from before its codes went under the e-mail)
    // hold the same balance at the service, and their checks may run beside this one (two cancels, a sweep): each
    // check withdraws from the whole group, newest code first, so that two side by side pick the same codes.
    const { id, others } = await this.#holders.ofService(await account.pool(), value.customer);
    const besides = [id, ...others].filter((each) => each !== holder);
    const group = [{ id: holder, value }, ...(await this.#read(besides))];
    let short = group.reduce((total, each) => total + stillHeld(each.value, read.readStartedAt, source), 0);
    short -= approved - redeemed;
    for (const each of newestFirst(group)) {
      if (short <= 0) break;
      if ((await this.#withdraw(each.holder, each.reservation)) === 'withdrawn') short -= each.reservation.points;
    }
    // A code made meanwhile is checked on the sweeper's next pass.
    if (beingMade(await this.#o.store.getRecord(HOLDER_KIND, holder))) return this.#later(account, holder, cancel);
    await this.#unmark(holder, seen, cancel);
    return 'covered';
  }

  /**
   * Marked for a check: a code the customer holds again whose points no check since may have counted (code-sweeper.ts:
   * the order that held it let it go). Before the change that makes it theirs; answers a token for the check after
   * it, as a cancel's. The change is on its way as a cancel is: a check made before it lands (another cancel's, a
   * take-back's) finds the code still held for its order and cannot say the holder is covered, so the mark stays
   * until the check given this token, or CANCEL_LANDS_MS (the sweeper stopped between the two).
   */
  async mark(account: string, holder: string): Promise<string> {
    const at = this.#o.now().toISOString();
    const token = randomUUID();
    await this.#o.store.changeRecord(CHECK_KIND, holder, (current) => ({
      put: { account, holder, at, id: token, cancels: [...this.#landing(current), { id: token, at }] },
    }));
    return token;
  }

  /**
   * A check that cannot end now stays marked, for the sweeper, marked anew so that no check begun before takes the
   * mark; the cancel this check follows has landed, so its own entry goes.
   */
  async #later(account: AccountRuntime, holder: string, cancel: string | undefined): Promise<'later'> {
    await this.#o.store.changeRecord(CHECK_KIND, holder, (current) => ({
      put: {
        account: account.id,
        holder,
        at: this.#o.now().toISOString(),
        id: randomUUID(),
        cancels: this.#landing(current).filter((each) => each.id !== cancel),
      },
    }));
    return 'later';
  }

  /** The holder found covered: the cancel's own entry goes, and the mark if it is as `seen` and nothing is landing. */
  async #unmark(holder: string, seen: CoverCheck | undefined, cancel: string | undefined): Promise<void> {
    await this.#o.store.changeRecord(CHECK_KIND, holder, (current) => {
      if (!current) return undefined;
      const cancels = this.#landing(current).filter((each) => each.id !== cancel);
      if (cancels.length === 0 && current.id === seen?.id && current.at === seen?.at) return { delete: true };
      if (cancels.length === (current.cancels ?? []).length) return undefined;
      return { put: { ...current, cancels } };
    });
  }

  /** The mark's cancels that may still be on their way. */
  #landing(mark: CoverCheck | undefined): Array<{ id: string; at: string }> {
    return cancelsOnTheirWay(mark, this.#o.now().getTime());
  }

  /** Every marked holder, as the sweeper's pass makes them; one that cannot be made now stays marked. */
  async checkMarked(accounts: Pick<Accounts, 'runtime'>): Promise<void> {
    await this.#dropOldFences();
    for (const { id, value } of await this.#o.store.listRecords(CHECK_KIND)) {
      const account = await accounts.runtime(value.account);
      if (!account) await this.#o.store.deleteRecord(CHECK_KIND, id);
      // One that fails (its store down) is made on a later pass; the others go on.
      else
        await this.check(account, id).catch((error: unknown) =>
          this.#o.logger.warn(
            { kind: (error as Error)?.name },
            "a customer's reward codes could not be checked against their balance now; they are on the next pass",
          ),
        );
    }
  }

  /** Fences past FENCE_DROPPED_MS go (one a check rewrote meanwhile stays). */
  async #dropOldFences(): Promise<void> {
    const now = this.#o.now().getTime();
    const old = (fence: CheckFence | undefined) =>
      fence !== undefined && now - Date.parse(fence.at) >= FENCE_DROPPED_MS;
    for (const { id, value } of await this.#o.store.listRecords(FENCE_KIND))
      if (old(value))
        await this.#o.store.changeRecord(FENCE_KIND, id, (current) => (old(current) ? { delete: true } : undefined));
  }

  /** The holders' records that exist, with their ids. */
  async #read(ids: readonly string[]): Promise<Array<{ id: string; value: Holder }>> {
    const found = await Promise.all(
      ids.map(async (id) => ({ id, value: await this.#o.store.getRecord(HOLDER_KIND, id) })),
    );
    return found.filter((each): each is { id: string; value: Holder } => each.value !== undefined);
  }

  /** Removed from the store and its points let go, unless the store counts it as used (its order will come). */
  async #withdraw(holder: string, reservation: Reservation): Promise<'withdrawn' | 'kept'> {
    const codes = this.#o.codesOf(reservation.platform);
    if (!codes || reservation.platformId === undefined) return 'kept';
    const uses = await codes.uses(reservation.shop, reservation.platformId);
    if (uses !== undefined && uses > 0) return 'kept';
    await codes.remove(reservation.shop, reservation.platformId);
    const why =
      'the points it held were taken away (an order cancelled, or taken back by hand), so it was withdrawn unused';
    await this.#o.codes.removedUnused(holder, reservation, why, codes.usesCountedLate);
    this.#o.logger.info(
      { platform: reservation.platform, shop: reservation.shop },
      'a reward code was withdrawn: the points it held were taken away (an order cancelled, or taken back by hand)',
    );
    return 'withdrawn';
  }
}
