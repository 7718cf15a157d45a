// The admin API's dead letters: what the bridge could not deliver or send, listed, retried (one or all) and
// discarded, each retry and discard logged with who asked.
import type { Request, Response, Router } from 'express';
import { letterCallWords } from '../core/order-words.ts';
import { letterOrderName } from './problems.ts';
import type { AdminApiParts } from './admin-parts.ts';

export function adminDeadLetterRoutes(router: Router, parts: AdminApiParts): void {
  // Each with its order's name as the store shows it (#1001) beside the key: people know orders by it.
  router.get('/dead-letters', letterList(parts));
  router.get('/dead-letters/:id', oneLetter(parts));
  router.post('/dead-letters/retry-all', retryAll(parts));
  router.post('/dead-letters/:id/retry', retryOne(parts));
  router.delete('/dead-letters/:id', discard(parts));
}

const letterList =
  ({ engine: { store } }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    const letters = (await store.listDeadLetters()).reverse();
    res.json({
      deadLetters: await Promise.all(
        letters.map(async (letter) => ({
          ...letter,
          orderName: (await letterOrderName(store, letter)) ?? null,
          callWords: letterCallWords(letter),
        })),
      ),
    });
  };

const oneLetter =
  ({ engine: { store } }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const letter = await store.getDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    res.json({ deadLetter: { ...letter, orderName: (await letterOrderName(store, letter)) ?? null } });
  };

const retryAll =
  ({ engine, logger, tokenLabel }: AdminApiParts) =>
  async (_req: Request, res: Response) => {
    const { store } = engine;
    const results = [];
    for (const listed of await store.listDeadLetters()) {
      // Listed letters may come without their delivery: read each whole before sending it again.
      const letter = await store.getDeadLetter(listed.id);
      // A bulk retry is backfill: live orders go before it.
      if (letter) results.push({ id: letter.id, ...(await engine.retryDeadLetter(letter, 'backfill')) });
    }
    logger.info({ count: results.length, by: tokenLabel }, 'every dead letter retried');
    res.json({ results });
  };

const retryOne =
  ({ engine, logger, tokenLabel }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const letter = await engine.store.getDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    const result = await engine.retryDeadLetter(letter);
    logger.info(
      { deadLetter: letter.id, kind: letter.kind, retried: result.retried, by: tokenLabel },
      'dead letter retried',
    );
    res.status(result.retried ? 200 : 409).json(result);
  };

const discard =
  ({ engine, logger, tokenLabel }: AdminApiParts) =>
  async (req: Request, res: Response) => {
    const letter = await engine.discardDeadLetter(String(req.params.id));
    if (!letter) return void res.status(404).json({ error: `no dead letter ${req.params.id}` });
    logger.info({ deadLetter: letter.id, kind: letter.kind, by: tokenLabel }, 'dead letter discarded');
    res.json({ discarded: letter.id });
  };
