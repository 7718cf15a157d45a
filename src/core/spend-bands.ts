// Points by spend. The loyalty service's earn carries no amount: the
// activity decides the points. So bands of order total map to activities,
// one activity per band, set up to match in the service's panel.
import { compareDecimal } from './decimal.ts';

export interface SpendBand {
  /** The band starts at this total (decimal text, the shop's currency), inclusive. */
  from: string;
  activityId: string;
}

/** Bands sorted by where they start, lowest first. */
export const sortBands = (bands: readonly SpendBand[]): SpendBand[] =>
  [...bands].sort((a, b) => compareDecimal(a.from, b.from));

/**
 * The activity for an order of this total: the highest band it reaches, or
 * the single activity when there are no bands. undefined: below every band.
 */
export function activityForTotal(total: string, bands: readonly SpendBand[], single: string): string | undefined {
  if (bands.length === 0) return single;
  let chosen: string | undefined;
  for (const band of sortBands(bands)) if (compareDecimal(total, band.from) >= 0) chosen = band.activityId;
  return chosen;
}

/** Where the lowest band starts: orders below it earn nothing. */
export const lowestBand = (bands: readonly SpendBand[]): string | undefined => sortBands(bands)[0]?.from;
