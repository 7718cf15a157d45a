// The admin API's last two handlers: 404 for any path it has no route for, and every error as a status and its
// JSON (a 400 names the field; a refusal its reasons; the loyalty service's own words, never our credentials).
import type { NextFunction, Request, Response, Router } from 'express';
import { LoyaltyError } from '../loyalty/errors.ts';
import type { Logger } from '../logger.ts';
import { Declined } from '../services/operator.ts';
import { Refused } from '../services/refused.ts';
import { refuse } from './admin-accounts.ts';
import { BadInput, type AdminApiParts } from './admin-parts.ts';

export function adminErrorHandlers(router: Router, { logger }: AdminApiParts): void {
  router.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  router.use(answerError(logger));
}

/** A refusal the operator's service threw, answered as these routes always answered it; false for any other error. */
export function answerRefusal(error: unknown, res: Response): boolean {
  if (error instanceof BadInput) res.status(400).json({ error: error.message, field: error.field });
  else if (error instanceof Refused) refuse(res.set(error.headers), error.status, [...error.reasons]);
  else if (error instanceof Declined) res.status(error.status).json({ error: error.message });
  else return false;
  return true;
}

const answerError =
  (logger: Logger) =>
  (error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (answerRefusal(error, res)) return;
    if (error.type === 'entity.parse.failed')
      return void res.status(400).json({ error: 'body: is not valid JSON', field: 'body' });
    if (error.type === 'entity.too.large') return void res.status(413).json({ error: 'the body is too large' });
    if (error instanceof LoyaltyError) {
      // The service's own words, never our credentials. Refused: 422 (the request was fine, the service said no); unreachable: 502.
      return void res.status(error.retryable ? 502 : 422).json({
        error: error.message,
        service: { httpStatus: error.httpStatus, message: error.serviceMessage, detail: error.detail },
      });
    }
    if (error.status && error.status >= 400 && error.status < 500)
      return void res.status(error.status).json({ error: 'the request could not be read' });
    logger.error({ err: error }, 'admin API error');
    res.status(500).json({ error: 'internal error' });
  };
