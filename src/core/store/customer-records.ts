// What a customer's export and erasure decide about the dead letters and records that may name them, written once
// for both backends: each finds its candidates its own way (lowdb scans its files, PostgreSQL queries under row
// locks), and these say which are the customer's and what each becomes.
import { adjustmentInScope, contactMatches, inScope, scrubText } from './customer-data.ts';
import type { Adjustment, CustomerMatch, DeadLetter, DeliveryRedactor } from './ledger-store.ts';

/** A data request as the store reads it to find a customer's (core/privacy.ts keeps it). */
export interface DataRequest {
  platform: string;
  shop: string;
  customer: { email?: string; phone?: string };
}

/** Whether a dead letter is the customer's: one of their orders', or a delivery of their shop about them. */
export function letterIsAbout(
  letter: DeadLetter,
  orderKeys: ReadonlySet<string>,
  match: CustomerMatch,
  redactor: DeliveryRedactor,
): boolean {
  if (letter.orderKey && orderKeys.has(letter.orderKey)) return true;
  return Boolean(
    letter.delivery &&
    inScope(letter.delivery.platform, letter.delivery.shop, match) &&
    redactor(letter.delivery).about,
  );
}

/** The letter kept without them: its reason scrubbed of their contacts (`theirs`: as their orders held them). */
export const erasedLetter = (
  letter: DeadLetter,
  match: CustomerMatch,
  theirs: ReadonlyArray<string | null>,
  redactor: DeliveryRedactor,
): DeadLetter => ({
  ...letter,
  reason: scrubText(letter.reason, match, [...theirs]),
  ...(letter.delivery ? { delivery: redactor(letter.delivery).redacted } : {}),
});

export const adjustmentIsAbout = (adjustment: Adjustment, match: CustomerMatch): boolean =>
  adjustmentInScope(adjustment, match) && contactMatches(adjustment.customer, match);

export const dataRequestIsAbout = (request: DataRequest, match: CustomerMatch): boolean =>
  inScope(request.platform, request.shop, match) && contactMatches(request.customer, match);

/**
 * The adjustment kept without them. The request kept for a resend names the customer too: it goes, and with it the
 * resend (adjustments.ts reads an adjustment without one as not to be sent again).
 */
export function erasedAdjustment(adjustment: Adjustment & { request?: unknown }, match: CustomerMatch): Adjustment {
  const { request: _request, ...kept } = adjustment;
  return { ...kept, customer: {}, reason: scrubText(adjustment.reason, match) };
}
