// What a reward gives the customer: its benefit, one kind of which each platform's code maker knows how to make.
// A union, so that a new kind is added here, in each code maker (whose switch on `kind` then fails to compile until
// it handles it) and in the words; the merchant's settings, the reservations and the widgets carry it whole.
import { z } from 'zod';

/** An amount off the order, in the shop's currency, as decimal text ("5.00"). */
export interface AmountOff {
  kind: 'amount_off';
  amount: string;
}

/** A share off the order, in whole percent (1 to 100). */
export interface PercentOff {
  kind: 'percent_off';
  percent: number;
}

/** The order's shipping, free. */
export interface FreeShipping {
  kind: 'free_shipping';
}

export type RewardBenefit = AmountOff | PercentOff | FreeShipping;
export type BenefitKind = RewardBenefit['kind'];

/** Every kind, in the order the merchant's page offers them. */
export const BENEFIT_KINDS = ['amount_off', 'percent_off', 'free_shipping'] as const satisfies readonly BenefitKind[];

/** A sum of money as the merchant types it, kept and shown with two decimals ("5" is "5.00"). */
export const moneyInput = (what: string) =>
  z
    .string({ error: `must be an amount like 5.00` })
    .trim()
    .regex(/^\d{1,7}(\.\d{1,2})?$/, { error: `must be an amount like 5.00 (${what})`, abort: true })
    .transform((value) => {
      const [whole, cents = ''] = value.split('.');
      return `${String(Number(whole))}.${cents.padEnd(2, '0')}`;
    });

/** An amount off as the merchant sets it: more than nothing. */
export const amountOffInput = moneyInput('the amount off').refine((value) => Number(value) > 0, {
  error: 'must be more than 0',
});

/** A percentage off as the merchant sets it: a whole number from 1 to 100. */
const percentInput = z
  .number({ error: 'must be a whole number from 1 to 100' })
  .int({ error: 'must be a whole number from 1 to 100' })
  .min(1, { error: 'must be a whole number from 1 to 100' })
  .max(100, { error: 'must be a whole number from 1 to 100' });

/** A benefit as the merchant's settings send it. */
export const benefitInput: z.ZodType<RewardBenefit> = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('amount_off'), amount: amountOffInput }),
    z.strictObject({ kind: z.literal('percent_off'), percent: percentInput }),
    z.strictObject({ kind: z.literal('free_shipping') }),
  ],
  { error: `must be a kind of reward the bridge makes: ${BENEFIT_KINDS.join(', ')}` },
);

/** A benefit as kept: fields a later release adds are kept (record-types.ts). */
export const keptBenefit: z.ZodType<RewardBenefit> = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('amount_off'), amount: z.string() }),
  z.looseObject({ kind: z.literal('percent_off'), percent: z.number() }),
  z.looseObject({ kind: z.literal('free_shipping') }),
]);

/**
 * A record kept before benefits had kinds names its amount off alone (amountOff): read as the benefit it was.
 * For z.preprocess, ahead of a schema that wants `benefit`. amountOff stays on the record (keptForEarlier).
 */
export function withBenefit(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'benefit' in value) return value;
  const { amountOff } = value as { amountOff?: unknown };
  if (typeof amountOff !== 'string') return value;
  return { ...value, benefit: { kind: 'amount_off', amount: amountOff } };
}

/**
 * What a record of a reward, a reservation or an erased code keeps beside its benefit for the release before
 * benefits had kinds, which reads amountOff alone: the two may run side by side on one ledger of the same format
 * (docs/upgrading.md). Records keep it through this release's changes (schemas keep fields they do not name).
 */
export const keptForEarlier = (benefit: RewardBenefit): { amountOff?: string } => amountOffField(benefit);

/** "5.00 off", "10% off", "free shipping": the benefit in the words a customer and a merchant read. */
export function benefitWords(benefit: RewardBenefit): string {
  switch (benefit.kind) {
    case 'amount_off':
      return `${benefit.amount} off`;
    case 'percent_off':
      return `${benefit.percent}% off`;
    case 'free_shipping':
      return 'free shipping';
  }
}

/**
 * The amount off, beside the benefit, in what the storefront answers: widgets and plugins installed before benefits
 * had kinds read `amountOff`, and a store updates its theme and plugin when its merchant chooses to.
 */
export function amountOffField(benefit: RewardBenefit): { amountOff?: string } {
  return benefit.kind === 'amount_off' ? { amountOff: benefit.amount } : {};
}
