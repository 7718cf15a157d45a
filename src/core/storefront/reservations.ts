// A customer's reservations on one account: points held by the reward codes the bridge issued them, from the
// moment they asked until the code pays for an order (its redeem sent) or is released unused. One record per
// (account, customer), changed only by compare-and-set (RecordRole.changeRecord), so two tabs or two instances
// reserving for the same customer are serialised at the one write that counts: a reservation is added only if
// the balance read for it, less everything held at that write, still covers it. Each open code also has a
// 'reward-code' record (platform:shop:code) naming its holder: the worker finds an order's code by it, and the
// sweeper (code-sweeper.ts) walks them. docs/storefront.md, "Rewards".
import { createHash, randomBytes } from 'node:crypto';
import type { RecordRole } from '../store/ledger-store.ts';
import { customerKey, type ServiceCustomer } from './customer-points.ts';
import { FENCE_KIND, HOLDER_KIND, type Holder, type Reservation, type ReservationState } from './reward-records.ts';

export {
  CODE_KIND,
  FENCE_KIND,
  HOLDER_KIND,
  type CheckFence,
  type CodeIndex,
  type Holder,
  type Reservation,
  type ReservationState,
} from './reward-records.ts';

/** How many orders a reservation remembers as waiting for its code. */
export const MAX_WAITING = 5;

/** A live code's states: the points are not the customer's to spend again ('refused' holds them too: heldPoints). */
export const HELD: ReadonlySet<ReservationState> = new Set(['reserving', 'issued', 'used']);
/**
 * Ended: nothing more happens to it. Not 'refused': a person's retry of its dead letter may still redeem it, and
 * until they retry or discard it its points stay held, so it is never dropped with the old ones.
 */
export const ENDED: ReadonlySet<ReservationState> = new Set(['redeemed', 'released']);
/**
 * A redeem that went through is in the service's balance for reads that start after it; a read that started
 * before (or up to this long after, for the clocks of other instances, kept in step by NTP) may not show it, so for that read it still
 * counts as held. Counting it twice shows the customer less for a moment, never more.
 */
export const REDEEM_SKEW_MS = 2_000;
/**
 * Ended reservations are kept this long (the customer's export, the merchant's questions), then dropped; a redeemed
 * one's points stay counted in its holder (redeemedEarlier).
 */
export const ENDED_KEPT_MS = 90 * 24 * 60 * 60 * 1000;

/** The holder record's id: the account and a digest of the customer, so no e-mail or phone is in an id. */
export const holderId = (account: string, customer: ServiceCustomer): string =>
  `${account}:${createHash('sha256').update(customerKey(customer)).digest('hex').slice(0, 40)}`;

export const codeIndexId = (platform: string, shop: string, code: string): string =>
  `${platform}:${shop}:${code.toUpperCase()}`;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** The bridge's codes: LB- and 16 characters (80 bits), so one cannot be guessed, and one is told from a merchant's. */
export const BRIDGE_CODE = /^LB-[A-HJ-NP-Z2-9]{16}$/i;
export function newCode(): string {
  const bytes = randomBytes(16);
  return `LB-${[...bytes].map((byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join('')}`;
}

/**
 * The points the customer's reservations hold, for a balance read that started at `readStartedAt` (ms), whose
 * figures come from the service (its redeemed count has each redeem that went through before the read) or the
 * ledger (whose count leaves out the redeems of these codes: they are counted here, every one).
 */
export function heldPoints(holder: Holder | undefined, readStartedAt: number, source: 'service' | 'ledger'): number {
  // Redeems of codes whose reservations were dropped long ago: the service's figures have them, the ledger's not.
  let held = source === 'ledger' ? (holder?.redeemedEarlier ?? 0) : 0;
  for (const each of holder?.erasedShopHolds ?? []) if (Date.parse(each.until) > readStartedAt) held += each.points;
  for (const reservation of holder?.reservations ?? []) {
    // Refused: the merchant's retry would take these points at the service; a new code on them would be refused.
    if (HELD.has(reservation.state) || reservation.state === 'refused') held += reservation.points;
    else if (reservation.state === 'redeemed') {
      const at = reservation.redeemedAt ? Date.parse(reservation.redeemedAt) : Number.POSITIVE_INFINITY;
      if (source === 'ledger' || at > readStartedAt - REDEEM_SKEW_MS) held += reservation.points;
    }
  }
  return held;
}

export type ReservationChange = (reservation: Reservation) => Partial<Reservation> | undefined;

/**
 * Changes one reservation by what it holds now (a compare-and-set on its holder): `change` answers the fields to
 * set, or undefined to leave it. Ended reservations older than ENDED_KEPT_MS go with any write. Returns the
 * reservation as it is after, or undefined when there is none.
 */
export async function changeReservation(
  store: Pick<RecordRole, 'changeRecord'>,
  holder: string,
  reservationId: string,
  change: ReservationChange,
  now = new Date(),
): Promise<Reservation | undefined> {
  let after: Reservation | undefined;
  await store.changeRecord(HOLDER_KIND, holder, (current) => {
    after = undefined;
    const at = current?.reservations.findIndex((reservation) => reservation.id === reservationId) ?? -1;
    if (!current || at < 0) return undefined;
    const before = current.reservations[at]!;
    const patch = change(before);
    after = before;
    if (!patch) return undefined;
    after = { ...before, ...patch };
    const reservations = current.reservations.map((each, index) => (index === at ? after! : each));
    const next = withoutErased(pruned({ ...current, reservations }, now), now);
    return next ? { put: next } : { delete: true };
  });
  return after;
}

/**
 * The holder without its reservations that ended over ENDED_KEPT_MS ago; the points of the redeemed ones among them
 * are added to redeemedEarlier, so a balance from the ledger never gives spent points back however long ago.
 */
/** A reservation as the ledger holds it now; undefined when it is not there, or the ledger cannot say now. */
export async function reservationNow(
  store: Pick<RecordRole, 'getRecord'>,
  holder: string,
  id: string,
): Promise<Reservation | undefined> {
  const value = await store.getRecord(HOLDER_KIND, holder).catch(() => undefined);
  return value?.reservations.find((each) => each.id === id);
}

export function pruned(holder: Holder, now: Date): Holder {
  const old = (reservation: Reservation) =>
    ENDED.has(reservation.state) &&
    now.getTime() - Date.parse(reservation.endedAt ?? reservation.redeemedAt ?? reservation.createdAt) >= ENDED_KEPT_MS;
  const dropped = holder.reservations.filter(old);
  if (dropped.length === 0) return holder;
  const spent = dropped.filter((each) => each.state === 'redeemed').reduce((total, each) => total + each.points, 0);
  return {
    ...holder,
    reservations: holder.reservations.filter((each) => !old(each)),
    ...(spent > 0 ? { redeemedEarlier: (holder.redeemedEarlier ?? 0) + spent } : {}),
  };
}

/**
 * The holder without the reservations its customer's erasure kept for their order's redeem alone, once they ended
 * (redeemed, let go, or released once a person discarded its refusal): undefined when nothing else is left to keep. A
 * whole erasure left no long-spent count (redeemedEarlier) to keep; a holder that keeps points held by amount keeps no
 * customer (as erased-holds.ts's anonymousHolder), its id a digest.
 */
export function withoutErased(holder: Holder, now: Date): Holder | undefined {
  const done = (each: Reservation) => each.erasedAt !== undefined && ENDED.has(each.state);
  if (!holder.reservations.some(done)) return holder;
  const reservations = holder.reservations.filter((each) => !done(each));
  if (reservations.length > 0 || (holder.redeemedEarlier ?? 0) > 0) return { ...holder, reservations };
  const holds = (holder.erasedShopHolds ?? []).filter((each) => Date.parse(each.until) > now.getTime());
  if (holds.length === 0) return undefined;
  return { account: holder.account, reservations: [], erasedShopHolds: holds } as Omit<Holder, 'customer'> as Holder;
}

/** A released reservation, with why: from any held state but 'used' (an order's redeem decides that one). */
export const release =
  (why: string, now: Date, from: ReadonlySet<ReservationState> = new Set(['reserving', 'issued'])): ReservationChange =>
  (reservation) =>
    from.has(reservation.state) ? { state: 'released', endedAt: now.toISOString(), endedWhy: why } : undefined;

/** An order that paid with the code takes its reservation (RewardCodes.claimForOrder), or waits for it. */
export const takenBy =
  (orderKey: string): ReservationChange =>
  (current) => {
    if (current.state === 'used' && current.orderKey === orderKey) return {};
    // 'reserving': its make's answer was lost, but the store made it and an order used it.
    if (current.state === 'issued' || current.state === 'reserving')
      return { state: 'used', orderKey, usedAtPlatform: undefined, waiting: withoutOrder(current.waiting, orderKey) };
    // Held by another order whose redeem has not gone: a store that gives a cancelled order's use back let this
    // order pay with the code too. It waits: if the other lets go, this one takes the reservation (the sweeper).
    if (current.state === 'used' && !(current.waiting ?? []).includes(orderKey))
      return { waiting: [...(current.waiting ?? []), orderKey].slice(-MAX_WAITING) };
    return undefined;
  };

/** The customer's codes in the shop that are being made or can still be used: what MAX_OPEN_CODES counts. */
export const openInShop = (
  holder: Holder | undefined,
  asked: Pick<Reservation, 'platform' | 'shop' | 'customerId'>,
  now: Date,
): number =>
  (holder?.reservations ?? []).filter(
    (each) =>
      (each.state === 'reserving' ||
        (each.state === 'issued' && each.removedAt === undefined && Date.parse(each.expiresAt) > now.getTime())) &&
      each.platform === asked.platform &&
      each.shop === asked.shop &&
      each.customerId === asked.customerId,
  ).length;

/** Orders waiting for a code without one; undefined when none is left. */
export const withoutOrder = (waiting: string[] | undefined, orderKey: string): string[] | undefined => {
  const left = (waiting ?? []).filter((each) => each !== orderKey);
  return left.length > 0 ? left : undefined;
};

/** A reservation on a read older than this (when it reads the fence back) is refused as if fenced. */
export const FENCE_KEPT_MS = 10 * 60_000;
/**
 * A fence is dropped (the sweep) this long after its check wrote it: past FENCE_KEPT_MS by a margin for the clocks of
 * the bridges that write, drop and compare it (kept in step by NTP, REDEEM_SKEW_MS), so that a reservation that finds
 * no fence where it noted none, on a read that began before the check, is always older than FENCE_KEPT_MS by then.
 */
export const FENCE_DROPPED_MS = FENCE_KEPT_MS + 60_000;

/** The holder's fence now (cover-checks.ts writes it): what a redemption's read notes before it starts. */
export async function fenceOf(store: Pick<RecordRole, 'getRecord'>, holder: string): Promise<string | null> {
  return (await store.getRecord(FENCE_KIND, holder))?.id ?? null;
}

/**
 * Whether a reservation just written on a read that noted `fence` before it started must let its points go: a check
 * looked at the holder since (after a cancel the read may not show), or the read is older than fences are kept. Read
 * after the reservation's write, as a check writes its fence before it reads the holder: one sees the other
 * (test/property/store-fence-model.test.ts).
 */
export async function fencedOut(
  store: Pick<RecordRole, 'getRecord'>,
  holder: string,
  read: { fence?: string | null | undefined; readStartedAt: number },
  now: () => number,
): Promise<boolean> {
  // A reader given no fence (no rewards wired) notes none: nothing to compare.
  if (read.fence === undefined) return false;
  const fence = await fenceOf(store, holder);
  // Its age once the fence is read, not before the reservation's write: a fence dropped (none, where none was
  // noted) by then was written FENCE_DROPPED_MS before, after this read began, however long the write took.
  if (now() - read.readStartedAt >= FENCE_KEPT_MS) return true;
  return fence !== read.fence;
}
