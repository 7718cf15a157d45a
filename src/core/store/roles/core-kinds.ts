// The schemas of the record kinds the store's own roles name (records.ts): a shop's install state, a
// reconciliation's high-water mark, and a manual adjustment.
import { z } from 'zod';
import { recordType } from './record-types.ts';
import type { Adjustment, ReconciliationState, ShopState } from './records.ts';

const maybe = <T extends z.ZodType>(schema: T) => schema.optional();

export const SHOP_KIND = recordType<ShopState>(
  'shop',
  z.looseObject({
    platform: z.string(),
    shop: z.string(),
    uninstalledAt: z.string().nullable(),
    installedAt: maybe(z.string().nullable()),
  }),
);

const lastRun = z.looseObject({
  startedAt: z.string(),
  finishedAt: z.string(),
  since: z.string(),
  until: z.string(),
  fetched: z.number(),
  changed: z.number(),
  unchanged: z.number(),
  failed: z.number(),
  errors: z.array(z.string()),
});

/** Kept by platform and shop: the shop it reads is named in it, so that the shop's erasure takes it. */
export const RECONCILIATION_KIND = recordType<
  ReconciliationState & { platform?: string | undefined; shop?: string | undefined }
>(
  'reconciliation',
  z.looseObject({
    highWaterMark: z.string().nullable(),
    lastRun: lastRun.nullable(),
    platform: maybe(z.string()),
    shop: maybe(z.string()),
  }),
);

/** An adjustment's fields, for a kind that keeps more beside them (adjustments.ts keeps the request sent). */
export const adjustmentFields = {
  id: z.string(),
  at: z.string(),
  kind: z.enum(['earn', 'redeem']),
  by: z.string(),
  reason: z.string(),
  customer: z.looseObject({ email: maybe(z.string()), mobile: maybe(z.string()), name: maybe(z.string()) }),
  activityId: maybe(z.string()),
  points: maybe(z.number()),
  account: maybe(z.string()),
  platform: maybe(z.string()),
  shop: maybe(z.string()),
  outcome: z.enum(['success', 'failed', 'unknown']),
  message: z.string(),
};

export const ADJUSTMENT_KIND = recordType<Adjustment>('adjustment', z.looseObject(adjustmentFields));

/**
 * A platform's access to a shop ('session', by platform:shop), as the core reads every platform's: whose it is, and
 * when it last changed. Each platform keeps more in it, and other records beside it (a connect in progress).
 */
export const ACCESS_KIND = recordType<{ platform?: unknown; shop?: unknown; updatedAt?: string | undefined }>(
  'session',
  z.looseObject({ platform: z.unknown().optional(), shop: z.unknown().optional(), updatedAt: maybe(z.string()) }),
);
