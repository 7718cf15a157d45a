// The inbox side of the lowdb store: durable acceptance with dedupe, handing
// entries to intake, and committing what an entry became (its events folded
// into orders, a dead letter, a shop's install state) together with its
// consumption. An entry is held by one claim until it is committed, deferred, or let go
// (releaseEntry, or a commit that failed), so a failed write never strands it; only that claim lets go of it.
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import { orderKey } from '../../order-event.ts';
import { applyEvent, newOrderRecord } from '../../order-record.ts';
import { eraseOrder } from '../customer-data.ts';
import { reachedAt } from '../entry-erasure.ts';
import { withoutEntryGone, type IntakeCommit } from '../ledger-store.ts';
import type { EntryCopy } from './inbox.ts';
import type { OrderOperations } from './order-operations.ts';
import type { LowdbParts } from './parts.ts';

export class IntakeOperations {
  readonly #p: LowdbParts;
  readonly #orders: OrderOperations;

  constructor(parts: LowdbParts, orders: OrderOperations) {
    this.#p = parts;
    this.#orders = orders;
  }

  claim(limit: number, owner: string): InboxEntry[] {
    return this.#p.inbox.claim(limit, owner).map((entry) => structuredClone(entry));
  }

  async defer(owner: string, key: string, retry: EntryRetry): Promise<void> {
    try {
      await this.#p.inbox.defer(key, owner, retry);
      await this.#p.flush();
    } finally {
      // Written or not, the entry waits for its retry time (a failed write only costs an earlier retry after a restart).
      this.#p.inbox.release(key, owner);
    }
    await this.#p.inbox.mergeRetryFiles().catch(() => undefined);
  }

  releaseEntry(owner: string, key: string, retryAt: Date): void {
    this.#p.inbox.release(key, owner, retryAt.getTime());
    this.#p.notify();
  }

  /**
   * Folds in memory inside the serial queue, then waits for the disk outside
   * it: the next batch folds while this one's files are written, and the
   * group commit writes both in one round when it can. A slow disk then makes
   * batches bigger, not the queue longer.
   */
  async commit(commits: IntakeCommit[]): Promise<string[]> {
    const { inbox, active, records, deadLetters } = this.#p;
    const changed = new Set<string>();
    // The copies folded: those waiting, and held by each step's claim, when the queue reached this commit. What
    // comes after acts on them alone: a copy stored since (after its shop's erasure) is another step's.
    let copies: EntryCopy[] | undefined;
    try {
      copies = await this.#p.serial.add(async () => {
        const folding = commits.map((commit) => inbox.copyFor(commit.entryKey, commit.owner));
        const now = this.#p.now().toISOString();
        const ofInbox = commits.map((commit, index) => withoutEntryGone(commit, folding[index] !== undefined));
        // Orders not in memory are looked up in the settled index all at once, a few files read in parallel,
        // rather than one file read after another inside the queue every fold waits on.
        const notActive = [...new Set(ofInbox.flatMap((commit) => (commit.events ?? []).map(orderKey)))].filter(
          (key) => !active.get(key),
        );
        const settledIn =
          notActive.length > 0 ? await this.#p.settled.index.getMany(notActive) : new Map<string, string | undefined>();
        for (const commit of ofInbox) {
          const erasures = inbox.entry(commit.entryKey)?.erasures;
          for (const event of commit.events ?? []) {
            const key = orderKey(event);
            const record = (await this.#orders.live(key, () => newOrderRecord(event, now), {
              settled: !settledIn.has(key) || settledIn.get(key) !== undefined,
            }))!;
            applyEvent(record, event, commit.entryKey, now, commit.lane ?? 'live');
            // A customer's erasure reached the entry, perhaps after intake read it: the fold is erased before it is kept.
            const erasedAt = reachedAt(erasures, key);
            if (erasedAt) eraseOrder(record, erasedAt);
            active.put(record);
            changed.add(record.key);
          }
          if (commit.deadLetter) await deadLetters.upsert(commit.deadLetter);
          if (commit.shop) records.put('shop', `${commit.shop.platform}:${commit.shop.shop}`, commit.shop);
          for (const record of commit.records ?? []) records.put(record.kind, record.id, record.value);
        }
        return folding.filter((copy) => copy !== undefined);
      });
      await inbox.recordConsumed(copies);
      await this.#p.flush();
    } catch (error) {
      // Still in the inbox, to be taken again; what was folded in memory is folded again, which changes nothing.
      // Each step's claim lets go of its own hold alone.
      for (const { entryKey, owner } of commits) if (owner !== undefined) inbox.release(entryKey, owner);
      throw error;
    }
    // Only now that what they became is durable do the entries go.
    await inbox.drop(copies);
    if (changed.size > 0) this.#p.notify();
    return [...changed];
  }
}
