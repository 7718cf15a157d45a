// The one configuration schema. Layers, lowest first: config/default.json,
// config/local.json (optional, git-ignored), then environment variables.
// Every key has the same name in all three places, so an error line names
// exactly what the merchant has to change.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { REFERRER_KINDS, REPLY_STYLES } from './loyalty/protocol.ts';
import { secretsKeyProblem } from './secrets/secret-box.ts';
import { fraction, list, secret, secureUrl, text, wholeNumber, yesNo } from './setting-kinds.ts';
import type { AnyPlatformModule, SettingProblem } from './core/platform-module.ts';
import { SHIPPED_MODULES } from './platform-registry.ts';
import {
  secretsKey,
  activityId,
  activities,
  MAX_ACTIVITIES,
  decimalText,
  positiveNumber,
  regexText,
  codeCampaigns,
  orderIdPrefixes,
  spendBands,
  returnActivities,
  onOff,
  logLevel,
} from './config-values.ts';

type Intersection<U> = (U extends unknown ? (each: U) => void : never) extends (all: infer I) => void ? I : never;
/** Every shipped module's keys in one shape, typed as each module types its own. */
const shippedSettings = Object.assign({}, ...SHIPPED_MODULES.map((module) => module.settings)) as Intersection<
  (typeof SHIPPED_MODULES)[number]['settings']
>;

export const configSchema = z
  .object({
    PORT: wholeNumber(0, 65535),
    HOST: text(),
    PUBLIC_URL: secureUrl().optional(),
    DATA_DIR: text(),
    LOG_LEVEL: logLevel(),

    // The API key goes in a header of every call.
    LOYALTY_BASE_URL: secureUrl().optional(),
    LOYALTY_API_KEY: secret().optional(),
    LOYALTY_BRAND_ID: text().optional(),
    LOYALTY_EARN_ACTIVITY_ID: activityId(),
    LOYALTY_RATE_LIMIT_PER_MINUTE: wholeNumber(1, 1_000_000),
    LOYALTY_RATE_LIMIT_WINDOW_SECONDS: wholeNumber(1, 3_600),
    LOYALTY_TIMEOUT_MS: wholeNumber(100, 120_000),
    LOYALTY_MAX_RETRIES: wholeNumber(0, 20),
    LOYALTY_ORDER_ID_PREFIXES: orderIdPrefixes(),
    LOYALTY_EARN_ACTIVITIES: spendBands().optional(),
    // The points each activity gives, as declared: the service's answers carry none (src/core/activity-points.ts).
    LOYALTY_ACTIVITY_POINTS: activities().optional(),
    LOYALTY_UNKNOWN_FAILURE_RETRIES: wholeNumber(0, 100),

    EARN_TRIGGER: z.enum(['paid', 'placed'], { error: 'must be paid or placed' }),
    PARTIAL_REFUND: z.enum(['ignore', 'cancel'], { error: 'must be ignore or cancel' }),
    MIN_ORDER_TOTAL: decimalText(),
    EXCLUDED_SOURCES: list(),
    REQUIRE_MOBILE: yesNo(),
    COUNT_TEST_ORDERS: yesNo(),
    POINTS_PENDING_DAYS: wholeNumber(0, 365),
    REFERRAL_ATTRIBUTE_KEY: text().optional(),
    REFERRAL_DISCOUNT_CAMPAIGNS: codeCampaigns(),
    REFERRAL_LANDING_PARAM: text().optional(),
    REFERRAL_CAMPAIGN_ID: wholeNumber(1, 2_147_483_647).optional(),
    REFERRAL_REFERRER_KIND: z.enum(REFERRER_KINDS, { error: `must be one of ${REFERRER_KINDS.join(', ')}` }),
    REFERRAL_REFERRER_ATTRIBUTE_KEY: text().optional(),
    REFERRAL_REFERRER_LANDING_PARAM: text().optional(),
    REFERRAL_REFERRER_DISCOUNT_PATTERN: regexText().optional(),
    CONVERSION_CONFIRM: onOff(),
    CONVERSION_PURCHASE_AMOUNT: z.enum(['total', 'subtotal'], { error: 'must be total or subtotal' }),
    REDEEM_CODE_PATTERN: regexText().optional(),
    REDEEM_POINTS_PER_UNIT: positiveNumber(),
    REDEEM_RETURN_ACTIVITIES: returnActivities(),

    METRICS_SHOP_LABELS: yesNo(),
    WEBHOOK_MAX_BODY_BYTES: wholeNumber(1024, 50 * 1024 * 1024),
    WEBHOOK_BODY_TIMEOUT_SECONDS: wholeNumber(1, 120),
    WEBHOOK_CONCURRENT_READS: wholeNumber(1, 10_000),
    RECONCILE_INTERVAL_MINUTES: wholeNumber(0, 24 * 60),
    RECONCILE_OVERLAP_MINUTES: wholeNumber(0, 24 * 60),
    RECONCILE_FIRST_LOOKBACK_HOURS: wholeNumber(0, 24 * 90),
    DEDUPE_WINDOW_DAYS: wholeNumber(1, 90),
    RETRY_MAX_AGE_HOURS: wholeNumber(1, 24 * 30),
    WORKER_CONCURRENCY: wholeNumber(1, 1_000),
    BACKFILL_MIN_SHARE: fraction(),
    /** The part of an account's rate limit the storefront's balance reads may use in a window, after live orders. */
    STOREFRONT_SHARE: fraction(),
    /** How long after a reward code's expiry the store's count of its uses is trusted to have settled. */
    REWARD_SETTLE_MINUTES: wholeNumber(0, 30 * 24 * 60),
    /** How often open reward codes are looked at (repairs, expiries, rewards turned off). */
    REWARD_SWEEP_SECONDS: wholeNumber(1, 24 * 60 * 60),
    /** How often the storefront's widget is checked on stores where the bridge put it (and put back if removed). */
    STOREFRONT_WIDGET_CHECK_MINUTES: wholeNumber(1, 24 * 60),
    WORKER_LEASE_SECONDS: wholeNumber(5, 24 * 60 * 60),
    SETTLE_AFTER_MINUTES: wholeNumber(1, 7 * 24 * 60),
    DATABASE_URL: z
      .string({ error: 'must be a postgres:// URL' })
      .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), {
        error: 'must be a URL like postgres://user@host:5432/database',
      })
      .optional(),
    DATABASE_POOL_SIZE: wholeNumber(2, 200),

    SANDBOX_API_KEY: secret(),
    SANDBOX_BRAND_ID: text(),
    SANDBOX_PORT: wholeNumber(0, 65535),
    SANDBOX_RATE_LIMIT_PER_MINUTE: wholeNumber(1, 1_000_000),
    SANDBOX_ACTIVITIES: activities(),
    SANDBOX_FAULT_FAILURE_RATE: fraction(),
    SANDBOX_FAULT_FAILURE_STATUS: wholeNumber(400, 599),
    SANDBOX_FAULT_LATENCY_MS: wholeNumber(0, 120_000),
    SANDBOX_REPLY_STYLE: z.enum(REPLY_STYLES, { error: `must be ${REPLY_STYLES.join(' or ')}` }),

    ADMIN_TOKEN: secret(16).optional(),
    // Seals the tokens and keys the ledger keeps (src/secrets/secret-box.ts); the previous key is read only, during a rotation.
    SECRETS_KEY: secretsKey().optional(),
    SECRETS_KEY_PREVIOUS: secretsKey().optional(),
    DEMO_STORE: z.enum(['auto', 'off'], { error: 'must be auto or off' }),
    // Read for the demo alone: a production start never plays it.
    NODE_ENV: text().optional(),
    ADMIN_TOKEN_LABEL: text(),
    SHUTDOWN_GRACE_SECONDS: wholeNumber(0, 300),
    SHUTDOWN_TIMEOUT_MS: wholeNumber(0, 120_000),

    // Development only: a store connected from the dashboard or the CLI may be on this machine or its network.
    ALLOW_PRIVATE_STORE_ADDRESSES: yesNo(),

    // Each shipped platform's own keys, from its module (src/composition/platform-registry.ts).
    ...shippedSettings,
  })
  .superRefine((config, ctx) => {
    // Talking to the real service needs both credentials; naming each missing one
    // is more useful than one vague line.
    if (config.LOYALTY_BASE_URL) {
      for (const key of ['LOYALTY_API_KEY', 'LOYALTY_BRAND_ID'] as const) {
        if (!config[key])
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required when LOYALTY_BASE_URL is set' });
      }
    }
    // In sandbox mode the sandbox is the service: an activity it does not have would be refused at the first earn.
    // Checked only on values that parsed: a bad one has its own line already.
    const parsed = (value: unknown) => typeof value === 'object' && value !== null;
    if (!config.LOYALTY_BASE_URL && parsed(config.SANDBOX_ACTIVITIES)) {
      for (const band of Array.isArray(config.LOYALTY_EARN_ACTIVITIES) ? config.LOYALTY_EARN_ACTIVITIES : []) {
        if (config.SANDBOX_ACTIVITIES[band.activityId] === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['LOYALTY_EARN_ACTIVITIES'],
            message: `activity ${band.activityId} (from ${band.from}) is not one of SANDBOX_ACTIVITIES; add it there, like ${band.activityId}=250`,
          });
        }
      }
      for (const [points, activityId] of Object.entries(
        parsed(config.REDEEM_RETURN_ACTIVITIES) ? config.REDEEM_RETURN_ACTIVITIES : {},
      )) {
        const gives = config.SANDBOX_ACTIVITIES[activityId];
        if (gives !== Number(points)) {
          ctx.addIssue({
            code: 'custom',
            path: ['REDEEM_RETURN_ACTIVITIES'],
            message: `activity ${activityId} must give ${points} points, and SANDBOX_ACTIVITIES ${gives === undefined ? 'does not have it' : `gives ${gives}`}`,
          });
        }
      }
    }
    if (
      !config.LOYALTY_BASE_URL &&
      parsed(config.SANDBOX_ACTIVITIES) &&
      parsed(config.LOYALTY_ACTIVITY_POINTS) &&
      Object.keys(config.LOYALTY_ACTIVITY_POINTS).length <= MAX_ACTIVITIES
    ) {
      // One line for the key, however many of its activities differ: the first few say how.
      const differ = Object.entries(config.LOYALTY_ACTIVITY_POINTS ?? {}).flatMap(([activityId, points]) => {
        const gives = config.SANDBOX_ACTIVITIES[activityId];
        return gives === points
          ? []
          : [
              `activity ${activityId} gives ${gives === undefined ? 'nothing in the sandbox (SANDBOX_ACTIVITIES does not have it)' : `${gives} points in the sandbox, not ${points}`}`,
            ];
      });
      if (differ.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['LOYALTY_ACTIVITY_POINTS'],
          message: `${differ.slice(0, 3).join('; ')}${differ.length > 3 ? `; and ${differ.length - 3} more` : ''}`,
        });
    }
    for (const { key, message } of (SHIPPED_MODULES as readonly AnyPlatformModule[]).flatMap((module) =>
      module.checkSettings(config, config.PUBLIC_URL),
    ))
      ctx.addIssue({ code: 'custom', path: [key], message });
    if (config.SECRETS_KEY_PREVIOUS && !config.SECRETS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRETS_KEY'],
        message: 'is required when SECRETS_KEY_PREVIOUS is set (the new key, which seals; the previous one only opens)',
      });
    }
    const keyBytes = (value: string | undefined) =>
      value && !secretsKeyProblem(value) ? Buffer.from(value.trim(), 'base64') : undefined;
    const [key, previous] = [keyBytes(config.SECRETS_KEY), keyBytes(config.SECRETS_KEY_PREVIOUS)];
    if (key && previous?.equals(key)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRETS_KEY_PREVIOUS'],
        message: 'is the same key as SECRETS_KEY: during a rotation it holds the old key; otherwise leave it unset',
      });
    }
  });

/** A registered platform module's own settings, parsed by its fragment: by its name. */
export type PlatformSettings = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export type Config = z.infer<typeof configSchema> & {
  /** The settings of platforms registered as modules (src/core/platform-module.ts), by platform name. */
  platformSettings?: PlatformSettings;
};
export type ConfigKey = keyof z.input<typeof configSchema>;

export const CONFIG_KEYS = Object.keys(configSchema.shape) as ConfigKey[];

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

export interface ConfigSources {
  /** Folder holding default.json and the optional local.json. */
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Platforms registered as modules: their keys join the known ones, each checked by its module's fragment. */
  modules?: readonly AnyPlatformModule[];
}

const DEFAULT_CONFIG_DIR = new URL('../config/', import.meta.url).pathname;

/** Reads every layer and validates the result. Never throws for bad input: returns one line per bad key. */
export function loadConfig({
  configDir = DEFAULT_CONFIG_DIR,
  env = process.env,
  modules = [],
}: ConfigSources = {}): ConfigResult {
  const errors: string[] = [];
  const knownKeys = new Set<string>([...CONFIG_KEYS, ...modules.flatMap((module) => Object.keys(module.settings))]);
  const merged: Record<string, unknown> = {};
  const origin: Record<string, string> = {};

  const layers: Array<[string, Record<string, unknown> | undefined]> = [
    ['config/default.json', readJsonLayer(join(configDir, 'default.json'), true, errors)],
    ['config/local.json', readJsonLayer(join(configDir, 'local.json'), false, errors)],
    ['environment', pickEnv(env, knownKeys)],
  ];
  for (const [name, layer] of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (!knownKeys.has(key)) {
        errors.push(`${key} (${name}): is not a known setting`);
        continue;
      }
      // null in a file and an empty variable both mean "not set".
      if (value === null || value === '') {
        delete merged[key];
      } else {
        merged[key] = value;
      }
      origin[key] = name;
    }
  }

  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '(config)');
      const where = merged[key] !== undefined && origin[key] ? ` (${origin[key]})` : '';
      const message = merged[key] === undefined && issue.code === 'invalid_type' ? 'is required' : issue.message;
      errors.push(`${key}${where}: ${message}`);
    }
  }
  const platformSettings: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const module of modules) {
    const read = readModuleSettings(module, merged, parsed.success ? parsed.data.PUBLIC_URL : undefined);
    if (read.ok) platformSettings[module.name] = read.settings;
    else
      errors.push(
        ...read.problems.map(({ key, message }) => {
          const where = merged[key] !== undefined && origin[key] ? ` (${origin[key]})` : '';
          return `${key}${where}: ${message}`;
        }),
      );
  }
  if (errors.length > 0 || !parsed.success) return { ok: false, errors: [...new Set(errors)] };
  return { ok: true, config: modules.length > 0 ? { ...parsed.data, platformSettings } : parsed.data };
}

/** A module's keys through its own fragment, then its checks across them: one problem per bad key. */
export function readModuleSettings(
  module: AnyPlatformModule,
  given: Readonly<Record<string, unknown>>,
  publicUrl: string | undefined,
): { ok: true; settings: Readonly<Record<string, unknown>> } | { ok: false; problems: SettingProblem[] } {
  const schema = z.object(module.settings);
  const own = Object.fromEntries(
    Object.keys(module.settings).flatMap((key) => (key in given ? [[key, given[key]]] : [])),
  );
  const parsed = schema.safeParse(own);
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? module.name);
        return {
          key,
          message: own[key] === undefined && issue.code === 'invalid_type' ? 'is required' : issue.message,
        };
      }),
    };
  const problems = module.checkSettings(parsed.data, publicUrl);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, settings: parsed.data };
}

function pickEnv(env: NodeJS.ProcessEnv, keys: Iterable<string>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) {
    const value = env[key];
    if (value !== undefined) picked[key] = value.trim();
  }
  return picked;
}

function readJsonLayer(path: string, required: boolean, errors: string[]): Record<string, unknown> | undefined {
  if (!existsSync(path)) {
    if (required) errors.push(`${path}: file is missing`);
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push(`${path}: must hold one JSON object of settings`);
      return undefined;
    }
    return value as Record<string, unknown>;
  } catch (error) {
    // Only the position: newer V8 messages quote the text, which may hold a secret.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    errors.push(`${path}: is not valid JSON${position ? ` (at character ${position})` : ''}`);
    return undefined;
  }
}

/** Sandbox mode: no real service configured, so the bridge serves and calls its own sandbox. */
export const isSandboxMode = (config: Config): boolean => !config.LOYALTY_BASE_URL;

/** The default account's declared points per activity: in sandbox mode the sandbox's own, unless declared otherwise. */
export const activityPointsOf = (config: Config): Readonly<Record<string, number>> =>
  config.LOYALTY_ACTIVITY_POINTS ?? (isSandboxMode(config) ? config.SANDBOX_ACTIVITIES : {});

/** Any store connected at all: a shipped platform's module finds its settings name one (a secret, an address). */
export const hasPlatform = (config: Config): boolean =>
  (SHIPPED_MODULES as readonly AnyPlatformModule[]).some((module) => module.configured(config));

/** A value set: an empty list is a list's default, not a setting. */
export const isSet = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);

/**
 * Any platform setting given, even half of what a store needs (an app key, a shop list, no secret yet): those the
 * operator may leave out (optional, or a list) that are set. Settings that always hold a value (a version) are not.
 */
export const hasPlatformSetting = (config: Config): boolean =>
  (SHIPPED_MODULES as readonly AnyPlatformModule[]).some(({ settings }) =>
    Object.entries(settings as Record<string, z.ZodType>).some(
      ([key, schema]) => schema.safeParse(undefined).success && isSet((config as Record<string, unknown>)[key]),
    ),
  );

/**
 * The demo store runs on a first run on this machine only: the sandbox, no store of the merchant's, and no public
 * address or production start (a demo open to anyone who can reach it signs anyone in as its customer).
 */
export const runsDemoStore = (config: Config): boolean =>
  config.DEMO_STORE === 'auto' &&
  isSandboxMode(config) &&
  !hasPlatform(config) &&
  !hasPlatformSetting(config) &&
  !config.PUBLIC_URL &&
  config.NODE_ENV !== 'production';
