// Orders placed with one of the bridge's codes and not paid yet: a payment pending (a bank transfer, payment terms).
// Such an order took the code's discount at checkout and may pay days later, when it takes the code's reservation
// (RewardCodes.claimForOrder) and redeems its points. A store that counts a code's uses late
// (codes.usesCountedLate) counts that order's use only some time after, so a code withdrawn unused meanwhile (its
// reward turned off, its points cancelled) was let go once its settling window passed, and the order, when it paid,
// redeemed nothing while keeping its discount (issue 64, review E 4). The sweeper keeps such a code's points held
// while a noted order waits (code-sweeper.ts, PLACED_WAIT_MS at most). A store that counts uses at once needs none of
// this: the sweeper asks it.
import type { OrderWorkRole, RecordRole } from '../store/ledger-store.ts';
import { CODE_KIND, MAX_WAITING, changeReservation, codeIndexId, type Reservation } from './reservations.ts';

/** Notes the order on the reservation of the code it was placed with, once; nothing if the code is not held. */
export async function notePlaced(
  store: Pick<OrderWorkRole & RecordRole, 'getRecord' | 'changeRecord'>,
  at: { platform: string; shop: string; code: string; orderKey: string },
): Promise<void> {
  const index = await store.getRecord(CODE_KIND, codeIndexId(at.platform, at.shop, at.code));
  if (!index) return;
  await changeReservation(store, index.holder, index.reservation, (current) =>
    (current.state === 'issued' || current.state === 'reserving') && !(current.placedBy ?? []).includes(at.orderKey)
      ? { placedBy: [...(current.placedBy ?? []), at.orderKey].slice(-MAX_WAITING) }
      : undefined,
  );
}

/**
 * Whether an order placed with the code still waits: not cancelled, refunded or gone, and not yet the code's holder.
 * A paid one waits too until the worker takes the code for it (a sweep may come between its payment's save and that).
 */
export async function placedUnpaid(
  store: Pick<OrderWorkRole & RecordRole, 'getOrder'>,
  reservation: Reservation,
): Promise<boolean> {
  for (const key of reservation.placedBy ?? []) {
    const order = await store.getOrder(key);
    if (!order || order.facts.includes('cancelled') || order.facts.includes('fullyRefunded')) continue;
    if (!order.upstream.redeemCodes?.some((each) => each.reservation === reservation.id)) return true;
  }
  return false;
}

/** The same orders noted as when the sweeper looked: a release compares this at its write. */
export const sameNotes = (current: Reservation, seen: Reservation): boolean =>
  (current.placedBy ?? []).join() === (seen.placedBy ?? []).join();
