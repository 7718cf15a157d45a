// How a customer earns on the shop's account, in words, with the points the account declares for each
// activity (activity-points.ts): one line per spend band, or one for any order. An activity whose points are
// not declared is left out: the store never shows a number the bridge does not know.
import type { AccountRuntime } from '../accounts.ts';
import { sortBands } from '../spend-bands.ts';

export interface WayToEarn {
  words: string;
  points: number;
}

export function waysToEarn(account: Pick<AccountRuntime, 'policy' | 'earnActivityId' | 'activityPoints'>): WayToEarn[] {
  const declared = account.activityPoints ?? {};
  const pointsOf = (activityId: string) => (Object.hasOwn(declared, activityId) ? declared[activityId] : undefined);
  const { earnBands, minimumTotal } = account.policy;
  const ways: WayToEarn[] = [];
  if (earnBands.length === 0) {
    const points = pointsOf(account.earnActivityId);
    const above = Number(minimumTotal) > 0 ? ` of ${minimumTotal} or more` : '';
    if (points !== undefined && points > 0) ways.push({ words: `Place an order${above}`, points });
    return ways;
  }
  for (const band of sortBands(earnBands)) {
    const points = pointsOf(band.activityId);
    if (points !== undefined && points > 0) ways.push({ words: `Spend ${band.from} or more on an order`, points });
  }
  return ways;
}
