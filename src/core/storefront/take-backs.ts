// Points a store took back by hand, as the customer's history names them: the service's redeem answer says nothing
// of why points left (a reward, or a take-back are one redeem to it), so the bridge matches each redeem it reads
// against the take-backs it sent itself for that customer (customer-ledger.ts, takeBacksOf).

/** A take-back the service took (or may have: its answer was lost), when it was sent and how many points. */
export interface TakeBack {
  at: string;
  points: number;
}

/** What a take-back reads as in the customer's history. */
export const TAKEN_BACK_WORDS = 'Taken back by the store';

/** A redeem is a take-back's when the service recorded it this close to when the bridge sent it. */
const SAME_CALL_MS = 10 * 60_000;

/**
 * Whether a redeem the service lists is one of the take-backs: the same points, recorded within minutes of the
 * take-back's sending. Each take-back names one redeem at most (it is taken from `left`).
 */
export function isTakeBack(left: TakeBack[], redeem: { at: string; points: number }): boolean {
  const at = Date.parse(redeem.at);
  const index = left.findIndex(
    (each) => each.points === redeem.points && Math.abs(Date.parse(each.at) - at) <= SAME_CALL_MS,
  );
  if (index < 0) return false;
  left.splice(index, 1);
  return true;
}
