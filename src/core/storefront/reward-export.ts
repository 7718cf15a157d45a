// A reservation as the customer's export shows it: what is theirs and means something to them (the code, its points
// and amount, where and when, and where it stands, in words). Not the orders that used or were placed with the code
// (another customer's, possibly: whoever has a code can pay with it), nor the store's own id of the code.
import type { Reservation, ReservationState } from './reservations.ts';
import { amountOffField, type RewardBenefit } from '../reward-benefit.ts';

const MEANING: Record<ReservationState, string> = {
  reserving: 'points held while the code is being made',
  issued: 'points held: the code can be used until it expires',
  used: 'an order paid with the code; its points are being taken',
  redeemed: 'an order paid with the code, and its points were taken',
  released: 'the code was not used: its points are yours again',
  refused: 'an order paid with the code, but its points could not be taken',
};

export interface ExportedReservation {
  account: string;
  platform: string;
  shop: string;
  customerId: string;
  code: string;
  points: number;
  benefit: RewardBenefit;
  /** The amount off, for an amount off: as exports named it before benefits had kinds. */
  amountOff?: string;
  state: ReservationState;
  meaning: string;
  createdAt: string;
  expiresAt: string;
  redeemedAt: string | undefined;
  endedAt: string | undefined;
  endedWhy: string | undefined;
}

export function exportedReservation(account: string, each: Reservation): ExportedReservation {
  const { platform, shop, customerId, code, points, benefit, state, createdAt, expiresAt } = each;
  const { redeemedAt, endedAt, endedWhy } = each;
  return {
    ...{ account, platform, shop, customerId, code, points, benefit, ...amountOffField(benefit) },
    ...{ state, meaning: MEANING[state] },
    ...{ createdAt, expiresAt, redeemedAt, endedAt, endedWhy },
  };
}
