import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

/** A config folder with the project's real default.json and, optionally, a local.json. */
function configDir(local?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'lb-config-'));
  copyFileSync(new URL('../../config/default.json', import.meta.url), join(dir, 'default.json'));
  if (local !== undefined) writeFileSync(join(dir, 'local.json'), typeof local === 'string' ? local : JSON.stringify(local));
  return dir;
}

const errorsOf = (result: ReturnType<typeof loadConfig>) => (result.ok ? [] : result.errors);

describe('loadConfig', () => {
  it('runs on the defaults alone, in sandbox mode', () => {
    const result = loadConfig({ configDir: configDir(), env: {} });
    expect(result).toMatchObject({
      ok: true,
      config: { PORT: 3000, DATA_DIR: './data', LOYALTY_EARN_ACTIVITY_ID: '1', LOYALTY_RATE_LIMIT_PER_MINUTE: 500, SANDBOX_API_KEY: 'sandbox-key', SANDBOX_BRAND_ID: 'sandbox-brand', SANDBOX_PORT: 4010 },
    });
    expect(result.ok && result.config.LOYALTY_BASE_URL).toBeFalsy();
  });

  it('layers local.json over default.json and the environment over both', () => {
    const dir = configDir({ PORT: 4000, LOYALTY_EARN_ACTIVITY_ID: '9' });
    const result = loadConfig({ configDir: dir, env: { PORT: '5000' } });
    expect(result).toMatchObject({ ok: true, config: { PORT: 5000, LOYALTY_EARN_ACTIVITY_ID: '9' } });
  });

  it('reads activities from the environment as id=points pairs', () => {
    const result = loadConfig({ configDir: configDir(), env: { SANDBOX_ACTIVITIES: '1=100, 7=250' } });
    expect(result).toMatchObject({ ok: true, config: { SANDBOX_ACTIVITIES: { '1': 100, '7': 250 } } });
  });

  it('reads the points policy from the environment', () => {
    const result = loadConfig({
      configDir: configDir(),
      env: { EXCLUDED_SOURCES: 'pos, draft', REQUIRE_MOBILE: 'no', REFERRAL_DISCOUNT_CAMPAIGNS: 'FRIEND=12,SPRING=13', MIN_ORDER_TOTAL: '9.99' },
    });
    expect(result).toMatchObject({
      ok: true,
      config: { EXCLUDED_SOURCES: ['pos', 'draft'], REQUIRE_MOBILE: false, REFERRAL_DISCOUNT_CAMPAIGNS: { FRIEND: 12, SPRING: 13 }, MIN_ORDER_TOTAL: '9.99' },
    });
  });

  it('treats an empty variable as unset', () => {
    const result = loadConfig({ configDir: configDir(), env: { LOYALTY_BASE_URL: '' } });
    expect(result.ok).toBe(true);
  });

  const bad: Array<[string, Record<string, string>, string]> = [
    ['a port that is not a number', { PORT: 'eighty' }, 'PORT (environment): must be a whole number from 0 to 65535'],
    ['a port out of range', { PORT: '70000' }, 'PORT (environment): must be a whole number from 0 to 65535'],
    ['a base URL that is not http', { LOYALTY_BASE_URL: 'ftp://x', LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b' }, 'LOYALTY_BASE_URL (environment): must be an http(s) URL'],
    ['a rate limit of zero', { LOYALTY_RATE_LIMIT_PER_MINUTE: '0' }, 'LOYALTY_RATE_LIMIT_PER_MINUTE (environment): must be a whole number from 1'],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL (environment): must be one of'],
    ['a short admin token', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN (environment): must be at least 16 characters'],
    ['a shop that is not a myshopify domain', { SHOPIFY_SHOP: 'https://example.com' }, 'SHOPIFY_SHOP (environment): must look like your-store.myshopify.com'],
    ['an earn trigger that is not paid or placed', { EARN_TRIGGER: 'shipped' }, 'EARN_TRIGGER (environment): must be paid or placed'],
    ['a redeem pattern that is not a regular expression', { REDEEM_CODE_PATTERN: '([' }, 'REDEEM_CODE_PATTERN (environment): must be a valid regular expression'],
    ['a campaign that is not a number', { REFERRAL_DISCOUNT_CAMPAIGNS: 'FRIEND=abc' }, 'REFERRAL_DISCOUNT_CAMPAIGNS (environment): campaign ids must be whole numbers'],
    ['a minimum total that is not an amount', { MIN_ORDER_TOTAL: '10 EUR' }, 'MIN_ORDER_TOTAL (environment): must be an amount like 10 or 9.99'],
    ['a real service with no API key', { LOYALTY_BASE_URL: 'https://loyalty.example.com', LOYALTY_BRAND_ID: 'b' }, 'LOYALTY_API_KEY: is required when LOYALTY_BASE_URL is set'],
  ];
  it.each(bad)('refuses %s with a line naming the key', (_name, env, line) => {
    const errors = errorsOf(loadConfig({ configDir: configDir(), env }));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
  });

  it('gives one line per bad key, all at once', () => {
    const errors = errorsOf(loadConfig({ configDir: configDir(), env: { PORT: 'x', SANDBOX_PORT: 'y', LOG_LEVEL: 'z' } }));
    expect(errors.map((line) => line.split(' ')[0])).toEqual(['PORT', 'LOG_LEVEL', 'SANDBOX_PORT']);
  });

  it('never prints a secret value, even a malformed one', () => {
    const secret = 'tok3n-with-secret-VALUE';
    const errors = errorsOf(
      loadConfig({ configDir: configDir({ SHOPIFY_API_SECRET: 12345 }), env: { ADMIN_TOKEN: secret.slice(0, 10), LOYALTY_API_KEY: secret, PORT: secret } }),
    );
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).not.toContain(secret.slice(0, 10));
    expect(errors.join('\n')).not.toContain('12345');
  });

  it('names a misspelt key in local.json', () => {
    const errors = errorsOf(loadConfig({ configDir: configDir({ PROT: 3000 }), env: {} }));
    expect(errors).toEqual(['PROT (config/local.json): is not a known setting']);
  });

  it('says so when local.json is not JSON', () => {
    const errors = errorsOf(loadConfig({ configDir: configDir('{ PORT: 1 '), env: {} }));
    expect(errors[0]).toMatch(/local\.json: is not valid JSON/);
  });
});
