// The admin API's input, as zod reads it: the query strings and bodies of its routes, each refusal naming its field.
// Some are shared with the shop's own admin API (shop-*.ts), through admin-api.ts's re-exports.
import { z } from 'zod';
import { REASON_CODES } from '../core/order-words.ts';
import type { CustomerMatch } from '../core/store/ledger-store.ts';
import { TRANSACTION_TYPES } from '../loyalty/protocol.ts';
import { platformName } from '../core/platform-name.ts';

export const date = (name: string) =>
  z
    .string({ error: `${name} must be a date like 2026-11-01` })
    .refine((value) => !Number.isNaN(Date.parse(value)), { error: `must be a date like 2026-11-01` })
    .transform((value) => new Date(value));
const email = () =>
  z
    .string()
    .trim()
    .pipe(z.email({ error: 'must be an e-mail address' }));
/** With its country code: a number without one could be several customers' in several countries. */
const mobile = () =>
  z
    .string()
    .trim()
    .regex(/^\+[\d\s().-]{7,20}$/, { error: 'must be a phone number with its country code, like +44 20 7946 0958' });
const platform = () => platformName();
const shop = () => z.string().trim().min(1).max(255);

export const orderQuery = z.strictObject({
  platform: platform().optional(),
  shop: shop().optional(),
  state: z
    .enum(['new', 'earned', 'approved', 'cancelled', 'void', 'skipped'], {
      error: 'must be new, earned, approved, cancelled, void or skipped',
    })
    .optional(),
  reason: z.enum(REASON_CODES, { error: `must be one of ${REASON_CODES.join(', ')}` }).optional(),
  since: date('since').optional(),
  until: date('until').optional(),
  q: z.string().max(200).optional(),
  page: z.coerce.number({ error: 'must be a page number' }).int().min(1, { error: 'must be 1 or more' }).default(1),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int()
    .min(1)
    .max(200, { error: 'must be at most 200' })
    .default(50),
});

export const resyncBody = z.union(
  [
    z.strictObject({
      platform: z.string().min(1, { error: 'is required' }),
      shop: shop().optional(),
      since: date('since'),
      until: date('until').optional(),
    }),
    z.strictObject({
      platform: z.string().min(1, { error: 'is required' }),
      shop: shop().optional(),
      orderIds: z
        .array(z.string().regex(/^\d{1,40}$/, { error: 'must be order ids as digits' }))
        .min(1)
        .max(500),
    }),
  ],
  { error: 'give since (and until), or orderIds' },
);

const accountId = () => z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, { error: 'must be an account id' });

export const customerQuery = z
  .strictObject({
    email: email().optional(),
    mobile: mobile().optional(),
    type: z.enum(TRANSACTION_TYPES, { error: 'must be earn, redeem, all or ledger' }).default('all'),
    /** The loyalty account whose points to read; the default account's when unset. */
    account: accountId().optional(),
  })
  .refine((query) => query.email !== undefined || query.mobile !== undefined, {
    error: 'give email or mobile',
    path: ['email'],
  });

/** Who a privacy request is about: at least an e-mail, a phone or order ids; optionally one platform and shop. */
export const customerMatch = z
  .strictObject({
    email: email().optional(),
    phone: mobile().optional(),
    platform: platform().optional(),
    shop: shop().optional(),
    /** A loyalty account: only what belongs to it (its orders, and its shops' dead letters and deliveries). */
    account: z.string().min(1).max(100).optional(),
    orderIds: z
      .union([
        z.array(z.string().regex(/^\d{1,40}$/)),
        z
          .string()
          .regex(/^\d{1,40}(,\d{1,40})*$/)
          .transform((ids) => ids.split(',')),
      ])
      .optional(),
  })
  .refine((body) => body.email !== undefined || body.phone !== undefined || (body.orderIds?.length ?? 0) > 0, {
    error: 'give email, phone or orderIds',
    path: ['email'],
  })
  .refine((body) => !body.shop || body.platform, { error: 'give the platform of the shop', path: ['platform'] });

export const toMatch = (body: z.output<typeof customerMatch>): CustomerMatch => ({
  platform: body.platform,
  shop: body.shop,
  emails: body.email ? [body.email] : [],
  phones: body.phone ? [body.phone] : [],
  orderIds: body.orderIds ?? [],
});

export const shopEraseOf = (known: readonly string[]) =>
  z.strictObject({
    platform: platformName(known),
    shop: shop(),
    confirm: z.literal(true, { error: 'must be true: everything of this shop is erased for good' }),
  });

export const earnAdjustment = z
  .strictObject({
    /** The points to give: the bridge picks the activity that gives exactly that many (earnByPoints). */
    points: z
      .number({ error: 'must be a whole number of points' })
      .int({ error: 'must be a whole number of points' })
      .positive({ error: 'must be more than 0' })
      .optional(),
    /** Callers from before points: the activity itself. */
    activityId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be an activity id' })
      .optional(),
    name: z.string().trim().min(1, { error: 'is required' }).max(200),
    email: email(),
    mobile: mobile(),
    description: z.string().max(500).optional(),
    reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500),
    /** The loyalty account to earn on; the default account's when unset. */
    account: accountId().optional(),
  })
  .refine((body) => (body.points === undefined) !== (body.activityId === undefined), {
    error: 'give the points to give (or, as before, an activityId), not both',
    path: ['points'],
  });

export const giveBackBody = z.strictObject({
  activityId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be an activity id' })
    .optional(),
  reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500).optional(),
});

export const redeemAdjustment = z
  .strictObject({
    email: email().optional(),
    mobile: mobile().optional(),
    points: z
      .number({ error: 'must be a whole number of points' })
      .int({ error: 'must be a whole number of points' })
      .positive({ error: 'must be more than 0' }),
    reason: z.string().trim().min(3, { error: 'say why, in a few words' }).max(500),
    /** The loyalty account to redeem on; the default account's when unset. */
    account: accountId().optional(),
  })
  .refine((body) => body.email !== undefined || body.mobile !== undefined, {
    error: 'give email or mobile',
    path: ['email'],
  });
