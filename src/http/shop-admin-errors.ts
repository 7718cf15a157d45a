// How a shop's admin API (shop-admin-api.ts) ends a request no route of it took: a path that is the
// operator's (403), and an error thrown on the way, as the status and words the page shows.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.ts';
import { LoyaltyError } from '../loyalty/errors.ts';
import { refuse } from './admin-accounts.ts';
import { BadInput, Refused } from '../services/refused.ts';

/** Nothing of the bridge as a whole: that stays with the operator's ADMIN_TOKEN. */
export function operatorsOnly(_req: Request, res: Response): void {
  res.status(403).json({
    error: "a shop's sign-in shows that shop's orders; the rest is for the bridge's operator (ADMIN_TOKEN)",
  });
}

/** The error handler (Express knows one by its four parameters). */
export const shopApiError =
  (logger: Logger) =>
  (error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof BadInput) return void res.status(400).json({ error: error.message, field: error.field });
    // The service's refusal, as refuse() words one.
    if (error instanceof Refused)
      return void res
        .status(error.status)
        .set(error.headers)
        .json({ error: error.reasons.join('; '), errors: error.reasons });
    // An address Express could not read (an id that is not valid percent-encoding): the request's fault.
    if (error instanceof URIError || (error.status === 400 && !error.type))
      return refuse(res, 400, ['the address is not valid: an id holds a broken %-escape']);
    if (error.type === 'entity.parse.failed') return refuse(res, 400, ['body: is not valid JSON']);
    if (error.type === 'entity.too.large') return void res.status(413).json({ error: 'the body is too large' });
    // The service's answer, in its own words (never the account's key): refused 422, unreachable 502.
    if (error instanceof LoyaltyError)
      return void res.status(error.retryable ? 502 : 422).json({ error: error.message });
    logger.error({ err: error }, 'admin API error (shop)');
    res.status(500).json({ error: 'internal error' });
  };
