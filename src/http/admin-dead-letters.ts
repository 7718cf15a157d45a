// The admin API's dead letters: what the bridge could not deliver or send, listed, retried (one or all) and
// discarded, each retry and discard logged with who asked.
import type { Router } from 'express';
import type { AdminApiParts } from './admin-parts.ts';

export function adminDeadLetterRoutes(router: Router, { operator: { deadLetters }, tokenLabel }: AdminApiParts): void {
  // Each with its order's name as the store shows it (#1001) beside the key: people know orders by it.
  router.get('/dead-letters', async (_req, res) => {
    res.json(await deadLetters.deadLetters());
  });
  router.get('/dead-letters/:id', async (req, res) => {
    res.json(await deadLetters.deadLetter(String(req.params.id)));
  });
  router.post('/dead-letters/retry-all', async (_req, res) => {
    res.json(await deadLetters.retryAll(tokenLabel));
  });
  router.post('/dead-letters/:id/retry', async (req, res) => {
    const result = await deadLetters.retry(String(req.params.id), tokenLabel);
    res.status(result.retried ? 200 : 409).json(result);
  });
  router.delete('/dead-letters/:id', async (req, res) => {
    res.json(await deadLetters.discard(String(req.params.id), tokenLabel));
  });
}
