// The operator's manual adjustments: points given (earn) or taken (redeem) by the operator, each with who asked and
// why, and the list of them.
import type { EarnRequest, RedeemRequest } from '../../core/adjustments.ts';
import type { Adjustment } from '../../core/store/ledger-store.ts';
import { DEFAULT_ACCOUNT } from '../../core/accounts.ts';
import { earnByPoints } from '../../core/order-points-view.ts';
import { BadInput } from '../refused.ts';
import { adjusted, type Adjusted } from './adjusted.ts';
import { Declined } from './declined.ts';
import type { OperatorParts } from './parts.ts';

/** Points to give, or (as callers from before points did) the activity that gives them. */
export type EarnAsked = Omit<EarnRequest, 'activityId'> & {
  points?: number | undefined;
  activityId?: string | undefined;
  account?: string | undefined;
};

export interface OperatorAdjustments {
  adjustments(): Promise<{ adjustments: Adjustment[] }>;
  /** Points given by hand: the activity that gives exactly that many, on a known account. */
  earn(asked: EarnAsked, by: string): Promise<Adjusted>;
  redeem(asked: RedeemRequest, by: string): Promise<Adjusted>;
}

export const operatorAdjustments = ({ engine }: OperatorParts): OperatorAdjustments => {
  // An adjustment names its account: one no bridge knows is refused, never sent (it would be a dead letter in doubt).
  const knownAccount = async (account: string | undefined) => {
    if (account !== undefined && !(await engine.accounts.runtime(account)))
      throw new Declined(404, `no account ${account}`);
  };
  return {
    adjustments: async () => ({ adjustments: await engine.adjustments.list() }),
    earn: async (asked: EarnAsked, by: string) => {
      await knownAccount(asked.account);
      const picked = await earnByPoints(asked, engine.accounts, asked.account ?? DEFAULT_ACCOUNT, 'operator');
      if (!picked.ok) throw new BadInput('points', picked.why);
      return adjusted(await engine.adjustments.earn(picked.request, by));
    },
    redeem: async (asked: RedeemRequest, by: string) => {
      await knownAccount(asked.account);
      return adjusted(await engine.adjustments.redeem(asked, by));
    },
  };
};
