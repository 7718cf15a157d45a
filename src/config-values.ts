// The kinds of value the configuration's keys take (config.ts composes them into the one schema): how each
// is written in a file and in the environment, and the one line its error says.
import { z } from 'zod';
import { compareDecimal } from './core/decimal.ts';
import { sortBands } from './core/spend-bands.ts';
import { prefixProblems } from './core/worker/lp-order-ids.ts';
import { secretsKeyProblem } from './secrets/secret-box.ts';
import { compileCodePattern } from './core/code-pattern.ts';
import { PLATFORMS } from './platform-registry.ts';

// A key that seals secrets at rest: 32 bytes in base64. The message never echoes the value.
export const secretsKey = () =>
  z.string({ error: 'must be text' }).superRefine((value, ctx) => {
    const problem = secretsKeyProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const activityId = () =>
  z
    .preprocess(
      (value) => (typeof value === 'number' ? String(value) : value),
      z.string({ error: 'must be an activity id' }),
    )
    .refine((value) => /^[A-Za-z0-9_-]{1,64}$/.test(value), {
      error: 'must be an activity id (letters, digits, _ or -)',
    });

// Activities as "id=points,id=points" in the environment, or an object in a file.
export const activities = () =>
  z.preprocess(
    (value, context) => {
      if (typeof value !== 'string') return value;
      const entries = value.split(',').map((pair) => pair.split('=').map((part) => part.trim()));
      // A name every object has (__proto__, constructor) would be dropped or misread, never kept as given.
      const inherited = entries.map(([id]) => id ?? '').filter((id) => id in Object.prototype);
      if (inherited.length > 0) {
        context.addIssue({ code: 'custom', message: `${inherited.join(', ')} may not be an activity id` });
        return z.NEVER;
      }
      return Object.fromEntries(
        entries.map(([id, points]) => [id, /^\d+$/.test(points ?? '') ? Number(points) : points]),
      );
    },
    z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'activity ids are letters, digits, _ or -' }),
        z.number({ error: 'points must be a whole number' }).int({ error: 'points must be a whole number' }).min(0),
        { error: 'must be a list like 1=100,7=250' },
      )
      .refine((list) => Object.keys(list).length <= MAX_ACTIVITIES, {
        error: `at most ${MAX_ACTIVITIES} activities`,
      }),
  );

/** More than a program has: a list past it is a mistake, and each page and status line reads the whole list. */
export const MAX_ACTIVITIES = 200;

export const decimalText = () =>
  z.preprocess(
    (value) => (typeof value === 'number' ? String(value) : value),
    z
      .string({ error: 'must be an amount like 10 or 9.99' })
      .regex(/^\d+(\.\d+)?$/, { error: 'must be an amount like 10 or 9.99' }),
  );

export const positiveNumber = () => {
  const error = 'must be a positive number';
  return z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z.number({ error }).positive({ error }).max(1_000_000, { error }),
  );
};

/**
 * A pattern run on every order's discount codes while the worker plans. It
 * runs on RE2 (core/code-pattern.ts), in time linear in the code whatever the
 * pattern, so a merchant's pattern cannot hold the event loop; RE2 has no
 * lookaround and no backreference, and a pattern that uses them is refused.
 */
export const regexText = () =>
  z
    .string({ error: 'must be a regular expression' })
    .max(200, { error: 'must be a regular expression of at most 200 characters' })
    .superRefine((value, context) => {
      // zod runs this though max() failed: one line for the key, and nothing that long is compiled.
      if (value.length > 200) return;
      const compiled = compileCodePattern(value);
      if (!compiled.ok) context.addIssue({ code: 'custom', message: compiled.reason });
    });

/** "a=1,b=2" in the environment to { a: '1', b: '2' }; an object from a file passes as it is. */
export const namedValues = (value: unknown) => {
  if (typeof value !== 'string') return value;
  return Object.fromEntries(
    value
      .split(',')
      .filter((pair) => pair.trim() !== '')
      .map((pair) => {
        const at = pair.lastIndexOf('=');
        return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      }),
  );
};

export const wholeNumberText = (value: unknown) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

// Codes to campaign ids, as "CODE=12,OTHER=13" in the environment or an object in a file.
export const codeCampaigns = () =>
  z.preprocess(
    namedValues,
    z.record(
      z.string().min(1),
      z.preprocess(
        wholeNumberText,
        z
          .number({ error: 'campaign ids must be whole numbers' })
          .int({ error: 'campaign ids must be whole numbers' })
          .positive({ error: 'campaign ids must be whole numbers' }),
      ),
      {
        error: 'must be a list like SPRING=12,FRIEND=13',
      },
    ),
  );

// Order-id prefixes as "<platform>=1,<platform>:<shop>=3" (a shipped platform's name), or an object in a file.
export const orderIdPrefixes = () =>
  z.preprocess(
    namedValues,
    z
      .record(
        z.string().regex(new RegExp(`^(${PLATFORMS.join('|')})(:[A-Za-z0-9.:/-]+)?$`), {
          error: 'targets are a platform, or platform:shop',
        }),
        z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string()),
        { error: `must be a list like ${PREFIX_EXAMPLE}` },
      )
      .superRefine((prefixes, ctx) => {
        for (const problem of prefixProblems(prefixes)) ctx.addIssue({ code: 'custom', message: problem });
      }),
  );

/** Two platforms' prefixes, as an error line gives the form: the last two shipped platforms. */
export const PREFIX_EXAMPLE = PLATFORMS.slice(-2)
  .map((name, i) => `${name}=${i + 1}`)
  .join(',');

export const ACTIVITY_ID = /^[A-Za-z0-9_-]{1,64}$/;

// Points by spend, "0=1,50=7,200=9" (order total from which = activity id) or an object in a file.
export const spendBands = () =>
  z.preprocess(
    namedValues,
    z
      .record(
        z.string().regex(/^\d{1,12}(\.\d{1,6})?$/, { error: 'thresholds are order totals like 0, 50 or 49.50' }),
        z.preprocess(
          (value) => (typeof value === 'number' ? String(value) : value),
          z.string().regex(ACTIVITY_ID, { error: 'activity ids are letters, digits, _ or -' }),
        ),
        { error: 'must be a list like 0=1,50=7,200=9 (order total from which = activity id)' },
      )
      .superRefine((bands, ctx) => {
        const thresholds = Object.keys(bands);
        for (const [i, a] of thresholds.entries()) {
          const twin = thresholds.slice(i + 1).find((b) => compareDecimal(a, b) === 0);
          if (twin !== undefined) ctx.addIssue({ code: 'custom', message: `${a} and ${twin} are the same threshold` });
        }
      })
      .transform((bands) => sortBands(Object.entries(bands).map(([from, activityId]) => ({ from, activityId })))),
  );

// Redeemed points to the activity that gives exactly as many back: "500=21,1000=22", or an object in a file.
export const returnActivities = () =>
  z.preprocess(
    namedValues,
    z.record(
      z.string().regex(/^[1-9]\d{0,8}$/, { error: 'points are whole numbers like 500' }),
      z.preprocess(
        (value) => (typeof value === 'number' ? String(value) : value),
        z.string().regex(ACTIVITY_ID, { error: 'activity ids are letters, digits, _ or -' }),
      ),
      { error: 'must be a list like 500=21,1000=22 (points = activity id)' },
    ),
  );

export const onOff = () =>
  z.preprocess(
    (value) =>
      typeof value === 'boolean'
        ? value
          ? 'on'
          : 'off'
        : typeof value === 'string'
          ? (({ true: 'on', yes: 'on', '1': 'on', false: 'off', no: 'off', '0': 'off' } as Record<string, string>)[
              value.toLowerCase()
            ] ?? value.toLowerCase())
          : value,
    z.enum(['on', 'off'], { error: 'must be on or off' }),
  );
export const logLevel = () =>
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    error: 'must be one of fatal, error, warn, info, debug, trace, silent',
  });
