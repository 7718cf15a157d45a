// A code whose redeem the service refused at use holds its points until a person settles the order's dead letter
// (docs/storefront.md, "Refused at use"): a retry that succeeds redeems it, a discard lets its points go. The worker
// marks both (RewardCodes.settled); the sweeper keeps the code's record and asks here on each pass, so that a person's
// choice whose mark was lost (a crash, a failed write), or a retry of an order cancelled meanwhile (which then redeems
// nothing), still ends it, never before a person chose.
import type { Accounts } from '../accounts.ts';
import type { OrderRecord } from '../order-record.ts';
import { codeRedeemFate } from '../lifecycle.ts';
import { codeRedeemOf, withoutState } from '../redeems.ts';
import type { OrderWorkRole, DeadLetterRole } from '../store/ledger-store.ts';
import { release, type CodeIndex, type Reservation } from './reservations.ts';
import type { RewardCodes } from './reward-codes.ts';

export interface RefusedParts {
  store: Pick<OrderWorkRole & DeadLetterRole, 'getOrder' | 'getDeadLetter' | 'addDeadLetter' | 'removeDeadLetter'>;
  codes: Pick<RewardCodes, 'end' | 'settled'>;
  accounts: Pick<Accounts, 'runtime' | 'forShop'>;
}

/** What became of a refused code now: still held for a person, or ended by what the order shows they chose. */
export async function settleRefused(
  o: RefusedParts,
  index: CodeIndex,
  reservation: Reservation,
  now: Date,
): Promise<'held' | 'released' | 'redeemed'> {
  const order = reservation.orderKey === undefined ? undefined : await o.store.getOrder(reservation.orderKey);
  const letGo = async (why: string) => {
    const after = await o.codes.end(index.holder, reservation, release(why, now, new Set(['refused'])));
    return after?.state === 'released' ? ('released' as const) : ('held' as const);
  };
  // Its order gone (erased), its dead letter went with it: no one can retry it.
  if (!order) return letGo('its order is gone, and with it the dead letter of its refused redeem');
  // The dead letter still holds the order's redeems: a person has not chosen yet.
  if (order.work.held.redeem !== undefined) {
    await putBackTaken(o, order, reservation);
    return 'held';
  }
  const entry = codeRedeemOf(order.upstream, reservation.id);
  // The order gave the code's redeem up: a person discarded its dead letter (Worker.discarded).
  if (!entry) return letGo('its refused redeem was discarded by a person');
  if (entry.redemption === 'sent') {
    const took = order.calls.findLast((call) => call.operation === 'redeem' && call.outcome === 'success')?.at;
    await o.codes.settled(withoutState(entry), 'redeemed', order.key, took);
    return 'redeemed';
  }
  const accountId = order.upstream.account ?? (await o.accounts.forShop(order.platform, order.shop));
  const account = accountId === undefined ? undefined : await o.accounts.runtime(accountId);
  // Retried, and the order was cancelled meanwhile: it redeems nothing now, so its points are spared.
  if (account && codeRedeemFate(order, reservation.id, account.policy) === 'never')
    return letGo('its order was cancelled before its refused redeem was sent again');
  return 'held';
}

/**
 * The sweeper's pass over a refused code: ended if a person chose, else removed from the store once (`removedAt`, by
 * `removeSpent`), as any spent code, its record and points kept until a person chooses.
 */
export async function sweepRefused(
  o: RefusedParts,
  {
    index,
    reservation,
    now,
    report,
  }: { index: CodeIndex; reservation: Reservation; now: Date; report: { released: number; redeemed: number } },
  removeSpent: (reservation: Reservation) => Promise<boolean>,
): Promise<void> {
  const fate = await settleRefused(o, index, reservation, now);
  if (fate === 'released') report.released += 1;
  if (fate === 'redeemed') report.redeemed += 1;
  if (fate !== 'held' || reservation.removedAt !== undefined || !(await removeSpent(reservation))) return;
  await o.codes.end(index.holder, reservation, (current) =>
    current.state === 'refused' && current.removedAt === undefined ? { removedAt: now.toISOString() } : undefined,
  );
}

/**
 * The order's held redeem's dead letter, put back where it is gone while the order still holds it: a retry or a
 * discard removes the letter first (whoever removes it acts), then tells the order, and a bridge that stopped between
 * the two left no letter to retry or discard, the points held for good (review J, 6). One that was only slow tells the
 * order as this puts the letter back: whichever of the two looks last at the other's write removes the letter again
 * (here, or engine.ts after telling), so no letter stays naming a choice already made (review L, 1).
 */
async function putBackTaken(o: RefusedParts, order: OrderRecord, reservation: Reservation): Promise<void> {
  const id = order.work.held.redeem!;
  if (await o.store.getDeadLetter(id)) return;
  if ((await o.store.getOrder(order.key))?.work.held.redeem !== id) return;
  await o.store.addDeadLetter({
    ...{ id, kind: 'call', platform: order.platform, shop: order.shop, orderKey: order.key, operation: 'redeem' },
    reason:
      `The loyalty service refused to take ${reservation.points} points for reward code ${reservation.code}. ` +
      'A retry or discard of its dead letter did not finish (the bridge stopped): retry it once the customer has the ' +
      'points again, or discard this.',
  });
  // The retry or discard went on after all, telling the order as this was put back: it holds the letter no more.
  if ((await o.store.getOrder(order.key))?.work.held.redeem !== id) await o.store.removeDeadLetter(id);
}
