// What every group of the admin API's routes is handed (AdminApiParts), reading a request's input (read, BadInput),
// and how an adjustment is answered. No route of its own; admin-api.ts mounts the groups.
import type { Response } from 'express';
import type { Logger } from '../logger.ts';
import type { Adjusted, OperatorService } from '../services/operator.ts';
import { BadInput } from '../services/refused.ts';

export interface AdminApiParts {
  token: string | undefined;
  /** Who acts, for the service: recorded as "who asked" on manual adjustments and changes to accounts. */
  tokenLabel: string;
  /** The operator's actions (services/operator.ts): each route calls one. */
  operator: OperatorService;
  logger: Logger;
}

export { BadInput };
export { read } from '../services/operator.ts';

/** An adjustment's answer: 201 when the service took it; 422 when it refused, 502 when it could not be reached. */
export function answerAdjusted(res: Response, adjusted: Adjusted) {
  if (adjusted.taken) return void res.status(201).json({ adjustment: adjusted.adjustment });
  const { adjustment, deadLetter } = adjusted;
  res
    .status(adjusted.refused ? 422 : 502)
    .json({ error: adjustment.message, adjustment, ...(deadLetter ? { deadLetter } : {}) });
}
