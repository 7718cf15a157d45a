// What a person may send to make or change an account (its fields, its program settings), read and checked
// here, and what an audit line or an answer may show of it (registry.ts keeps what passes).
import { keyHint, type AccountRecord } from './account-records.ts';
import { parseProgramSettings, type ProgramInput } from './program-settings.ts';
import { trimTrailing } from '../trim-trailing.ts';

/** C0 and C1 controls, DEL among them (ESC starts a terminal's escape sequences). */
const CONTROL_CHARACTER = /\p{Cc}/u;

export interface AccountInput {
  name?: unknown;
  baseUrl?: unknown;
  apiKey?: unknown;
  brandId?: unknown;
  rateLimitPerMinute?: unknown;
  settings?: unknown;
}

type Fields = Partial<Pick<AccountRecord, 'name' | 'baseUrl' | 'apiKey' | 'brandId' | 'rateLimitPerMinute'>>;

/** An account's fields as given, checked; every refusal goes into `errors` (then undefined). */
export function accountFields(
  input: AccountInput,
  errors: string[],
  required: boolean,
  checkBaseUrl: (url: string) => string | undefined,
): Required<Fields> | undefined {
  const fields: Fields = {};
  const text = (key: 'name' | 'apiKey' | 'brandId', max: number) => {
    const value = input[key];
    if (value === undefined) {
      if (required) errors.push(`${key}: is required`);
      return;
    }
    if (typeof value !== 'string' || value.trim() === '' || value.length > max)
      errors.push(`${key}: must be text of 1 to ${max} characters`);
    // Names and brands are shown in the operator's terminal and pages: no escape sequence rides along.
    else if (CONTROL_CHARACTER.test(value.trim())) errors.push(`${key}: must hold no control characters`);
    else fields[key] = value.trim();
  };
  text('name', 100);
  text('apiKey', 500);
  text('brandId', 200);
  if (input.baseUrl === undefined) {
    if (required) errors.push('baseUrl: is required');
  } else if (typeof input.baseUrl !== 'string') {
    errors.push('baseUrl: must be the service’s https address');
  } else if (input.baseUrl.length > 2_000) {
    // A merchant's text, read by more than one check: bounded before any of them.
    errors.push('baseUrl: must be the service’s https address, of at most 2000 characters');
  } else {
    const problem = checkBaseUrl(input.baseUrl.trim());
    if (problem) errors.push(`baseUrl: ${problem}`);
    else fields.baseUrl = trimTrailing(input.baseUrl.trim(), '/');
  }
  if (input.rateLimitPerMinute === undefined) {
    if (required) fields.rateLimitPerMinute = 500;
  } else if (
    !Number.isInteger(input.rateLimitPerMinute) ||
    (input.rateLimitPerMinute as number) < 1 ||
    (input.rateLimitPerMinute as number) > 1_000_000
  ) {
    errors.push(
      'rateLimitPerMinute: must be a whole number from 1 to 1000000 (the service allows 500 a minute per key)',
    );
  } else {
    fields.rateLimitPerMinute = input.rateLimitPerMinute as number;
  }
  for (const key of Object.keys(input)) {
    if (!['name', 'baseUrl', 'apiKey', 'brandId', 'rateLimitPerMinute', 'settings'].includes(key))
      errors.push(
        `${key}: is not a field of an account (name, baseUrl, apiKey, brandId, rateLimitPerMinute, settings)`,
      );
  }
  return errors.length > 0 ? undefined : (fields as Required<typeof fields>);
}

/** What a change of fields may not do to the account it changes; each refusal goes into `errors`. */
export function updateRefusals(current: AccountRecord, fields: Fields | undefined, errors: string[]): void {
  // The key goes with its address: a new address with the key kept would send the key there on its first call.
  if (fields?.baseUrl !== undefined && fields.baseUrl !== current.baseUrl && fields.apiKey === undefined)
    errors.push('apiKey: is required with a new baseUrl (the key is never sent to an address it was not given for)');
  // A trial's key and brand are the sandbox's own: ones of the merchant's choosing go with their own address.
  const keepsAddress = fields?.baseUrl === undefined || fields.baseUrl === current.baseUrl;
  if (
    current.onBridgeSandbox &&
    keepsAddress &&
    ((fields?.apiKey !== undefined && fields.apiKey !== current.apiKey) ||
      (fields?.brandId !== undefined && fields.brandId !== current.brandId))
  )
    errors.push(
      'baseUrl: is required with a new key or brand id on a trial (its own are the sandbox’s): give your loyalty service’s address too',
    );
}

/** Settings as given over those saved (null puts one back to its default), checked; refusals go into `errors`. */
export function mergeSettings(
  input: unknown,
  saved: ProgramInput,
  errors: string[],
  programDefaults: ProgramInput,
): ProgramInput | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    errors.push('settings: must be an object of program settings by their configuration names');
    return undefined;
  }
  // Keys are outside input: a Map, so that "__proto__" is a key like any other (and refused as one), not the object's prototype.
  const merged = new Map<string, unknown>(Object.entries(saved));
  for (const [key, value] of Object.entries(input)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  const next = Object.fromEntries(merged) as ProgramInput;
  const parsed = parseProgramSettings(next, programDefaults);
  if (!parsed.ok) {
    errors.push(...parsed.errors);
    return undefined;
  }
  return next;
}

/** What an audit line or an answer may show of fields: the key as its last four characters. */
export function shownFields(fields: Partial<AccountRecord>): Record<string, unknown> {
  const { apiKey, ...rest } = fields;
  return { ...rest, ...(apiKey !== undefined ? { apiKey: keyHint(apiKey) } : {}) };
}
