// The pools' firsts an account's codes were reserved under (issue 64, review I2). A pool's members reserve under its
// first account's holders (AccountPool); when the pool changes (its first account given a key of its own), the codes a
// member reserved under the former first's holders still hold points at the service the member calls, and a member that
// counted only its pool's accounts would make a second code of them. So each account keeps the list of the firsts it
// ever reserved under, written before its first reservation there, and the holders of every member's list count.
import type { RecordRole } from '../store/ledger-store.ts';
import { z } from 'zod';
import { recordType } from '../store/roles/record-types.ts';

/** An account's record (by its id): the other accounts whose holders its reservations went under. Names no person. */
interface PoolFirsts {
  firsts: string[];
}

export const POOL_FIRSTS_KIND = recordType<PoolFirsts>('pool-firsts', z.looseObject({ firsts: z.array(z.string()) }));

export class PoolFirstsKept {
  readonly #store: Pick<RecordRole, 'changeRecord'>;
  /** Pairs known written, in this process: a reservation's path writes nothing more after its first. */
  readonly #written = new Set<string>();

  constructor(store: Pick<RecordRole, 'changeRecord'>) {
    this.#store = store;
  }

  /** That `account` reserves under `first`'s holders, kept before it does (nothing where it is its own first). */
  async note(account: string, first: string): Promise<void> {
    const pair = `${account}\n${first}`;
    if (account === first || this.#written.has(pair)) return;
    await this.#store.changeRecord(POOL_FIRSTS_KIND, account, (current) =>
      current?.firsts.includes(first) ? undefined : { put: { firsts: [...(current?.firsts ?? []), first] } },
    );
    this.#written.add(pair);
  }
}

/** Every first any of `members` reserved under (their records), beside the pool's own. */
export async function formerFirsts(
  store: Pick<RecordRole, 'getRecord'>,
  members: readonly string[],
): Promise<string[]> {
  const kept = await Promise.all(members.map((member) => store.getRecord(POOL_FIRSTS_KIND, member)));
  return [...new Set(kept.flatMap((each) => each?.firsts ?? []))];
}
