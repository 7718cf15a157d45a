// The kinds of setting every part of the configuration uses: the one schema (config.ts) and each platform
// module's own keys (src/core/platform-module.ts). Each says what is wrong in words, never echoing a secret.
import { z } from 'zod';
import { isSecureTransport } from './net/addresses.ts';
import { trimTrailing } from './trim-trailing.ts';

export const wholeNumber = (min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value),
    z.number({ error }).int({ error }).min(min, { error }).max(max, { error }),
  );
};

export const fraction = () => {
  const error = 'must be a number from 0 to 1';
  return z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z.number({ error }).min(0, { error }).max(1, { error }),
  );
};

export const httpUrl = () =>
  z
    .string({ error: 'must be an http(s) URL' })
    .refine((value) => /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value), {
      error: 'must be an http(s) URL such as https://loyalty.example.com',
    })
    .transform((value) => trimTrailing(value, '/'));

/**
 * Why an address secrets go to may not be used, or undefined. It must be
 * https, or http to this very machine (a sandbox, a store or a test double
 * on it). And it holds no user name, password, query string or fragment:
 * no base address needs one, a key put there would be shown wherever the
 * address is (the start-up line, errors, dead letters), and every key has a
 * setting of its own. The message never echoes the value.
 */
function insecureUrlProblem(value: string): string | undefined {
  // Not a URL at all: httpUrl() has said so already.
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.username || url.password)
    return 'must not hold a user name or password (user:password@): the address is shown in logs and errors; credentials go in their own settings';
  if (url.search || url.hash || /[?#]/.test(value))
    return 'must not hold a query string or fragment (? or #): the address is shown in logs and errors; credentials go in their own settings';
  if (!isSecureTransport(url))
    return 'must be an https URL: credentials go over it, and over plain http anyone on the way reads them (http is accepted only for this machine: localhost, 127.0.0.1, [::1])';
  return undefined;
}

export const secureUrl = () =>
  httpUrl().superRefine((value, ctx) => {
    const problem = insecureUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const text = () => z.string({ error: 'must be text' }).min(1, { error: 'must not be empty' });

// Secrets: the message never echoes the value, whatever was wrong with it.
export const secret = (minLength = 1) =>
  z
    .string({ error: 'must be text' })
    .min(minLength, { error: minLength > 1 ? `must be at least ${minLength} characters` : 'must not be empty' });

/** "a,b,c" in the environment (blanks dropped, each trimmed and put through `each`), or a list in a file. */
export const commaSeparated = <T extends z.ZodType>(array: T, each: (item: string) => string = (item) => item) =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((item) => each(item.trim()))
            .filter(Boolean)
        : value,
    array,
  );

export const list = () =>
  commaSeparated(
    z.array(z.string({ error: 'must be a list of words' }).min(1), { error: 'must be a comma-separated list' }),
  );

export const yesNo = () =>
  z.preprocess(
    (value) =>
      typeof value === 'string'
        ? (({ true: true, yes: true, '1': true, false: false, no: false, '0': false } as Record<string, boolean>)[
            value.toLowerCase()
          ] ?? value)
        : value,
    z.boolean({ error: 'must be true or false' }),
  );
