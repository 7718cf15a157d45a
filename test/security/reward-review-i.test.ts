// Review I of issue 64's reward money, as an attacker of the storefront would look at it, through the whole bridge.
// - I1: accounts on the same service with the same key pool their customers' points (account-pools.ts) and share one
//   budget, by a digest of the service's address and the key. The address was compared as the merchant typed it
//   (only a trailing '/' cut): "https://API.example.com" or "https://api.example.com:443" beside
//   "https://api.example.com" is the same service and key, yet two pools and two budgets. A customer's same points
//   then make a code in each store (review H3 again), and the service sees the key's calls above its limit.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../src/accounts/account-records.ts';
import { saysNeverSeen } from '../../src/core/storefront/customer-ledger.ts';
import type { LoyaltyRejectedError } from '../../src/loyalty/errors.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET } from '../helpers/shopify.ts';

const CREDENTIALS = { apiKey: 'review-i-key-7d41a2', brandId: 'review-i-brand' };

describe('review I of the reward money: one service written two ways', () => {
  let defaultSandbox: TestSandbox;
  let service: TestSandbox;
  let bridge: RunningBridge;
  let first: AccountRecord;

  beforeAll(async () => {
    defaultSandbox = await startTestSandbox({ rateLimit: 100_000 });
    service = await startTestSandbox({ ...CREDENTIALS, rateLimit: 100_000 });
    bridge = await startTestBridge({
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_SHOPS: SHOP,
      LOYALTY_BASE_URL: defaultSandbox.url,
      LOYALTY_API_KEY: 'test-sandbox-key',
      LOYALTY_BRAND_ID: 'test-brand',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: tempDataDir(),
    });
    const created = await bridge.accounts.create(
      { name: 'First store', baseUrl: service.url, ...CREDENTIALS, rateLimitPerMinute: 2 },
      'test',
    );
    if (!created.ok) throw new Error(created.errors.join('\n'));
    first = created.value;
  });
  afterAll(async () => {
    await bridge?.stop();
    await defaultSandbox?.close();
    await service?.close();
  });

  it('I1: pools and budgets a second store whose service address differs only in case from the first’s', async () => {
    // The merchant's second store, its service's address typed with capitals (as "https://API.example.com" is).
    const shouted = service.url.replace(/^http:/, 'HTTP:');
    const twin = await bridge.accounts.create(
      { name: 'Second store', baseUrl: shouted, ...CREDENTIALS, rateLimitPerMinute: 2 },
      'test',
    );
    if (!twin.ok) throw new Error(twin.errors.join('\n'));
    const [one, two] = [await bridge.accounts.runtime(first.id), await bridge.accounts.runtime(twin.value.id)];
    // Its calls reach the same service with the same key: the same customers, the same points.
    const read = two!.client.transactions!({ type: 'all', email: 'nobody@example.com' }, { once: true });
    const refused = await read.then(
      () => undefined,
      (error: LoyaltyRejectedError) => error,
    );
    expect(refused && saysNeverSeen(refused)).toBe(true);
    // One pool: the second store's reward codes are held beside the first's, so the same points make one code.
    expect(await two!.pool()).toEqual({ holder: first.id, members: [first.id, twin.value.id] });
    // One budget: the first store spends the key's two calls of the minute; the second has none left either.
    one!.reserveCall?.();
    one!.reserveCall?.();
    expect(two!.reserveCall?.()).toMatchObject({ spent: true });
  });
});
