// An account's program settings: the rules the configuration names (EARN_TRIGGER, MIN_ORDER_TOTAL, the
// REFERRAL_*, CONVERSION_* and REDEEM_* settings, ...), under the configuration's own names and validated by
// its own schema, one line per bad key. The default account's are the environment's; any other account's
// are what was saved for it, over the defaults of config/default.json.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { activityPointsOf, configSchema, type Config } from '../config.ts';
import { compileCodePattern } from '../core/code-pattern.ts';
import type { PausedRule } from '../core/accounts.ts';

export const PROGRAM_KEYS = [
  'LOYALTY_EARN_ACTIVITY_ID',
  'LOYALTY_EARN_ACTIVITIES',
  'LOYALTY_ACTIVITY_POINTS',
  'EARN_TRIGGER',
  'PARTIAL_REFUND',
  'MIN_ORDER_TOTAL',
  'EXCLUDED_SOURCES',
  'REQUIRE_MOBILE',
  'COUNT_TEST_ORDERS',
  'POINTS_PENDING_DAYS',
  'REFERRAL_ATTRIBUTE_KEY',
  'REFERRAL_DISCOUNT_CAMPAIGNS',
  'REFERRAL_LANDING_PARAM',
  'REFERRAL_CAMPAIGN_ID',
  'REFERRAL_REFERRER_KIND',
  'REFERRAL_REFERRER_ATTRIBUTE_KEY',
  'REFERRAL_REFERRER_LANDING_PARAM',
  'REFERRAL_REFERRER_DISCOUNT_PATTERN',
  'CONVERSION_CONFIRM',
  'CONVERSION_PURCHASE_AMOUNT',
  'REDEEM_CODE_PATTERN',
  'REDEEM_POINTS_PER_UNIT',
  'REDEEM_RETURN_ACTIVITIES',
] as const satisfies ReadonlyArray<keyof Config>;

export type ProgramKey = (typeof PROGRAM_KEYS)[number];
export type ProgramSettings = Pick<Config, ProgramKey>;
/** Settings as given (a form, an API call, the environment's text): validated into ProgramSettings. */
export type ProgramInput = Partial<Record<ProgramKey, unknown>>;

const PROGRAM_SCHEMA = z.object(
  Object.fromEntries(PROGRAM_KEYS.map((key) => [key, configSchema.shape[key]])) as {
    [K in ProgramKey]: (typeof configSchema.shape)[K];
  },
);

export const isProgramKey = (key: string): key is ProgramKey => (PROGRAM_KEYS as readonly string[]).includes(key);

/** The settings of an account, or one line per bad key (unknown keys included), as the configuration reports them. */
export function parseProgramSettings(
  input: ProgramInput,
  defaults: ProgramInput,
): { ok: true; settings: ProgramSettings } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(input)) {
    if (!isProgramKey(key)) {
      errors.push(`${key}: is not a program setting (${PROGRAM_KEYS.join(', ')})`);
      continue;
    }
    // null and an empty text both mean "back to the default".
    if (value === null || value === '') merged[key] = defaults[key];
    else merged[key] = value;
  }
  for (const key of Object.keys(merged)) if (merged[key] === null || merged[key] === undefined) delete merged[key];
  const parsed = PROGRAM_SCHEMA.safeParse(merged);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '(settings)');
      // One line per activity whose points are bad, naming it: the list may be long.
      const activity =
        key === 'LOYALTY_ACTIVITY_POINTS' && issue.path.length > 1 ? `activity ${String(issue.path[1])}: ` : '';
      errors.push(
        `${key}: ${activity}${merged[key] === undefined && issue.code === 'invalid_type' ? 'is required' : issue.message}`,
      );
    }
  }
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: [...new Set(errors)] };
  return { ok: true, settings: parsed.data as ProgramSettings };
}

/** The program settings of config/default.json: what an account has until it says otherwise. */
export function programDefaults(configDir = new URL('../../config/', import.meta.url).pathname): ProgramInput {
  const path = join(configDir, 'default.json');
  const all = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  return Object.fromEntries(PROGRAM_KEYS.filter((key) => key in all).map((key) => [key, all[key]])) as ProgramInput;
}

/** The default account's settings: the environment's configuration. */
export const programSettingsOf = (config: Config): ProgramSettings => ({
  ...(Object.fromEntries(PROGRAM_KEYS.map((key) => [key, config[key]])) as ProgramSettings),
  LOYALTY_ACTIVITY_POINTS: activityPointsOf(config),
});

/** The settings that are patterns run on discount codes, and the rule each one drives, in the merchant's words. */
const PATTERN_RULES = {
  REDEEM_CODE_PATTERN: 'discount codes paid for with points',
  REFERRAL_REFERRER_DISCOUNT_PATTERN: 'referrers named by their discount code',
} as const satisfies Partial<Record<ProgramKey, string>>;

/**
 * Saved patterns that RE2 cannot run: saved under an earlier release, which
 * ran patterns on JavaScript's engine and took lookaround and backreferences.
 * Each pauses its rule alone until it is fixed (readSavedSettings).
 */
export function pausedRulesOf(saved: ProgramInput): PausedRule[] {
  const paused: PausedRule[] = [];
  for (const [key, rule] of Object.entries(PATTERN_RULES) as Array<[ProgramKey, string]>) {
    const value = saved[key];
    if (typeof value !== 'string' || value === '') continue;
    const compiled = compileCodePattern(value);
    if (!compiled.ok) paused.push({ key, rule, why: compiled.reason });
  }
  return paused;
}

/**
 * An account's saved settings, in force: a saved pattern RE2 cannot run is
 * off (its rule paused), not the default's pattern, which the merchant did
 * not choose; every other setting reads as saved. Errors only for what else
 * does not read.
 */
export function readSavedSettings(
  saved: ProgramInput,
  defaults: ProgramInput,
): { ok: true; settings: ProgramSettings; paused: PausedRule[] } | { ok: false; errors: string[] } {
  const paused = pausedRulesOf(saved);
  const readable = { ...saved };
  for (const { key } of paused) delete readable[key as ProgramKey];
  const parsed = parseProgramSettings(readable, defaults);
  if (!parsed.ok) return parsed;
  const settings = { ...parsed.settings };
  for (const { key } of paused) delete settings[key as keyof ProgramSettings];
  return { ok: true, settings, paused };
}
