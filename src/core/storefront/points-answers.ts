// What the storefront's reader of a customer's points answers (storefront-reader.ts): a page's view, a redemption's.
import type { CustomerPoints } from './customer-points.ts';

/** needsEmail: known by a phone alone, nothing is shown until their record in the shop has an e-mail. */
export type PointsAnswer =
  | { ok: true; points: CustomerPoints; asOf: string; stale: boolean }
  | { ok: false; retryAfterSeconds: number }
  | { ok: false; needsEmail: true; retryAfterSeconds?: undefined };

/**
 * A balance read anew for a reservation, and when its read started (what it can have seen); for a redemption, the
 * customer's cover-check fence as it was before the read (`fence`, where the reader is given one).
 */
export type FreshPoints =
  | { ok: true; points: CustomerPoints; readStartedAt: number; fence?: string | null }
  | { ok: false; retryAfterSeconds: number };

/** The shop whose page asks. */
export interface ShopRef {
  platform: string;
  shop: string;
}

/** For a redemption: a balance read anew, or a kept one that cannot cover it (`short`, what it shows available). */
export type RedeemPoints = FreshPoints | { ok: 'short'; available: number };
