// The marks that ask for a customer's codes to be checked against their balance (cover-checks.ts), apart from the
// check itself so that what writes a mark (a cancel, the sweeper, an order's claim of a code) needs no check.
import { randomUUID } from 'node:crypto';
import type { RecordRole } from '../store/ledger-store.ts';
import { z } from 'zod';
import { recordType } from '../store/roles/record-types.ts';

/**
 * A cancel's call ends (lands, or fails for good) well within this long of its mark: the client's few tries, each at
 * most LOYALTY_TIMEOUT_MS, and its waits between them (a Retry-After is taken as 10 minutes at most). A cancel whose
 * own check never came (its bridge stopped, its store failed) keeps the mark no longer than this.
 */
export const CANCEL_LANDS_MS = 60 * 60_000;

/** A holder to check against its balance: no contact, only the ids. */
export interface CoverCheck {
  account: string;
  holder: string;
  at: string;
  /** New with each write that asks for a check: a check takes the mark away only if none came since it began. */
  id?: string | undefined;
  /**
   * Cancels on their way (each by its token, and when it was marked), and codes being given back (mark): a check made
   * before one lands may find the holder covered and is no proof, so the mark stays until that one's own check, or
   * CANCEL_LANDS_MS.
   */
  cancels?: Array<{ id: string; at: string }> | undefined;
}

export const CHECK_KIND = recordType<CoverCheck>(
  'reward-check',
  z.looseObject({
    account: z.string(),
    holder: z.string(),
    at: z.string(),
    id: z.string().optional(),
    cancels: z.array(z.looseObject({ id: z.string(), at: z.string() })).optional(),
  }),
);

/** The mark's cancels that may still be on their way at `now` (ms): marked less than CANCEL_LANDS_MS before. */
export const cancelsOnTheirWay = (mark: CoverCheck | undefined, now: number): Array<{ id: string; at: string }> =>
  (mark?.cancels ?? []).filter((each) => now - Date.parse(each.at) < CANCEL_LANDS_MS);

/**
 * Marked anew for the sweeper's check, after a change the holder's last check could not count (written after it, so
 * that a check begun before cannot take the mark); the cancels on their way stay.
 */
export async function markForCheck(
  store: Pick<RecordRole, 'changeRecord'>,
  account: string,
  holder: string,
  now: Date,
): Promise<void> {
  await store.changeRecord(CHECK_KIND, holder, (current) => ({
    put: {
      account,
      holder,
      at: now.toISOString(),
      id: randomUUID(),
      cancels: cancelsOnTheirWay(current, now.getTime()),
    },
  }));
}
