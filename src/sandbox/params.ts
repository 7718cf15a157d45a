// The parameters of each operation, as the sandbox accepts them: from the JSON
// body or the query string, strings or numbers alike (a query string has only
// strings). A bad one is refused with a detail that names the field.
import { z } from 'zod';
import { CONVERSION_EVENTS, POINT_STATUSES, REFERRER_FIELDS, TRANSACTION_TYPES } from '../loyalty/protocol.ts';

const asText = (value: unknown) => (typeof value === 'number' || typeof value === 'bigint' ? String(value) : value);

const requiredText = (max = 200) =>
  z.preprocess(
    asText,
    z
      .string({ error: 'must be text' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(max, { error: `must be at most ${max} characters` }),
  );

const email = () =>
  z.preprocess(
    asText,
    z
      .string({ error: 'must be text' })
      .trim()
      .pipe(z.email({ error: 'must be an e-mail address' })),
  );

// Any formatting is accepted; what counts is 7 to 15 digits, as in E.164.
const mobile = () =>
  z.preprocess(
    asText,
    z
      .string({ error: 'must be text' })
      .trim()
      .refine((value) => /^\+?[\d\s().-]+$/.test(value) && /^\d{7,15}$/.test(value.replace(/\D/g, '')), {
        error: 'must be a phone number of 7 to 15 digits',
      }),
  );

// Documented as an integer; carried as exact digits, since order ids exceed 2^53.
const orderId = () =>
  z.preprocess(
    asText,
    z
      .string({ error: 'must be an integer' })
      .trim()
      .regex(/^\d{1,40}$/, { error: 'must be an integer' }),
  );

const positiveInteger = () =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .positive({ error: 'must be greater than 0' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'is too large' }),
  );

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null || value === '' ? undefined : value), schema.optional());

const requireCustomer = <T extends { lp_email?: string | undefined; lp_mobile?: string | undefined }>(
  params: T,
  ctx: z.RefinementCtx,
) => {
  if (params.lp_email === undefined && params.lp_mobile === undefined) {
    ctx.addIssue({ code: 'custom', path: ['lp_email'], message: 'or lp_mobile is required' });
  }
};

export const earnParams = z.object({
  lp_name: requiredText(),
  lp_email: email(),
  lp_mobile: mobile(),
  lp_description: optional(requiredText(500)),
  lp_orderid: optional(orderId()),
});

export const redeemParams = z
  .object({ lp_points: positiveInteger(), lp_email: optional(email()), lp_mobile: optional(mobile()) })
  .superRefine(requireCustomer);

export const transactionParams = z
  .object({
    lp_type: z.enum(TRANSACTION_TYPES, { error: `must be one of ${TRANSACTION_TYPES.join(', ')}` }),
    lp_email: optional(email()),
    lp_mobile: optional(mobile()),
  })
  .superRefine(requireCustomer);

export const updatePointsParams = z.object({
  lp_status: z.enum(POINT_STATUSES, { error: `must be one of ${POINT_STATUSES.join(', ')}` }),
  lp_orderid: orderId(),
});

// An amount as the service's samples send it ('1000'), or a JSON number; kept as exact decimal text.
const amount = () =>
  z.preprocess(
    asText,
    z
      .string({ error: 'must be an amount' })
      .trim()
      .regex(/^\d{1,15}(\.\d{1,6})?$/, { error: 'must be an amount like 49.90' }),
  );

const conversionEvent = () => z.enum(CONVERSION_EVENTS, { error: `must be ${CONVERSION_EVENTS.join(' or ')}` });

/**
 * "There are multiple parameters for referrer (referrer_email,
 * referrer_mobile, referrer_code, referrer_unique_code) but you have to send
 * only one": none, or two, and the service cannot tell whom to reward.
 */
function exactlyOneReferrer(params: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const given = REFERRER_FIELDS.filter((field) => params[field] !== undefined);
  if (given.length === 1) return;
  const message =
    given.length === 0
      ? `one referrer field is required: ${REFERRER_FIELDS.join(', ')}`
      : `send only one referrer field, not ${given.join(' and ')}`;
  ctx.addIssue({ code: 'custom', path: [], message });
}

export const conversionParams = z
  .object({
    order_id: requiredText(64),
    campaign_id: positiveInteger(),
    event: optional(conversionEvent()),
    referrer_email: optional(email()),
    referrer_mobile: optional(mobile()),
    referrer_code: optional(requiredText(100)),
    referrer_unique_code: optional(requiredText(100)),
    referee_name: optional(requiredText()),
    referee_email: optional(email()),
    referee_mobile: optional(mobile()),
    purchase_amount: optional(amount()),
    custom_value: optional(requiredText(500)),
  })
  .superRefine(exactlyOneReferrer);

/** conversion/confirm: "Order_id, campaign_id, event and status are require body data". */
export const CONFIRM_REQUIRED = ['order_id', 'campaign_id', 'event', 'status'] as const;

export const confirmParams = z.object({
  order_id: requiredText(64),
  campaign_id: positiveInteger(),
  event: conversionEvent(),
  status: z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z.union([z.literal(1), z.literal(2)], { error: 'must be 1 (approve) or 2 (reject)' }),
  ),
  remark: optional(requiredText(500)),
  custom_value: optional(requiredText(500)),
});

export type ParamsResult<T> = { ok: true; params: T } | { ok: false; detail: string };

/** Validates, and turns the first problem into "<field> is required" or "<field> <what is wrong>". */
export function readParams<S extends z.ZodType>(schema: S, input: Record<string, unknown>): ParamsResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, params: result.data };
  const issue = result.error.issues[0];
  // A rule about the body as a whole says all there is to say.
  if (issue && issue.path.length === 0 && issue.code === 'custom') return { ok: false, detail: issue.message };
  const field = String(issue?.path[0] ?? 'body');
  const missing = input[field] === undefined || input[field] === null || input[field] === '';
  const detail =
    missing && issue?.code !== 'custom' ? `${field} is required` : `${field} ${issue?.message ?? 'is invalid'}`;
  return { ok: false, detail };
}
