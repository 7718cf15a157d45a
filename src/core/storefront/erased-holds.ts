// Points held by amount once what named them is erased (reward-privacy.ts): a shop's erasure keeps its codes' points
// held while the codes may still pay (Holder.erasedShopHolds), and so does a customer's erasure for a code the store
// could not remove. A code an order had used before its shop's erasure is kept by what became of its redeem (review
// G, G1 and G4): sent, its points are taken (the hold lapses with the code, as before); in doubt or not sent, they are
// owed (the hold never lapses: the discount was given, and no one can check the service for the erased order any
// more), and the order imported again after a reinstall sends a redeem never sent (erased-codes.ts), never one in
// doubt. Nothing here names a shop, a code or a customer: amounts, dates, random ids.
import type { OrderRecord } from '../order-record.ts';
import { codeRedeemOf } from '../redeems.ts';
import type { OrderWorkRole, RecordRole } from '../store/ledger-store.ts';
import { OWED_UNTIL, type ErasedState } from './erased-codes.ts';
import { ORPHAN_KIND, type OrphanCode } from './orphan-codes.ts';
import type { Holder, Reservation } from './reservations.ts';

export type Hold = NonNullable<Holder['erasedShopHolds']>[number];

/** What a shop's erasure keeps of one of its held reservations: how an order may revive it, and its hold's end. */
export interface ErasedFate {
  /** The reservation's state it was worked out from. */
  from: Reservation['state'];
  state: ErasedState;
  /** Its points held for good: the discount was given, and its redeem not known to have gone. */
  owed: boolean;
  /** The code's expiry and settling window: after this it pays for nothing, and its kept record goes. */
  codeUntil: string;
}

const CANCELLED = new Set<string>(['cancelled', 'fullyRefunded']);

/** A held reservation's fate at its shop's erasure, its order read while the shop's records are still there. */
export async function fateAtShopErasure(
  store: Pick<OrderWorkRole & RecordRole, 'getOrder'>,
  reservation: Reservation,
  settleMs: number,
): Promise<ErasedFate> {
  const codeUntil = new Date(Date.parse(reservation.expiresAt) + settleMs).toISOString();
  const from = reservation.state;
  if (from !== 'used') return { from, state: 'issued', owed: false, codeUntil };
  const order = reservation.orderKey === undefined ? undefined : await store.getOrder(reservation.orderKey);
  const state = usedFate(order, reservation.id);
  return { from, state, owed: state === 'owed' || state === 'doubt', codeUntil };
}

/**
 * A used code's: 'taken' when its redeem went; 'doubt' when it may have (a dead letter asked a person to check the
 * service, and with the shop's records that question goes); 'issued' when its order was cancelled before it went (the
 * sweeper would have let it go, or given it back); else 'owed'. An order that cannot be read is in doubt.
 */
function usedFate(order: OrderRecord | undefined, reservation: string): ErasedState {
  const redemption = order && codeRedeemOf(order.upstream, reservation)?.redemption;
  if (redemption === 'sent') return 'taken';
  if (order === undefined || redemption === 'sending') return 'doubt';
  return order.facts.some((fact) => CANCELLED.has(fact)) ? 'issued' : 'owed';
}

/** The hold a fate keeps, where one was worked out for the reservation as it is now (a race changes it: owed). */
export function holdOf(reservation: Reservation, fate: ErasedFate | undefined, settleMs: number): Hold {
  const codeUntil = new Date(Date.parse(reservation.expiresAt) + settleMs).toISOString();
  const owed = fate?.from === reservation.state ? fate.owed : reservation.state === 'used';
  return { points: reservation.points, until: owed ? OWED_UNTIL : codeUntil, reservation: reservation.id };
}

/** The holder's holds that may still pay at `now`: the others go with any write. */
export const liveHolds = (holder: Pick<Holder, 'erasedShopHolds'>, now: number): Hold[] =>
  (holder.erasedShopHolds ?? []).filter((each) => Date.parse(each.until) > now);

/**
 * What a customer's whole erasure keeps of a holder whose points are still held by amount (a code that may pay, an
 * owed redeem): its account and those holds, no customer. The holder's type names one, as every holder a redeem writes
 * does; this one is read for its holds alone (heldPoints) until a redeem of the same customer writes them back.
 */
export const anonymousHolder = (account: string, holds: Hold[]): Holder => ({
  account,
  reservations: [],
  erasedShopHolds: holds,
});

/** As the customer's export shows a hold: its points, and until when (or owed, for good). */
export const holdShown = ({ points, until }: Hold) =>
  until === OWED_UNTIL ? { points, owed: true } : { points, until };

/**
 * A code an erasure could not remove from its store (the bridge's access gone): kept for the sweeper, which removes it
 * once the store lets the bridge in again (orphan-codes.ts). It names the shop and the code's id, no customer.
 */
export async function keepForRemoval(
  store: Pick<OrderWorkRole & RecordRole, 'putRecord'>,
  reservation: Reservation,
  at: Date,
): Promise<void> {
  const { platform, shop, platformId, expiresAt } = reservation;
  if (platformId === undefined) return;
  const orphan: OrphanCode = { platform, shop, platformId, expiresAt, at: at.toISOString() };
  await store.putRecord(ORPHAN_KIND, `${platform}:${shop}:${platformId}`, orphan);
}
