import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, runsDemoStore } from '../../src/config.ts';

/** A config folder with the project's real default.json and, optionally, a local.json. */
function configDir(local?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'lb-config-'));
  copyFileSync(new URL('../../config/default.json', import.meta.url), join(dir, 'default.json'));
  if (local !== undefined)
    writeFileSync(join(dir, 'local.json'), typeof local === 'string' ? local : JSON.stringify(local));
  return dir;
}

const errorsOf = (result: ReturnType<typeof loadConfig>) => (result.ok ? [] : result.errors);

describe('loadConfig', () => {
  it('runs on the defaults alone, in sandbox mode', () => {
    const result = loadConfig({ configDir: configDir(), env: {} });
    expect(result).toMatchObject({
      ok: true,
      config: {
        PORT: 3000,
        DATA_DIR: './data',
        LOYALTY_EARN_ACTIVITY_ID: '1',
        LOYALTY_RATE_LIMIT_PER_MINUTE: 500,
        SANDBOX_API_KEY: 'sandbox-key',
        SANDBOX_BRAND_ID: 'sandbox-brand',
        SANDBOX_PORT: 4010,
      },
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

  it('refuses an activity named as every object is, and a list longer than any program', () => {
    const refused = (value: string) => {
      const result = loadConfig({ configDir: configDir(), env: { LOYALTY_ACTIVITY_POINTS: value } });
      return result.ok ? [] : result.errors.filter((line) => line.startsWith('LOYALTY_ACTIVITY_POINTS'));
    };
    expect(refused('__proto__=1')).toEqual([
      'LOYALTY_ACTIVITY_POINTS (environment): __proto__ may not be an activity id',
    ]);
    expect(refused('1=100,constructor=5')).toEqual([
      'LOYALTY_ACTIVITY_POINTS (environment): constructor may not be an activity id',
    ]);
    expect(refused(Array.from({ length: 201 }, (_, i) => `${i}=1`).join(','))).toEqual([
      'LOYALTY_ACTIVITY_POINTS (environment): at most 200 activities',
    ]);
  });

  it('reads the points policy from the environment', () => {
    const result = loadConfig({
      configDir: configDir(),
      env: {
        EXCLUDED_SOURCES: 'pos, draft',
        REQUIRE_MOBILE: 'no',
        REFERRAL_DISCOUNT_CAMPAIGNS: 'FRIEND=12,SPRING=13',
        MIN_ORDER_TOTAL: '9.99',
      },
    });
    expect(result).toMatchObject({
      ok: true,
      config: {
        EXCLUDED_SOURCES: ['pos', 'draft'],
        REQUIRE_MOBILE: false,
        REFERRAL_DISCOUNT_CAMPAIGNS: { FRIEND: 12, SPRING: 13 },
        MIN_ORDER_TOTAL: '9.99',
      },
    });
  });

  it('reads referrals, conversions and points by spend from the environment, and hands the policy what it says', async () => {
    const { policyFromConfig } = await import('../../src/accounts/policy-from-config.ts');
    const result = loadConfig({
      configDir: configDir(),
      env: {
        LOYALTY_EARN_ACTIVITIES: '200=9, 0=1, 49.50=7',
        SANDBOX_ACTIVITIES: '1=100,7=250,9=400,21=500',
        REFERRAL_REFERRER_KIND: 'email',
        REFERRAL_REFERRER_DISCOUNT_PATTERN: '^REF-(.+)$',
        REFERRAL_CAMPAIGN_ID: '21',
        CONVERSION_CONFIRM: 'off',
        CONVERSION_PURCHASE_AMOUNT: 'subtotal',
        LOYALTY_UNKNOWN_FAILURE_RETRIES: '2',
        REDEEM_RETURN_ACTIVITIES: '500=21',
        SANDBOX_REPLY_STYLE: 'flat',
      },
    });
    expect(result).toMatchObject({
      ok: true,
      config: {
        LOYALTY_EARN_ACTIVITIES: [
          { from: '0', activityId: '1' },
          { from: '49.50', activityId: '7' },
          { from: '200', activityId: '9' },
        ],
        REDEEM_RETURN_ACTIVITIES: { '500': '21' },
        LOYALTY_UNKNOWN_FAILURE_RETRIES: 2,
        SANDBOX_REPLY_STYLE: 'flat',
      },
    });
    const policy = result.ok ? policyFromConfig(result.config) : undefined;
    expect(policy?.conversion).toEqual({ purchaseAmount: 'subtotal', confirm: false });
    expect(policy?.referral).toMatchObject({
      defaultCampaignId: 21,
      referrer: { kind: 'email', attributeKey: 'loyalty_referrer', landingParam: 'loyalty_referrer' },
    });
    expect(policy?.referral.referrer.discountCodePattern?.firstGroup('ref-anna@example.com')).toBe('anna@example.com');
    expect(policy?.earnBands.map((band) => band.activityId)).toEqual(['1', '7', '9']);
  });

  it('keeps the single activity and confirms conversions by default', () => {
    const result = loadConfig({ configDir: configDir(), env: {} });
    expect(result).toMatchObject({
      ok: true,
      config: {
        CONVERSION_CONFIRM: 'on',
        CONVERSION_PURCHASE_AMOUNT: 'total',
        REFERRAL_REFERRER_KIND: 'code',
        LOYALTY_UNKNOWN_FAILURE_RETRIES: 5,
        SANDBOX_REPLY_STYLE: 'envelope',
      },
    });
    expect(result.ok && result.config.LOYALTY_EARN_ACTIVITIES).toBeUndefined();
  });

  it('reads the Shopify shops the bridge serves, embedded by default', () => {
    const result = loadConfig({
      configDir: configDir(),
      env: { SHOPIFY_SHOPS: 'A-Store.myshopify.com, b.myshopify.com' },
    });
    expect(result).toMatchObject({
      ok: true,
      config: {
        SHOPIFY_SHOPS: ['a-store.myshopify.com', 'b.myshopify.com'],
        SHOPIFY_EMBEDDED: true,
        SHOPIFY_OPEN_INSTALLS: false,
      },
    });
  });

  it('takes a loyalty service on this machine over http, and refuses stores on private addresses unless told otherwise', () => {
    const result = loadConfig({
      configDir: configDir(),
      env: { LOYALTY_BASE_URL: 'http://127.0.0.1:4010', LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b' },
    });
    expect(result).toMatchObject({
      ok: true,
      config: { LOYALTY_BASE_URL: 'http://127.0.0.1:4010', ALLOW_PRIVATE_STORE_ADDRESSES: false },
    });
    expect(loadConfig({ configDir: configDir(), env: { ALLOW_PRIVATE_STORE_ADDRESSES: 'yes' } })).toMatchObject({
      ok: true,
      config: { ALLOW_PRIVATE_STORE_ADDRESSES: true },
    });
  });

  it('treats an empty variable as unset', () => {
    const result = loadConfig({ configDir: configDir(), env: { LOYALTY_BASE_URL: '' } });
    expect(result.ok).toBe(true);
  });

  const bad: Array<[string, Record<string, string>, string]> = [
    ['a port that is not a number', { PORT: 'eighty' }, 'PORT (environment): must be a whole number from 0 to 65535'],
    ['a port out of range', { PORT: '70000' }, 'PORT (environment): must be a whole number from 0 to 65535'],
    [
      'a base URL that is not http',
      { LOYALTY_BASE_URL: 'ftp://x', LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b' },
      'LOYALTY_BASE_URL (environment): must be an http(s) URL',
    ],
    [
      'a real service over plain http, which would carry the API key in clear text',
      { LOYALTY_BASE_URL: 'http://loyalty.example.com', LOYALTY_API_KEY: 'k', LOYALTY_BRAND_ID: 'b' },
      'LOYALTY_BASE_URL (environment): must be an https URL',
    ],
    [
      'a private-address setting that is not true or false',
      { ALLOW_PRIVATE_STORE_ADDRESSES: 'sometimes' },
      'ALLOW_PRIVATE_STORE_ADDRESSES (environment): must be true or false',
    ],
    [
      'a rate limit of zero',
      { LOYALTY_RATE_LIMIT_PER_MINUTE: '0' },
      'LOYALTY_RATE_LIMIT_PER_MINUTE (environment): must be a whole number from 1',
    ],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL (environment): must be one of'],
    ['a short admin token', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN (environment): must be at least 16 characters'],
    [
      'a shop that is not a myshopify domain',
      { SHOPIFY_SHOP: 'https://example.com' },
      'SHOPIFY_SHOP (environment): must look like your-store.myshopify.com',
    ],
    [
      'an earn trigger that is not paid or placed',
      { EARN_TRIGGER: 'shipped' },
      'EARN_TRIGGER (environment): must be paid or placed',
    ],
    [
      'a redeem pattern that is not a regular expression',
      { REDEEM_CODE_PATTERN: '([' },
      'REDEEM_CODE_PATTERN (environment): must be a valid regular expression',
    ],
    [
      'a campaign that is not a number',
      { REFERRAL_DISCOUNT_CAMPAIGNS: 'FRIEND=abc' },
      'REFERRAL_DISCOUNT_CAMPAIGNS (environment): campaign ids must be whole numbers',
    ],
    [
      'a minimum total that is not an amount',
      { MIN_ORDER_TOTAL: '10 EUR' },
      'MIN_ORDER_TOTAL (environment): must be an amount like 10 or 9.99',
    ],
    [
      'a PostgreSQL pool of one connection',
      { DATABASE_POOL_SIZE: '1' },
      'DATABASE_POOL_SIZE (environment): must be a whole number from 2 to 200',
    ],
    [
      'spend bands that are not total=activity',
      { LOYALTY_EARN_ACTIVITIES: '0=1,fifty=7' },
      'LOYALTY_EARN_ACTIVITIES (environment): must be a list like 0=1,50=7,200=9 (order total from which = activity id)',
    ],
    [
      'two bands at the same total',
      { LOYALTY_EARN_ACTIVITIES: '0=1,50=7,50.0=9', SANDBOX_ACTIVITIES: '1=1,7=7,9=9' },
      'LOYALTY_EARN_ACTIVITIES (environment): 50 and 50.0 are the same threshold',
    ],
    [
      'a band whose activity the sandbox lacks',
      { LOYALTY_EARN_ACTIVITIES: '0=1,50=7' },
      'LOYALTY_EARN_ACTIVITIES (environment): activity 7 (from 50) is not one of SANDBOX_ACTIVITIES',
    ],
    [
      'a return activity worth other points in the sandbox',
      { REDEEM_RETURN_ACTIVITIES: '500=1' },
      'REDEEM_RETURN_ACTIVITIES (environment): activity 1 must give 500 points, and SANDBOX_ACTIVITIES gives 100',
    ],
    [
      'a referrer kind the service does not take',
      { REFERRAL_REFERRER_KIND: 'name' },
      'REFERRAL_REFERRER_KIND (environment): must be one of code, unique_code, email, mobile',
    ],
    [
      'a confirm setting that is not on or off',
      { CONVERSION_CONFIRM: 'maybe' },
      'CONVERSION_CONFIRM (environment): must be on or off',
    ],
    [
      'a purchase amount that is neither total nor subtotal',
      { CONVERSION_PURCHASE_AMOUNT: 'net' },
      'CONVERSION_PURCHASE_AMOUNT (environment): must be total or subtotal',
    ],
    [
      'a reply style the sandbox has not',
      { SANDBOX_REPLY_STYLE: 'xml' },
      'SANDBOX_REPLY_STYLE (environment): must be envelope or flat',
    ],
    [
      'a referrer pattern that is not a regular expression',
      { REFERRAL_REFERRER_DISCOUNT_PATTERN: 'REF-(' },
      'REFERRAL_REFERRER_DISCOUNT_PATTERN (environment): must be a valid regular expression',
    ],
    [
      'unbounded retries of undocumented failures',
      { LOYALTY_UNKNOWN_FAILURE_RETRIES: '1000' },
      'LOYALTY_UNKNOWN_FAILURE_RETRIES (environment): must be a whole number from 0 to 100',
    ],
    [
      'a real service with no API key',
      { LOYALTY_BASE_URL: 'https://loyalty.example.com', LOYALTY_BRAND_ID: 'b' },
      'LOYALTY_API_KEY: is required when LOYALTY_BASE_URL is set',
    ],
    [
      'a BigCommerce app without its client secret',
      { BIGCOMMERCE_CLIENT_ID: 'id', PUBLIC_URL: 'https://bridge.example' },
      'BIGCOMMERCE_CLIENT_SECRET: is required with BIGCOMMERCE_CLIENT_ID',
    ],
    [
      'a BigCommerce app without the address of its callbacks',
      { BIGCOMMERCE_CLIENT_ID: 'id', BIGCOMMERCE_CLIENT_SECRET: 's' },
      'PUBLIC_URL: is required with BIGCOMMERCE_CLIENT_ID',
    ],
    [
      'a BigCommerce login URL over plain http',
      { BIGCOMMERCE_LOGIN_URL: 'http://login.example' },
      'BIGCOMMERCE_LOGIN_URL (environment): must be an https URL',
    ],
    [
      'an order-id prefix for a shop with a space',
      { LOYALTY_ORDER_ID_PREFIXES: 'woocommerce:store example=1' },
      'LOYALTY_ORDER_ID_PREFIXES (environment): must be a list like woocommerce=1,bigcommerce=2',
    ],
    [
      'a listed shop that is not a myshopify domain',
      { SHOPIFY_SHOPS: 'a.myshopify.com,shop.example.com' },
      'SHOPIFY_SHOPS (environment): must be shops like your-store.myshopify.com',
    ],
    [
      'an embedded flag that is not true or false',
      { SHOPIFY_EMBEDDED: 'sometimes' },
      'SHOPIFY_EMBEDDED (environment): must be true or false',
    ],
    [
      'an open-installs flag that is not true or false',
      { SHOPIFY_OPEN_INSTALLS: 'maybe' },
      'SHOPIFY_OPEN_INSTALLS (environment): must be true or false',
    ],
    [
      'a Shopify secret with no shop it could ever serve',
      { SHOPIFY_API_SECRET: 'shpss_x' },
      'SHOPIFY_SHOPS (config/default.json): is required with SHOPIFY_API_SECRET',
    ],
  ];
  it.each(bad)('refuses %s with a line naming the key', (_name, env, line) => {
    const errors = errorsOf(loadConfig({ configDir: configDir(), env }));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(line);
  });

  it('takes an order-id prefix for a WooCommerce store in a subdirectory', () => {
    const loaded = loadConfig({
      configDir: configDir(),
      env: { LOYALTY_ORDER_ID_PREFIXES: 'woocommerce:store.example/shop=1,bigcommerce:abc123=2' },
    });
    expect(loaded.ok && loaded.config.LOYALTY_ORDER_ID_PREFIXES).toEqual({
      'woocommerce:store.example/shop': '1',
      'bigcommerce:abc123': '2',
    });
  });

  it('plays the demo store on a first run on this machine alone: not with a public address, nor a production start', () => {
    const demo = (env: Record<string, string>) => {
      const loaded = loadConfig({ configDir: configDir(), env });
      if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
      return runsDemoStore(loaded.config);
    };
    expect(demo({})).toBe(true);
    expect(demo({ NODE_ENV: 'development' })).toBe(true);
    expect(demo({ PUBLIC_URL: 'https://loyalty.example.com' })).toBe(false);
    expect(demo({ NODE_ENV: 'production' })).toBe(false);
    expect(demo({ DEMO_STORE: 'off' })).toBe(false);
    // Half a platform's configuration (an app key, shops, no secret yet) is the operator's: no demo in its place.
    expect(demo({ SHOPIFY_API_KEY: 'real-app-key' })).toBe(false);
    expect(demo({ SHOPIFY_SHOPS: 'real-shop.myshopify.com' })).toBe(false);
    expect(demo({ BIGCOMMERCE_STORES: 'abc123' })).toBe(false);
    expect(demo({ WOOCOMMERCE_CONSUMER_KEY: 'ck_real' })).toBe(false);
  });

  it('gives one line per bad key, all at once', () => {
    const errors = errorsOf(
      loadConfig({ configDir: configDir(), env: { PORT: 'x', SANDBOX_PORT: 'y', LOG_LEVEL: 'z' } }),
    );
    expect(errors.map((line) => line.split(' ')[0])).toEqual(['PORT', 'LOG_LEVEL', 'SANDBOX_PORT']);
  });

  it('never prints a secret value, even a malformed one', () => {
    const secret = 'tok3n-with-secret-VALUE';
    const errors = errorsOf(
      loadConfig({
        configDir: configDir({ SHOPIFY_API_SECRET: 12345 }),
        env: { ADMIN_TOKEN: secret.slice(0, 10), LOYALTY_API_KEY: secret, PORT: secret },
      }),
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

describe('patterns run on every order’s discount codes', () => {
  it.each([
    ['^LOYALTY-(?!TEST)', 'uses lookaround'],
    ['(?<=X)LOYALTY', 'uses lookaround'],
    ['^(\\w)\\1', 'uses a backreference'],
    ['a'.repeat(201), 'must be a regular expression of at most 200 characters'],
    ['(', 'must be a valid regular expression'],
  ])('refuses %s, one line for the key', (pattern, why) => {
    const result = loadConfig({ env: { REDEEM_CODE_PATTERN: pattern } });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toEqual([
        expect.stringMatching(new RegExp(`^REDEEM_CODE_PATTERN \\(environment\\): ${why}`)),
      ]);
  });

  it('takes patterns with repeated repetition, which RE2 runs in linear time', () => {
    expect(
      loadConfig({ env: { REDEEM_CODE_PATTERN: '^(a|a)*$', REFERRAL_REFERRER_DISCOUNT_PATTERN: '(x*)*y' } }).ok,
    ).toBe(true);
  });

  it('takes the patterns loyalty programs use', () => {
    expect(
      loadConfig({
        env: { REDEEM_CODE_PATTERN: '^LOYALTY-\\d+$', REFERRAL_REFERRER_DISCOUNT_PATTERN: '^REF-([A-Z0-9]+)$' },
      }).ok,
    ).toBe(true);
  });
});
