// Walks the open reward codes (their 'reward-code' records) and ends what should end, so that no code stays in a
// store without its reservation and no reservation is held without a code a customer can use:
// - a reservation still 'reserving' after REPAIR_MS: its make crashed or lost its answer; the code is looked for
//   by its text and removed if there, and the points let go;
// - an issued code past its expiry and the settling window: the store's own count of its uses decides; unused,
//   it is removed and its points let go (it never cost the customer a point); used, its order is awaited;
// - an issued code whose reward or storefront the merchant turned off: unused, removed while access lasts, then let
//   go; used at checkout already (its order paid later, or on its way), kept held for its order;
// - an issued code past its expiry and settling in a store that no longer lets the bridge in (its key revoked), or of
//   a shop uninstalled (it pays until its expiry): its points are held until then, then let go unasked;
// - a used code whose order was cancelled first (a store may give the use back, so it could pay again): an order
//   that paid with it meanwhile takes it; where the store counts no use, it is the customer's issued code again
//   (checked against their balance at once); where it counts one, it is removed and waits for that order until its
//   expiry and settling; a store that does not let the bridge in is asked again, the points held;
// - a code whose redeem was refused: removed from the store once, held until a person settles it (refused-codes.ts);
// - a code that paid for an order (redeemed, or released by a discard of its refusal): removed from the store, then
//   its record dropped; kept while the store does not let the bridge in; past its expiry and settling it goes;
// - a code record whose reservation ended or never came: dropped;
// - a code withdrawn unused from a store that counts uses late, with an order placed with it and not paid yet (its
//   use counted late, the code gone, so the store cannot be asked): held until that order pays (and takes it) or
//   ends, for PLACED_WAIT_MS at most (placed-orders.ts). A store that counts uses at once counts that order's use.
// Runs on one instance at a time (LedgerLifecycle.exclusive). Every step is a compare-and-set from what it read, so a
// step that races the worker or a customer changes nothing. docs/storefront.md, "Rewards".
import type { Logger } from '../../logger.ts';
import type { Accounts } from '../accounts.ts';
import { codeRedeemFate } from '../lifecycle.ts';
import type { OrderRecord } from '../order-record.ts';
import { codeRedeemOf, redeemInDoubt, withoutState } from '../redeems.ts';
import type { StoreCodes } from '../capabilities/codes.ts';
import type { OrderWorkRole, DeadLetterRole, RecordRole, LedgerLifecycle } from '../store/ledger-store.ts';
import { ifAccessGone, removeKeptOrphans } from './orphan-codes.ts';
import { placedUnpaid, sameNotes } from './placed-orders.ts';
import { dropEndedErasedCodes } from './erased-codes.ts';
import { sweepRefused } from './refused-codes.ts';
import { CODE_KIND, HOLDER_KIND, release, type CodeIndex, type Reservation } from './reservations.ts';
import type { CoverChecks } from './cover-checks.ts';
import type { RewardCodes } from './reward-codes.ts';
import { shopRewards } from './rewards.ts';
import { storefrontOn } from './storefront-switch.ts';

/** A make takes at most this long (its calls time out well before): a 'reserving' older than this is repaired. */
export const REPAIR_MS = 2 * 60_000;
/** After a code's expiry, the store's count of its uses settles (orders paid at the last moment) for this long. */
export const SETTLE_MS = 6 * 60 * 60_000;
/** How long an order placed with a withdrawn code and not paid yet keeps its points held (payment terms: 90 days). */
export const PLACED_WAIT_MS = 90 * 24 * 60 * 60_000;
/** A code record whose reservation never came (a crash between the two writes) is dropped after this long. */
const DANGLING_MS = 10 * 60_000;
const UNINSTALLED = 'the app was uninstalled while its code was made; the code ends by its own expiry';

export interface SweepReport {
  released: number;
  removed: number;
  redeemed: number;
  failed: number;
}

export interface CodeSweeperParts {
  store: Pick<
    OrderWorkRole & DeadLetterRole & RecordRole & LedgerLifecycle,
    | 'listRecords'
    | 'getRecord'
    | 'deleteRecord'
    | 'getOrder'
    | 'getDeadLetter'
    | `${'add' | 'remove'}DeadLetter`
    | 'exclusive'
    | 'updateProgress'
  >;
  codes: RewardCodes;
  /** The checks of codes left uncovered by cancelled earnings that could not be made at the cancel. */
  checks: Pick<CoverChecks, 'checkMarked' | 'mark' | 'check'>;
  codesOf: (platform: string) => StoreCodes | undefined;
  /** Whether the bridge still serves the shop (its storefront's `served`): false once it was uninstalled or erased. */
  served: (platform: string, shop: string) => Promise<boolean>;
  accounts: Pick<Accounts, 'runtime' | 'forShop'>;
  logger: Logger;
  now?: () => Date;
  settleMs?: number;
  repairMs?: number;
}

export class CodeSweeper {
  readonly #o: CodeSweeperParts;
  readonly #now: () => Date;

  constructor(parts: CodeSweeperParts) {
    this.#o = parts;
    this.#now = parts.now ?? (() => new Date());
  }

  /** One pass over the open codes, on one instance at a time; undefined when another instance runs it now. */
  async sweep(): Promise<SweepReport | undefined> {
    const ran = await this.#o.store.exclusive('reward-code-sweep', () => this.#pass());
    return ran.ran ? ran.value : undefined;
  }

  async #pass(): Promise<SweepReport> {
    const report: SweepReport = { released: 0, removed: 0, redeemed: 0, failed: 0 };
    // First: a code whose points were cancelled is withdrawn before anything else may let it pay.
    await this.#o.checks.checkMarked(this.#o.accounts).catch((error: unknown) => {
      report.failed += 1;
      this.#o.logger.warn({ kind: (error as Error)?.name }, 'reward codes could not be checked against a balance now');
    });
    // Then codes made after their points were let go, whose removal failed (orphan-codes.ts).
    report.failed += await removeKeptOrphans(this.#o.store, this.#o.codesOf, this.#o.served, this.#now().getTime());
    await dropEndedErasedCodes(this.#o.store, this.#now().getTime());
    for (const { id, value } of await this.#o.store.listRecords(CODE_KIND)) {
      try {
        await this.#one(id, value, report);
      } catch (error) {
        // The store or the platform failed: this code is looked at again on the next pass.
        report.failed += 1;
        this.#o.logger.warn(
          { platform: value.platform, shop: value.shop, kind: (error as Error)?.name },
          'an open reward code could not be looked at now; it is looked at again on the next pass',
        );
      }
    }
    return report;
  }

  /**
   * The store is asked first whether the code was made (a shop not served may still let the bridge in: one taken off
   * the bridge's list of shops keeps its install, and a code made there is usable). A store that cannot be asked, of
   * a shop the bridge no longer serves (uninstalled as the code was made), holds the points until the code's expiry
   * and settling window (#whenUnserved): a make whose answer was lost may have made it. A served shop's store that
   * cannot be asked now is asked on the next pass.
   */
  async #repairUnmade(holder: string, reservation: Reservation): Promise<'repaired' | 'held'> {
    const codes = this.#o.codesOf(reservation.platform);
    let found: string | undefined;
    try {
      found = await codes?.find(reservation.shop, reservation.code);
    } catch (error) {
      // Its make may have landed (its answer lost): it would pay until its expiry.
      if ((await this.#whenUnserved(reservation, error)) === 'hold') return 'held';
      await this.#o.codes.repairUnmade(holder, reservation, UNINSTALLED);
      return 'repaired';
    }
    await this.#o.codes.repairFound(holder, reservation, found);
    return 'repaired';
  }

  async #one(id: string, index: CodeIndex, report: SweepReport): Promise<void> {
    const now = this.#now();
    const holder = await this.#o.store.getRecord(HOLDER_KIND, index.holder);
    const reservation = holder?.reservations.find((each) => each.id === index.reservation);
    if (!reservation) {
      if (now.getTime() - Date.parse(index.createdAt) > DANGLING_MS) await this.#o.store.deleteRecord(CODE_KIND, id);
      return;
    }
    switch (reservation.state) {
      case 'reserving':
        if (now.getTime() - Date.parse(reservation.createdAt) < (this.#o.repairMs ?? REPAIR_MS)) return;
        if ((await this.#repairUnmade(index.holder, reservation)) === 'repaired') report.released += 1;
        return;
      case 'issued':
        return this.#issued(index, reservation, report);
      case 'used':
        return this.#used(index, reservation, holder!.account, report);
      case 'refused':
        return sweepRefused(this.#o, { index, reservation, now, report }, (each) => this.#removeSpent(each, report));
      case 'released':
      case 'redeemed': {
        // A released one with an order is a refused code whose dead letter a person discarded: it paid, it is spent.
        const spent = reservation.state === 'redeemed' || reservation.orderKey !== undefined;
        if (!spent || (await this.#removeSpent(reservation, report))) await this.#o.store.deleteRecord(CODE_KIND, id);
      }
    }
  }

  /**
   * A spent code removed from the store (a use it gives back would pay for nothing): true when gone, or when past its
   * expiry and settling; false while the store does not let the bridge in (it may again, the code still paying).
   */
  async #removeSpent(reservation: Reservation, report: SweepReport): Promise<boolean> {
    const codes = this.#o.codesOf(reservation.platform);
    const over = this.#now().getTime() > Date.parse(reservation.expiresAt) + (this.#o.settleMs ?? SETTLE_MS);
    if (!codes || reservation.platformId === undefined || over) return true;
    const removed = await ifAccessGone(
      codes.remove(reservation.shop, reservation.platformId).then(() => true),
      false,
    ).catch(async (error: unknown) => this.#whenUnserved(reservation, error));
    if (removed !== true) {
      if (removed === false && (await this.#o.served(reservation.platform, reservation.shop))) report.failed += 1;
      return false;
    }
    report.removed += 1;
    return true;
  }

  async #issued(index: CodeIndex, reservation: Reservation, report: SweepReport): Promise<void> {
    const now = this.#now();
    const settleMs = this.#o.settleMs ?? SETTLE_MS;
    if (reservation.removedAt !== undefined) {
      // Removed unused from a store that counts uses late: an order that paid just before has had its window. One
      // placed with it and not paid yet keeps its points held until it pays (and takes it) or ends, for a while:
      // the store, which counted its use late, cannot be asked of a code it no longer has.
      const removedAt = Date.parse(reservation.removedAt);
      if (now.getTime() <= removedAt + settleMs) return;
      if (now.getTime() <= removedAt + PLACED_WAIT_MS && (await placedUnpaid(this.#o.store, reservation))) return;
      const why = reservation.endedWhy ?? 'its code was removed unused';
      // An order noted since the look above is looked at on the next pass.
      const letGo = release(why, now, new Set(['issued']));
      const after = await this.#o.codes.end(index.holder, reservation, (current) =>
        sameNotes(current, reservation) ? letGo(current) : undefined,
      );
      if (after?.state === 'released') report.released += 1;
      return;
    }
    const codes = this.#o.codesOf(reservation.platform);
    const offered = await this.#stillOffered(reservation);
    const settled = now.getTime() > Date.parse(reservation.expiresAt) + settleMs;
    if (offered && !settled) return;
    if (!codes || reservation.platformId === undefined) return;
    // Asked before a code is let go for any reason: one used at checkout before the merchant turned its reward or
    // storefront off (an order paid days later, a webhook on its way) would otherwise give its points back, and its
    // order, when it comes, would find no reservation to redeem.
    // Only once it can pay for nothing more: one still open is asked again on the next pass, as the store may let
    // the bridge in again (a key mended) and the merchant's checkout may still take it.
    // A shop the bridge no longer serves (uninstalled) cannot be asked, and its code pays until its expiry: held
    // until then and its settling, then let go unasked (an uninstall's errors need not say the access is gone).
    const asked = codes
      .uses(reservation.shop, reservation.platformId)
      .catch(async (error: unknown) => ((await this.#whenUnserved(reservation, error)) === 'hold' ? 'hold' : 'gone'));
    const uses = settled ? await ifAccessGone(asked, 'access-gone' as const) : await asked;
    if (uses === 'hold') return;
    if (uses === 'access-gone' || uses === 'gone') {
      const why =
        uses === 'gone'
          ? 'its code expired; the app was uninstalled from the store'
          : 'its code expired; the store no longer lets the bridge look at it';
      const after = await this.#o.codes.end(index.holder, reservation, release(why, now, new Set(['issued'])));
      if (after?.state === 'released') report.released += 1;
      return;
    }
    if (uses !== undefined && uses > 0) {
      // Used in the store by an order never paid nor cancelled (a failed payment left open): the code pays for nothing
      // more once expired, and reconciliation would long since have found a paid order a webhook missed.
      if (now.getTime() > Date.parse(reservation.expiresAt) + settleMs + PLACED_WAIT_MS) {
        const why = 'its code expired; the order that used it in the store was never paid';
        const after = await this.#o.codes.end(index.holder, reservation, release(why, now, new Set(['issued'])));
        if (after?.state === 'released') report.released += 1;
        return;
      }
      // Used in the store: its order will bring the redeem (reconciliation finds an order a webhook missed).
      if (!reservation.usedAtPlatform) {
        await this.#o.codes.end(index.holder, reservation, (current) =>
          current.state === 'issued' ? { usedAtPlatform: true } : undefined,
        );
        this.#o.logger.info(
          { platform: reservation.platform, shop: reservation.shop },
          'a reward code was used in the store; its points stay held until its order arrives',
        );
      }
      return;
    }
    // Removed before it is let go: a code must never be usable without its reservation.
    await codes.remove(reservation.shop, reservation.platformId);
    report.removed += 1;
    const why = settled ? 'its code expired unused' : 'the merchant turned the reward off';
    // Past its settling window the store's count has settled too; before it, a late count may hide a use.
    const late = !settled && codes.usesCountedLate && settleMs > 0;
    const after = await this.#o.codes.removedUnused(index.holder, reservation, why, late);
    if (after?.state === 'released') report.released += 1;
  }

  async #used(index: CodeIndex, reservation: Reservation, holderAccount: string, report: SweepReport): Promise<void> {
    if (!reservation.orderKey) return;
    const order = await this.#o.store.getOrder(reservation.orderKey);
    if (!order) return;
    const accountId = order.upstream.account ?? (await this.#o.accounts.forShop(order.platform, order.shop));
    const account = accountId === undefined ? undefined : await this.#o.accounts.runtime(accountId);
    if (!account) return;
    const fate = codeRedeemFate(order, reservation.id, account.policy);
    const entry = codeRedeemOf(order.upstream, reservation.id);
    const code = entry && withoutState(entry);
    if (fate === 'sent' && code) {
      // When the service took it, as the order's call record says (its last redeem: never earlier than this one's):
      // a balance read since then has counted it, so it must not count as held for that read too (heldPoints).
      const took = order.calls.findLast((call) => call.operation === 'redeem' && call.outcome === 'success')?.at;
      await this.#o.codes.settled(code, 'redeemed', order.key, took);
      report.redeemed += 1;
    } else if (
      code &&
      refusedFirst(order, reservation.id) &&
      (await this.#o.store.getDeadLetter(order.work.held.redeem!))?.reason.includes(code.code) === true
    ) {
      // Refused at use and dead-lettered, but the refusal's own write never landed (a failed write, or a crash just
      // after the dead letter): settled now as the worker would have, or its points would stay held for good. Only a
      // dead letter about this code (its words name it): one about the order's own redeem, or another call, holds
      // this code's redeem untried, and its points stay held for it.
      await this.#o.codes.settled(code, 'refused', order.key);
    } else if (fate === 'never') {
      await this.#orderLetGo(index, reservation, holderAccount, report);
    }
  }

  /**
   * The order that took the code was cancelled before its redeem went. A store may have given the code's use back
   * (some stores do, for a cancelled or failed order), so the code may pay, or have paid, for another order:
   * - an order that paid with it while this one held it (waiting) takes it, and is looked at now;
   * - the store has no such code any more: let go;
   * - the store counts no use: the customer's issued code again (let go at its expiry, or when its reward goes);
   * - the store counts a use (another order's, its delivery on its way; or a store that keeps a cancelled order's
   *   use): removed from the store, so it pays for nothing more, and issued again as used in the store, so that
   *   order takes it when it comes; none by its expiry and settling window: let go (its code is gone).
   * A code the customer can use again is checked against their balance at once (marked first): an earning cancelled
   * while the order held it found it used, and left it (cover-checks.ts).
   */
  async #orderLetGo(index: CodeIndex, reservation: Reservation, account: string, report: SweepReport): Promise<void> {
    const now = this.#now();
    const heldBy = reservation.orderKey;
    const stillHeld = (current: Reservation) => current.state === 'used' && current.orderKey === heldBy;
    const waiter = reservation.waiting?.[0];
    if (waiter !== undefined) {
      const after = await this.#o.codes.end(index.holder, reservation, (current) =>
        stillHeld(current) && current.waiting?.[0] === waiter
          ? { orderKey: waiter, waiting: current.waiting.length > 1 ? current.waiting.slice(1) : undefined }
          : undefined,
      );
      // Its order let go of the code when it could not take it: it is looked at again, and takes it now.
      if (after?.state === 'used' && after.orderKey === waiter) await this.#o.store.updateProgress(waiter, () => {});
      return;
    }
    const codes = this.#o.codesOf(reservation.platform);
    // A store that does not let the bridge in now (a revoked key) cannot be asked, and the code may pay again (a use
    // given back): asked again on the next pass (a key mended), as #issued is, and let go only once it can pay for
    // nothing more. An uninstalled shop's is held until then (#whenUnserved).
    const over = now.getTime() > Date.parse(reservation.expiresAt) + (this.#o.settleMs ?? SETTLE_MS);
    const asked =
      codes && reservation.platformId !== undefined
        ? codes
            .uses(reservation.shop, reservation.platformId)
            .catch(async (error: unknown) =>
              (await this.#whenUnserved(reservation, error)) === 'hold' ? 'hold' : undefined,
            )
        : undefined;
    const uses = over && asked ? await ifAccessGone(asked, undefined) : await asked;
    if (uses === 'hold') return;
    if (uses === undefined) {
      const why = 'its order was cancelled before its points were redeemed';
      const after = await this.#o.codes.end(index.holder, reservation, (current) =>
        stillHeld(current) ? release(why, now, new Set(['used']))(current) : undefined,
      );
      if (after?.state === 'released') report.released += 1;
      return;
    }
    const mark = uses > 0 ? undefined : await this.#o.checks.mark(account, index.holder);
    await this.#o.codes.end(index.holder, reservation, (current) =>
      stillHeld(current)
        ? { state: 'issued', orderKey: undefined, usedAtPlatform: uses > 0 ? true : undefined }
        : undefined,
    );
    // Removed once its points are held for the order the store counted: removed first, a write that failed after
    // (or a stop) left no code in the store, and the next pass took it for one gone and let its points go.
    if (uses > 0) {
      await codes!.remove(reservation.shop, reservation.platformId!);
      report.removed += 1;
    }
    // Given its mark's token, whether the change landed or not (then there is nothing new, and the token goes): a
    // check made meanwhile, before the change, could not take the mark.
    const runtime = mark !== undefined ? await this.#o.accounts.runtime(account) : undefined;
    if (runtime) await this.#o.checks.check(runtime, index.holder, mark);
  }

  /**
   * A store that refused a look at the code (its error thrown), of a shop the bridge may no longer serve: a served
   * shop's refusal is thrown on, and asked again on the next pass. An uninstalled shop's store cannot be asked, its
   * code pays until its expiry, and no order of it reaches the bridge: its points are held until the code's expiry and
   * settling window ('hold'), then let go unasked ('let-go'), whatever its store answers (an error that looks passing
   * too: a closed shop's domain may never answer again).
   */
  async #whenUnserved(reservation: Reservation, error: unknown): Promise<'hold' | 'let-go'> {
    if (await this.#o.served(reservation.platform, reservation.shop)) throw error;
    const settled = Date.parse(reservation.expiresAt) + (this.#o.settleMs ?? SETTLE_MS);
    return this.#now().getTime() > settled ? 'let-go' : 'hold';
  }

  /** Whether the merchant still offers the code's reward in a storefront that is on. */
  async #stillOffered(reservation: Reservation): Promise<boolean> {
    const { platform, shop } = reservation;
    if (!(await storefrontOn(this.#o.store, platform, shop))) return false;
    const rewards = await shopRewards(this.#o.store, platform, shop);
    return rewards.some((reward) => reward.id === reservation.rewardId && reward.on);
  }
}

/**
 * Whether the order's redeems stopped at this code's, refused: they go in turn (lifecycle.ts), so a dead letter that
 * holds them, with no redeem in doubt, is about the first code whose redeem has not gone.
 */
function refusedFirst(order: OrderRecord, reservation: string): boolean {
  const { upstream, work } = order;
  if (work.held.redeem === undefined || redeemInDoubt(upstream) !== undefined) return false;
  const first = upstream.redeemCodes?.find((each) => each.redemption !== 'sent');
  return first?.reservation === reservation;
}
