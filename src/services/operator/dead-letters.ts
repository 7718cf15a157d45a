// The operator's dead letters: what the bridge could not deliver or send, listed, retried (one or all) and
// discarded, each retry and discard logged with who asked.
import type { RetryOutcome } from '../../core/engine.ts';
import { letterCallWords } from '../../core/order-words.ts';
import type { DeadLetter } from '../../core/store/ledger-store.ts';
import { Declined } from './declined.ts';
import type { OperatorParts } from './parts.ts';

/** A dead letter as the operator is shown it: its order's name beside the key. */
export type LetterView = DeadLetter & { orderName: string | null };

export interface OperatorDeadLetters {
  deadLetters(): Promise<{ deadLetters: Array<LetterView & { callWords: ReturnType<typeof letterCallWords> }> }>;
  deadLetter(id: string): Promise<{ deadLetter: LetterView }>;
  retryAll(by: string): Promise<{ results: Array<{ id: string } & RetryOutcome> }>;
  retry(id: string, by: string): Promise<RetryOutcome>;
  discard(id: string, by: string): Promise<{ discarded: string }>;
}

export const operatorDeadLetters = ({ engine, logger, words }: OperatorParts): OperatorDeadLetters => ({
  /** Newest first, each with its order's name as the store shows it (#1001) beside the key: people know orders by it. */
  deadLetters: async () => {
    const letters = (await engine.store.listDeadLetters()).reverse();
    return {
      deadLetters: await Promise.all(
        letters.map(async (letter) => ({
          ...letter,
          orderName: (await words.letterOrderName(letter)) ?? null,
          callWords: letterCallWords(letter),
        })),
      ),
    };
  },
  deadLetter: async (id: string) => {
    const letter = await engine.store.getDeadLetter(id);
    if (!letter) throw new Declined(404, `no dead letter ${id}`);
    return { deadLetter: { ...letter, orderName: (await words.letterOrderName(letter)) ?? null } };
  },
  retryAll: async (by: string) => {
    const results = [];
    for (const listed of await engine.store.listDeadLetters()) {
      // Listed letters may come without their delivery: read each whole before sending it again.
      const letter = await engine.store.getDeadLetter(listed.id);
      // A bulk retry is backfill: live orders go before it.
      if (letter) results.push({ id: letter.id, ...(await engine.retryDeadLetter(letter, 'backfill')) });
    }
    logger.info({ count: results.length, by }, 'every dead letter retried');
    return { results };
  },
  /** The engine's result as it is: `retried` false says it was not sent again, and why. */
  retry: async (id: string, by: string) => {
    const letter = await engine.store.getDeadLetter(id);
    if (!letter) throw new Declined(404, `no dead letter ${id}`);
    const result = await engine.retryDeadLetter(letter);
    logger.info({ deadLetter: letter.id, kind: letter.kind, retried: result.retried, by }, 'dead letter retried');
    return result;
  },
  discard: async (id: string, by: string) => {
    const letter = await engine.discardDeadLetter(id);
    if (!letter) throw new Declined(404, `no dead letter ${id}`);
    logger.info({ deadLetter: letter.id, kind: letter.kind, by }, 'dead letter discarded');
    return { discarded: letter.id };
  },
});
