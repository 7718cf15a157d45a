// loyalty-bridge dead-letters list | retry <id> | retry --all | discard <id>
import type { Config } from '../config.ts';
import type { DeadLetter } from '../core/store/ledger-store.ts';
import type { Logger } from '../logger.ts';
import { letterCallWords } from '../core/order-words.ts';
import { letterOrderName } from '../core/letter-names.ts';
import { fail, out, UsageError, withReadOnlyStore, type Remote } from './common.ts';

export async function deadLetters(
  config: Config,
  logger: Logger,
  remote: Remote | undefined,
  positionals: string[],
  all: boolean,
): Promise<number> {
  const [action, id] = positionals;
  if (action === 'list') {
    // Each with its order's name as the store shows it (#1001), where the bridge or the ledger knows it.
    const letters: Array<DeadLetter & { orderName?: string | null }> = remote
      ? (await remote.get<{ deadLetters: Array<DeadLetter & { orderName?: string | null }> }>('dead-letters')).body
          .deadLetters
      : await withReadOnlyStore(config, logger, async (store) =>
          Promise.all(
            (await store.listDeadLetters()).map(async (letter) => ({
              ...letter,
              orderName: (await letterOrderName(store, letter)) ?? null,
            })),
          ),
        );
    if (letters.length === 0) out('no dead letters');
    for (const letter of letters) {
      const order =
        letter.orderKey && (letter.orderName ? `order ${letter.orderName} (${letter.orderKey})` : letter.orderKey);
      const what =
        letter.kind === 'call'
          ? `${letterCallWords(letter) ?? 'a call'} for ${order || `adjustment ${letter.adjustmentId}`}`
          : `${letter.platform} ${letter.topic} delivery`;
      out(`${letter.id}  ${letter.createdAt}  ${what}\n    ${letter.reason}`);
    }
    return 0;
  }
  if (action !== 'retry' && action !== 'discard')
    throw new UsageError('dead-letters takes list, retry <id>|--all, or discard <id>');
  if (!id && !(action === 'retry' && all))
    throw new UsageError(`dead-letters ${action} needs a dead letter id${action === 'retry' ? ' or --all' : ''}`);
  if (!remote)
    return fail(`dead-letters ${action}: give --url of the running bridge (retrying needs its worker and adapters)`);
  if (action === 'discard') {
    const { status } = await remote.delete(`dead-letters/${encodeURIComponent(id ?? '')}`);
    if (status === 404) return fail(`no dead letter ${id}`);
    out(`discarded ${id}`);
    return 0;
  }
  if (all) {
    const { body } = await remote.post<{ results: Array<{ id: string; retried: boolean; reason?: string }> }>(
      'dead-letters/retry-all',
    );
    for (const result of body.results)
      out(`${result.id}  ${result.retried ? 'retried' : `still failing: ${result.reason}`}`);
    return body.results.every((result) => result.retried) ? 0 : 1;
  }
  const { status, body } = await remote.post<{ retried?: boolean; reason?: string; error?: string }>(
    `dead-letters/${encodeURIComponent(id ?? '')}/retry`,
  );
  if (status === 404) return fail(`no dead letter ${id}`);
  if (!body.retried) return fail(`still failing: ${body.reason}`);
  out(`retried ${id}`);
  return 0;
}
