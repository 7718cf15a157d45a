// How a customer earns on the shop's account, in words, with the points the account declares for each
// activity (activity-points.ts): one line per spend band, or one for any order. An activity whose points are
// not declared is left out: the store never shows a number the bridge does not know.
//
// Each line also says, for a machine, which order totals it is for (`from`, and `below` where the next band
// starts), so the theme's "Earn N points" block can find N for a price or a cart total without reading the
// words. `from` counts MIN_ORDER_TOTAL too: an order below it earns nothing, whatever its band.
import type { AccountRuntime } from '../accounts.ts';
import { compareDecimal } from '../decimal.ts';
import { sortBands } from '../spend-bands.ts';

export interface WayToEarn {
  words: string;
  points: number;
  /** The lowest order total (decimal text, the shop's currency) these points are for, inclusive. */
  from: string;
  /** Where the next spend band starts (exclusive): a larger order earns that band's points instead. */
  below?: string;
}

const higher = (a: string, b: string) => (compareDecimal(a, b) >= 0 ? a : b);

export function waysToEarn(account: Pick<AccountRuntime, 'policy' | 'earnActivityId' | 'activityPoints'>): WayToEarn[] {
  const declared = account.activityPoints ?? {};
  const pointsOf = (activityId: string) => (Object.hasOwn(declared, activityId) ? declared[activityId] : undefined);
  const { earnBands, minimumTotal } = account.policy;
  const least = Number(minimumTotal) > 0 ? minimumTotal : '0';
  const ways: WayToEarn[] = [];
  if (earnBands.length === 0) {
    const points = pointsOf(account.earnActivityId);
    const above = Number(minimumTotal) > 0 ? ` of ${minimumTotal} or more` : '';
    if (points !== undefined && points > 0) ways.push({ words: `Place an order${above}`, points, from: least });
    return ways;
  }
  const bands = sortBands(earnBands);
  bands.forEach((band, index) => {
    const points = pointsOf(band.activityId);
    const next = bands[index + 1]?.from;
    if (points !== undefined && points > 0)
      ways.push({
        words: `Spend ${band.from} or more on an order`,
        points,
        from: higher(band.from, least),
        ...(next !== undefined ? { below: next } : {}),
      });
  });
  return ways;
}
