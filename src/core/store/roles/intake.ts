// The intake role: the acknowledgement path (accept, dedupe) and what happens after the answer (claim, commit, defer).
import type { EntryRetry, InboxEntry } from '../../delivery.ts';
import type { Lane } from '../../lanes.ts';
import type { OrderEvent } from '../../order-event.ts';
import type { ClaimRenewal } from './claims.ts';
import type { NewDeadLetter } from './dead-letters.ts';
import type { RecordKind, ShopState } from './records.ts';

/** One step of intake: an inbox entry consumed, and what came of it, committed together. */
export interface IntakeCommit {
  entryKey: string;
  /**
   * The token of the claim the step holds its entry under: the entry is consumed only while that claim holds it,
   * or nobody does (a copy stored again after its shop's erasure may be another claim's). Without one (a
   * ledger moved in), whatever copy waits is consumed.
   */
  owner?: string | undefined;
  /** Order events to fold into their orders. */
  events?: OrderEvent[];
  /** The lane of the work the events make (absent: live). */
  lane?: Lane | undefined;
  /** The delivery could not be used: kept with its reason (an upsert by id, so a repeat makes no second one). */
  deadLetter?: NewDeadLetter;
  /** The shop's install state changes with this delivery. */
  shop?: ShopState;
  /** Records kept in the same step (a destructive body acted on: kept with the act, never apart from it). */
  records?: Array<{ kind: RecordKind; id: string; value: unknown }>;
}

/**
 * What of an intake step still applies once its entry is no longer in the
 * inbox: taken by its shop's erasure while intake read it, or consumed by
 * another instance that took it over. Its events, dead letter and install
 * state would bring back what the erasure took (or repeat what the other
 * instance did); its records, the act of a destructive body, are kept, so
 * that the body sent again does not act twice.
 */
export function withoutEntryGone(commit: IntakeCommit, inInbox: boolean): IntakeCommit {
  if (inInbox) return commit;
  return { entryKey: commit.entryKey, ...(commit.records ? { records: commit.records } : {}) };
}

export interface IntakeRole extends ClaimRenewal {
  /**
   * Durably accepts a delivery. 'duplicate' when any of its keys was accepted
   * within the dedupe window, and only once that first copy is durable.
   */
  accept(entry: InboxEntry): Promise<'accepted' | 'duplicate'>;
  hasSeen(key: string): Promise<boolean>;
  pruneSeen(before: Date): Promise<void>;
  /** Inbox entries due for translation, leased to `owner` so that no other instance takes them meanwhile. */
  claimInbox(owner: string, limit: number, leaseMs: number): Promise<InboxEntry[]>;
  /** Consumes inbox entries, folds their events, keeps dead letters and install states, in one step. Returns the orders that changed. */
  commitIntake(commits: IntakeCommit[]): Promise<string[]>;
  /**
   * An entry whose platform did not answer: tried again at retry.retryAt. Lets go of the claim, whether or not
   * the write succeeded. Only while `owner`'s claim holds the entry: another claim's hold is left alone.
   */
  deferInbox(owner: string, key: string, retry: EntryRetry): Promise<void>;
  /**
   * Lets go of an inbox entry without committing anything (its handling
   * failed): it may be taken again from retryAt. Called in intake's `finally`,
   * so that no failure strands an entry; a store that cannot be reached lets
   * the lease expire instead.
   */
  releaseEntry(owner: string, key: string, retryAt: Date): Promise<void>;
  inboxEntry(key: string): Promise<InboxEntry | undefined>;
  /** When the earliest deferred entry is due again, if the store can tell. */
  nextInboxAt(): Promise<number | undefined>;
}
