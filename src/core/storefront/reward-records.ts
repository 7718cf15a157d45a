// The records of the storefront's rewards, and their schemas: a customer's reservations (one holder per account and
// customer), an open code's index, and a holder's fence. Each read is parsed (store/roles/record-types.ts): a
// reservation of the wrong shape would count a customer's points wrongly. reservations.ts says how they change.
import { z } from 'zod';
import { keptBenefit, withBenefit, type RewardBenefit } from '../reward-benefit.ts';
import { recordType } from '../store/roles/record-types.ts';
import type { ServiceCustomer } from './customer-points.ts';

export type ReservationState =
  /** Held; its code is being made (or its make's answer was lost: the sweeper finds and removes it). */
  | 'reserving'
  /** Held; its code is in the store, shown to the customer. */
  | 'issued'
  /** Held; an order paid with the code, and its redeem is on its way (orderKey). */
  | 'used'
  /** The redeem went through: the service took the points (redeemedAt). */
  | 'redeemed'
  /** Let go: the code was never used, never made, removed, or its shop left. Cost the customer nothing. */
  | 'released'
  /**
   * The service refused the redeem at use (the points were spent elsewhere meanwhile): a dead letter says so. Its
   * points stay held until a person settles that letter: a retry that succeeds makes it redeemed, a discard releases it.
   */
  | 'refused';

export interface Reservation {
  id: string;
  platform: string;
  shop: string;
  /** The platform's id of the customer the code is for. */
  customerId: string;
  rewardId: string;
  points: number;
  /** What its code gives, as its reward gave when it was reserved. */
  benefit: RewardBenefit;
  code: string;
  state: ReservationState;
  /** The platform's id of the code, once made. */
  platformId?: string | undefined;
  /** The account that issued it, where not the holder's (a pool's member, AccountPool): its redeem goes on it. */
  account?: string | undefined;
  expiresAt: string;
  createdAt: string;
  orderKey?: string | undefined;
  redeemedAt?: string | undefined;
  endedAt?: string | undefined;
  /** Why it was released, in words for the merchant and the customer's export. */
  endedWhy?: string | undefined;
  /** The platform counted a use of the code after its expiry: its order is awaited, the points stay held. */
  usedAtPlatform?: boolean | undefined;
  /**
   * The code was removed from the store unused before its expiry (its reward turned off, the points it was for
   * cancelled), in a store that counts uses late (codes.usesCountedLate): an order that paid with it just
   * before may still come, so its points stay held until SETTLE_MS after this, then are let go (endedWhy says why).
   * Also in any store while an order placed with it is not paid yet (placedBy): held until it pays or ends.
   */
  removedAt?: string | undefined;
  /**
   * Orders that paid with the code while another order held it ('used'): a store that gives a cancelled order's
   * use back lets the code pay for a second order. When the holding order lets go (cancelled before its redeem
   * went), the first of these takes the reservation (code-sweeper.ts). At most MAX_WAITING, oldest first.
   */
  waiting?: string[] | undefined;
  /** Orders placed with the code and not paid yet (placed-orders.ts): its points stay held for them. */
  placedBy?: string[] | undefined;
  /**
   * Its customer was erased while an order's redeem of it was on its way ('used'): kept, with its holder's contact,
   * for that redeem alone, and forgotten by the write that ends it (withoutErased).
   */
  erasedAt?: string | undefined;
}

export interface Holder {
  account: string;
  /** Absent once the customer is erased while holds on their account's points remain (anonymousHolder). */
  customer?: ServiceCustomer | undefined;
  reservations: Reservation[];
  /**
   * The points of redeemed reservations dropped after ENDED_KEPT_MS. A balance counted from the ledger leaves the
   * redeems of these codes out of its orders (heldPoints counts them here), so they must outlive the reservations:
   * for as long as the holder can be read. Absent in holders written before it was kept (none was dropped then
   * without being forgotten, so 0 is all that can be said).
   */
  redeemedEarlier?: number | undefined;
  /**
   * Points held for codes of a shop whose data was erased (reward-privacy.ts), until each can pay for nothing more:
   * its expiry and settling window; `reservation` is the erased reservation's id, which an order paying with the code
   * after a reinstall takes back (erased-codes.ts), absent in holds from before. Absent where there are none.
   */
  erasedShopHolds?: Array<{ points: number; until: string; reservation?: string | undefined }> | undefined;
}

/** An open code's own record: which holder's reservation it spends. */
export interface CodeIndex {
  platform: string;
  shop: string;
  holder: string;
  reservation: string;
  createdAt: string;
}

/**
 * A holder's fence (by the holder's id), written anew by each check before it looks. A reservation written after
 * that look, on a balance read that may have started before the cancel landed (another bridge's read, or one that
 * answered just before the cancel's drop), is not seen by the check: it finds the fence changed since its read
 * began and lets its points go. A token, not a time: no clocks of two bridges are compared.
 */
export interface CheckFence {
  account: string;
  id: string;
  at: string;
}

const text = z.string();
const maybe = <T extends z.ZodType>(schema: T) => schema.optional();

export const serviceCustomerSchema: z.ZodType<ServiceCustomer> = z.union([
  z.looseObject({ email: text }),
  z.looseObject({ mobile: text }),
]);

// A reservation made before benefits had kinds names its amount off alone: read as that benefit.
const reservationSchema: z.ZodType<Reservation> = z.preprocess(
  withBenefit,
  z.looseObject({
    id: text,
    platform: text,
    shop: text,
    customerId: text,
    rewardId: text,
    points: z.number(),
    benefit: keptBenefit,
    code: text,
    state: z.enum(['reserving', 'issued', 'used', 'redeemed', 'released', 'refused']),
    platformId: maybe(text),
    account: maybe(text),
    expiresAt: text,
    createdAt: text,
    orderKey: maybe(text),
    redeemedAt: maybe(text),
    endedAt: maybe(text),
    endedWhy: maybe(text),
    usedAtPlatform: maybe(z.boolean()),
    removedAt: maybe(text),
    waiting: maybe(z.array(text)),
    placedBy: maybe(z.array(text)),
    erasedAt: maybe(text),
  }),
);

export const HOLDER_KIND = recordType<Holder>(
  'reward-holder',
  z.looseObject({
    account: text,
    customer: maybe(serviceCustomerSchema),
    reservations: z.array(reservationSchema),
    redeemedEarlier: maybe(z.number()),
    erasedShopHolds: maybe(z.array(z.looseObject({ points: z.number(), until: text, reservation: maybe(text) }))),
  }),
);

export const CODE_KIND = recordType<CodeIndex>(
  'reward-code',
  z.looseObject({ platform: text, shop: text, holder: text, reservation: text, createdAt: text }),
);

export const FENCE_KIND = recordType<CheckFence>('reward-fence', z.looseObject({ account: text, id: text, at: text }));
