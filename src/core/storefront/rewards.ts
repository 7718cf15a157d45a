// The rewards a shop offers its customers for their points ("500 points = 5.00 off"), set by its merchant in
// Set up. Kept as one record naming its platform and shop, so the shop's erasure takes it with the rest. A
// reward's id stays with it across edits: an open code names the reward it came from, and a reward turned off
// or removed has its open codes removed (code-sweeper.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  amountOffInput,
  benefitInput,
  benefitWords,
  keptBenefit,
  keptForEarlier,
  moneyInput,
  withBenefit,
  type RewardBenefit,
} from '../reward-benefit.ts';
import type { RecordRole } from '../store/ledger-store.ts';
import { recordType } from '../store/roles/record-types.ts';

export interface Reward {
  id: string;
  /** The points it costs. */
  points: number;
  /** What it gives: an amount off the order (reward-benefit.ts). */
  benefit: RewardBenefit;
  /** The smallest order subtotal it applies to, or none. */
  minimumOrder: string | null;
  /** How long a code stays usable, from when the customer redeems. */
  expiresInDays: number;
  /** Whether its code combines with product and shipping discounts (never with another order discount). */
  combines: boolean;
  on: boolean;
}

export interface ShopRewards {
  platform: string;
  shop: string;
  rewards: Reward[];
  by: string;
  at: string;
}

/** As kept: fields a reward gained after it was first kept read as their defaults (those of a new reward). */
const KIND = recordType<ShopRewards>(
  'rewards',
  z.looseObject({
    platform: z.string(),
    shop: z.string(),
    rewards: z.array(
      z.preprocess(
        withBenefit,
        z.looseObject({
          id: z.string(),
          points: z.number(),
          benefit: keptBenefit,
          minimumOrder: z.string().nullable().default(null),
          expiresInDays: z.number(),
          combines: z.boolean().default(false),
          on: z.boolean().default(true),
        }),
      ),
    ),
    by: z.string(),
    at: z.string(),
  }),
);
const idOf = (platform: string, shop: string) => `${platform}:${shop}`;
export const MAX_REWARDS = 20;

const rewardInput = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, { error: 'must be the id the bridge gave the reward' })
    .optional(),
  points: z
    .number({ error: 'must be a whole number of points' })
    .int({ error: 'must be a whole number of points' })
    .min(1, { error: 'must be at least 1 point' })
    .max(10_000_000, { error: 'must be at most 10,000,000 points' }),
  benefit: benefitInput.optional(),
  /** The amount off alone, as the merchant's page and API clients sent it before benefits had kinds. */
  amountOff: amountOffInput.optional(),
  minimumOrder: moneyInput('the smallest order').nullable().default(null),
  expiresInDays: z
    .number({ error: 'must be a whole number of days' })
    .int({ error: 'must be a whole number of days' })
    .min(1, { error: 'must be at least 1 day' })
    .max(365, { error: 'must be at most 365 days' }),
  combines: z.boolean({ error: 'must be true or false' }).default(false),
  on: z.boolean({ error: 'must be true or false' }).default(true),
});

/** What the reward gives: its benefit, or its amountOff, or both when they say the same (as the rewards' list does). */
const agree = ({ benefit, amountOff }: { benefit?: RewardBenefit | undefined; amountOff?: string | undefined }) =>
  benefit === undefined
    ? amountOff !== undefined
    : amountOff === undefined || (benefit.kind === 'amount_off' && benefit.amount === amountOff);

/** One of benefit and amountOff, read as the benefit. */
const rewardWithBenefit = rewardInput
  .refine(agree, {
    error: 'give what the reward gives: benefit (or amountOff, the same amount)',
    path: ['benefit'],
  })
  .transform(({ amountOff, benefit, ...reward }) => ({
    ...reward,
    benefit: benefit ?? ({ kind: 'amount_off', amount: amountOff! } satisfies RewardBenefit),
  }));

const rewardsInput = z.strictObject({
  rewards: z.array(rewardWithBenefit).max(MAX_REWARDS, { error: `at most ${MAX_REWARDS} rewards` }),
});

/** The merchant's rewards as sent, or one line per bad key ("rewards.0.points: must be at least 1 point"). */
export function parseRewards(body: unknown): { ok: true; rewards: Reward[] } | { ok: false; errors: string[] } {
  const parsed = rewardsInput.safeParse(body);
  if (!parsed.success)
    return {
      ok: false,
      errors: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`),
    };
  const rewards = parsed.data.rewards.map(({ id, ...reward }) => ({ id: id ?? randomUUID(), ...reward }));
  const ids = new Set(rewards.map((reward) => reward.id));
  if (ids.size !== rewards.length) return { ok: false, errors: ['rewards: two rewards have the same id'] };
  return { ok: true, rewards };
}

/** A reward as this release knows it: the amountOff kept beside its benefit is for earlier releases (keptForEarlier). */
const known = ({ amountOff: _kept, ...reward }: Reward & { amountOff?: unknown }): Reward => reward;

export async function shopRewards(
  store: Pick<RecordRole, 'getRecord'>,
  platform: string,
  shop: string,
): Promise<Reward[]> {
  return ((await store.getRecord(KIND, idOf(platform, shop)))?.rewards ?? []).map(known);
}

export async function saveRewards(
  store: Pick<RecordRole, 'putRecord'>,
  platform: string,
  shop: string,
  rewards: Reward[],
  by: string,
  now = new Date(),
): Promise<void> {
  await store.putRecord(KIND, idOf(platform, shop), {
    platform,
    shop,
    rewards: rewards.map((reward) => ({ ...reward, ...keptForEarlier(reward.benefit) })),
    by,
    at: now.toISOString(),
  });
}

/** "500 points for 5.00 off", "…, on orders of 50.00 or more": what a customer and a merchant read. */
export function rewardWords(reward: Pick<Reward, 'points' | 'benefit' | 'minimumOrder'>): string {
  const points = reward.points.toLocaleString('en-US');
  const minimum = reward.minimumOrder ? ` on orders of ${reward.minimumOrder} or more` : '';
  return `${points} points for ${benefitWords(reward.benefit)}${minimum}`;
}
