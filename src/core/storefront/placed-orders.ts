// Orders placed with one of the bridge's codes and not paid yet: a payment pending (a bank transfer, payment terms,
// a failed payment tried again). Such an order took the code's discount at checkout and may pay days later, when it
// takes the code's reservation (RewardCodes.claimForOrder) and redeems its points. Until then the points stay held,
// even once the code is withdrawn from the store or expires: let go, they would be spent again while the order keeps
// its discount (issue 64, review E 4). An order cancelled, paid or erased holds nothing more.
import type { LedgerStore } from '../store/ledger-store.ts';
import {
  CODE_KIND,
  MAX_WAITING,
  changeReservation,
  codeIndexId,
  type CodeIndex,
  type Reservation,
} from './reservations.ts';

/** Notes the order on the reservation of the code it was placed with, once; nothing if the code is not held. */
export async function notePlaced(
  store: Pick<LedgerStore, 'getRecord' | 'changeRecord'>,
  at: { platform: string; shop: string; code: string; orderKey: string },
): Promise<void> {
  const index = await store.getRecord<CodeIndex>(CODE_KIND, codeIndexId(at.platform, at.shop, at.code));
  if (!index) return;
  await changeReservation(store, index.holder, index.reservation, (current) =>
    (current.state === 'issued' || current.state === 'reserving') && !(current.placedBy ?? []).includes(at.orderKey)
      ? { placedBy: [...(current.placedBy ?? []), at.orderKey].slice(-MAX_WAITING) }
      : undefined,
  );
}

/** Whether an order placed with the code is still waiting for its payment. */
export async function placedUnpaid(store: Pick<LedgerStore, 'getOrder'>, reservation: Reservation): Promise<boolean> {
  for (const key of reservation.placedBy ?? []) {
    const order = await store.getOrder(key);
    const ended = ['paid', 'fulfilled', 'cancelled', 'fullyRefunded'] as const;
    if (order && !ended.some((fact) => order.facts.includes(fact))) return true;
  }
  return false;
}
