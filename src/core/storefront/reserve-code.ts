// A reward's points reserved for its code (RewardCodes.redeem): the code's own record first, then the reservation at
// one compare-and-set on the customer's holder, against the balance as read less everything held. Two checks follow
// the write: a cover check that looked at the holder since the read began (the fence), and every holder read again
// (issue 64, review K4): when a pool changes under two redeems of one customer (pool-firsts.ts), each may write its own
// holder after reading the other's, counting what the other holds nowhere; of two such writes, the later one's read
// sees the earlier one, so at least one lets go, and the customer is asked to press again.
import { randomUUID } from 'node:crypto';
import { keptForEarlier } from '../reward-benefit.ts';
import type { RecordRole } from '../store/ledger-store.ts';
import { heldIn, openIn, readHolders } from './customer-holders.ts';
import type { ServiceCustomer } from './customer-points.ts';
import type { RedeemAnswer } from './redeem-answer.ts';
import type { Reward } from './rewards.ts';
import type { FreshPoints } from './storefront-reader.ts';
import {
  CODE_KIND,
  HOLDER_KIND,
  codeIndexId,
  fencedOut,
  heldPoints,
  newCode,
  pruned,
  release,
  type CodeIndex,
  type Reservation,
} from './reservations.ts';

/** Unused codes a customer may hold in a shop (a page that redeems by mistake, forged clicks), counted at the
 * reservation's own compare-and-set, so a burst cannot pass it. */
export const MAX_OPEN_CODES = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ReserveParts {
  store: Pick<RecordRole, 'changeRecord' | 'getRecord' | 'addRecord' | 'deleteRecord'>;
  now: () => Date;
  /** Lets a reservation go, and its code's record (RewardCodes.end). */
  end(holder: string, reservation: Reservation, change: ReturnType<typeof release>): Promise<unknown>;
  /** The customer's holders as found now (the pool and its firsts read anew): what the check after the write reads. */
  holdersNow(): Promise<string[]>;
}

export interface ReserveAsk {
  platform: string;
  shop: string;
  customerId: string;
  account: { id: string };
  customer: ServiceCustomer;
  reward: Reward;
}

export type Reserved = { kind: 'reserved'; reservation: Reservation; available: number };

/**
 * The reservation, added only if the balance as read, less everything the customer's holder holds at that write,
 * covers the reward, and the customer holds fewer than MAX_OPEN_CODES open codes in the shop at that write. The
 * others' held points and codes are read just before it, and count as well.
 */
export async function reserveCode(
  parts: ReserveParts,
  asked: ReserveAsk,
  { holder, others, first }: { holder: string; others: string[]; first: string },
  read: Extract<FreshPoints, { ok: true }>,
): Promise<Reserved | RedeemAnswer> {
  const { platform, shop, account, customer, reward } = asked;
  const { store } = parts;
  const now = parts.now();
  const reservation: Reservation = {
    ...{ id: randomUUID(), platform, shop, customerId: asked.customerId, rewardId: reward.id },
    ...{ points: reward.points, benefit: reward.benefit, code: newCode(), state: 'reserving' },
    ...keptForEarlier(reward.benefit),
    expiresAt: new Date(now.getTime() + reward.expiresInDays * DAY_MS).toISOString(),
    createdAt: now.toISOString(),
    ...(account.id === first ? {} : { account: account.id }),
  };
  // The code's own record first: a crash after it leaves a record that points at nothing, which the sweeper
  // drops; the other way round would leave a held reservation nothing lists.
  const index: CodeIndex = { platform, shop, holder, reservation: reservation.id, createdAt: now.toISOString() };
  await store.addRecord(CODE_KIND, codeIndexId(platform, shop, reservation.code), index);
  const { balance } = read.points;
  const besides = await readHolders(store, others);
  const heldBesides = heldIn(besides, read.readStartedAt, balance.source);
  let available = 0;
  let tooMany = false;
  const { changed } = await store.changeRecord(HOLDER_KIND, holder, (current) => {
    available =
      balance.approved - balance.redeemed - heldBesides - heldPoints(current, read.readStartedAt, balance.source);
    tooMany = openIn([current, ...besides], asked, now) >= MAX_OPEN_CODES;
    if (tooMany || available < reward.points) return undefined;
    const reservations = [...(current?.reservations ?? []), reservation];
    return { put: pruned({ ...current, account: first, customer, reservations }, now) };
  });
  if (!changed) {
    await store.deleteRecord(CODE_KIND, codeIndexId(platform, shop, reservation.code));
    return tooMany ? { kind: 'too-many' } : { kind: 'short', available: Math.max(0, available), points: reward.points };
  }
  // A cover check looked at the holder since the read began (after a cancel it may not show), before this write.
  const fenced = await fencedOut(store, holder, read, () => parts.now().getTime());
  if (!fenced && !(await overspent(parts, [holder, ...others], read)))
    return { kind: 'reserved', reservation, available };
  const why = fenced ? 'its balance was read before a cancel of its points' : 'another redeem of the customer met it';
  await parts.end(holder, reservation, release(why, parts.now()));
  return { kind: 'busy', retryAfterSeconds: 1 };
}

/** Whether everything the customer's holders hold now, this reservation among it, passes the balance as read. */
async function overspent(
  parts: ReserveParts,
  before: readonly string[],
  read: Extract<FreshPoints, { ok: true }>,
): Promise<boolean> {
  const ids = [...new Set([...before, ...(await parts.holdersNow())])];
  const { balance } = read.points;
  const held = heldIn(await readHolders(parts.store, ids), read.readStartedAt, balance.source);
  return held > balance.approved - balance.redeemed;
}
