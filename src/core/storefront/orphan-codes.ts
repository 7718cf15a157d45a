// Codes made in a store whose reservation is gone (issue 64): a make that landed after the sweeper let its points go
// (a make slower than the repair, or one that timed out and landed later). The code must go too, or it pays with no
// points behind it. Its removal is tried at once; where the store cannot be reached, the code is kept here and the
// sweeper removes it on a later pass (CodeSweeper), so that a failed removal is never forgotten. Erased with its
// shop (it names the platform and the shop); it names no customer.
import type { Logger } from '../../logger.ts';
import type { StoreCodes } from '../capabilities/codes.ts';
import type { RecordRole } from '../store/ledger-store.ts';
import { z } from 'zod';
import { recordType } from '../store/roles/record-types.ts';

export interface OrphanCode {
  platform: string;
  shop: string;
  /** The store's id of the code, as its make answered or a look found it. */
  platformId: string;
  /** When the code stops paying in the store; absent in records kept before it was (payingUntil). */
  expiresAt?: string | undefined;
  at: string;
}

export const ORPHAN_KIND = recordType<OrphanCode>(
  'reward-orphan',
  z.looseObject({
    platform: z.string(),
    shop: z.string(),
    platformId: z.string(),
    expiresAt: z.string().optional(),
    at: z.string(),
  }),
);

/** Records kept before expiresAt was: a code lasts at most this long (rewards.ts, expiresInDays). */
const LONGEST_CODE_MS = 365 * 86_400_000;
const payingUntil = (orphan: Partial<OrphanCode>) =>
  Date.parse(orphan.expiresAt ?? '') || Date.parse(orphan.at ?? '') + LONGEST_CODE_MS;

type Codes = StoreCodes;

export interface OrphanParts {
  store: Pick<RecordRole, 'addRecord'>;
  codesOf: (platform: string) => Pick<Codes, 'remove'> | undefined;
  logger: Logger;
}

/** Removed from the store now, or kept for the sweeper where the store could not be reached. */
export async function removeOrphan({ store, codesOf, logger }: OrphanParts, orphan: OrphanCode): Promise<void> {
  try {
    await codesOf(orphan.platform)?.remove(orphan.shop, orphan.platformId);
    return;
  } catch {
    // Kept below, for the sweeper.
  }
  const { platform, shop } = orphan;
  await store
    .addRecord(ORPHAN_KIND, `${platform}:${shop}:${orphan.platformId}`, orphan)
    .then(() => logger.warn({ platform, shop }, 'a reward code could not be removed now; the sweeper removes it'))
    .catch((error: unknown) =>
      logger.error(
        { platform, shop, kind: (error as Error)?.name },
        'a reward code whose points were let go could not be removed nor kept for removal; remove it in the store',
      ),
    );
}

/**
 * The sweeper's pass over kept codes: each removed, or left for the next pass; answers how many failed. A store that
 * no longer lets the bridge in (a revoked key, an uninstall) cannot be asked now, but may let it in again with the
 * code still paying (a key mended, a reinstall): the record goes only once the code has expired. An uninstalled
 * shop's (not `served`) refusal is no failure: nothing can be done until it lets the bridge in again.
 */
export async function removeKeptOrphans(
  store: Pick<RecordRole, 'listRecords' | 'deleteRecord'>,
  codesOf: (platform: string) => Pick<Codes, 'remove'> | undefined,
  served: (platform: string, shop: string) => Promise<boolean>,
  now: number,
): Promise<number> {
  let failed = 0;
  for (const { id, value } of await store.listRecords(ORPHAN_KIND)) {
    try {
      const codes = codesOf(value.platform);
      const removed = codes?.remove(value.shop, value.platformId).then(() => 'removed' as const);
      const answer = await ifAccessGone(removed ?? Promise.resolve('removed' as const), 'refused' as const).catch(
        async (error: unknown) => {
          if (await served(value.platform, value.shop)) throw error;
          return 'refused' as const;
        },
      );
      if (answer === 'refused' && now <= payingUntil(value)) {
        if (await served(value.platform, value.shop)) failed += 1;
        continue;
      }
      await store.deleteRecord(ORPHAN_KIND, id);
    } catch {
      failed += 1;
    }
  }
  return failed;
}

/**
 * What a platform call answers, or `gone` where its error says the store no longer lets the bridge in
 * (StoreCodes.uses); any other error is thrown on.
 */
export function ifAccessGone<T, G>(call: Promise<T>, gone: G): Promise<T | G> {
  return call.catch((error: unknown) => {
    const said = typeof error === 'object' && error !== null && (error as { accessGone?: unknown }).accessGone;
    if (said === true) return gone;
    throw error;
  });
}
