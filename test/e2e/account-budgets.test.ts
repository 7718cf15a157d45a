// Issue 33 through the whole bridge, on both backends: account B allows two
// calls a minute, and its shop sends five paid orders (signed Shopify
// deliveries). Its budget is spent after the first call; meanwhile an order
// of the default account's shop earns at once, and the operator sees, per
// account, in status, the accounts API and /metrics: calls against the
// limit, the budget spent and until when, and the work waiting per lane.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountLoad } from '../../src/accounts/account-load.ts';
import type { AccountRecord } from '../../src/accounts/account-records.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { postShopifyOrder, SHOP, SHOPIFY_SECRET } from '../helpers/shopify.ts';

const SHOP_B = 'budget-merchant-b.myshopify.com';
const ADMIN_TOKEN = 'budgets-test-admin-token-0123456789';
const B_CREDENTIALS = { apiKey: 'budget-b-key-5c2e0d', brandId: 'budget-b-brand' };

function budgetsSuite(backend: 'lowdb' | 'postgres') {
  let defaultSandbox: TestSandbox;
  let sandboxB: TestSandbox;
  let bridge: RunningBridge;
  let accountB: AccountRecord;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    database = backend === 'postgres' ? await freshDatabase() : undefined;
    defaultSandbox = await startTestSandbox({ rateLimit: 100_000 });
    sandboxB = await startTestSandbox({ ...B_CREDENTIALS, rateLimit: 100_000 });
    bridge = await startTestBridge({
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_SHOPS: SHOP,
      SHOPIFY_OPEN_INSTALLS: 'true',
      LOYALTY_BASE_URL: defaultSandbox.url,
      LOYALTY_API_KEY: 'test-sandbox-key',
      LOYALTY_BRAND_ID: 'test-brand',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: tempDataDir(),
      ADMIN_TOKEN,
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
    const created = await bridge.accounts.create(
      { name: 'Merchant B', baseUrl: sandboxB.url, ...B_CREDENTIALS, rateLimitPerMinute: 2 },
      'test',
    );
    if (!created.ok) throw new Error(created.errors.join('\n'));
    accountB = created.value;
    await bridge.accounts.link({ platform: 'shopify', shop: SHOP_B }, accountB.id, 'test');
  });
  afterAll(async () => {
    await bridge?.stop();
    await defaultSandbox?.close();
    await sandboxB?.close();
    await database?.drop();
  });

  const deliver = async (shop: string, id: string) =>
    expect((await postShopifyOrder(bridge.http.localUrl, shop, id)).body.result).toBe('accepted');
  const admin = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${bridge.http.localUrl}${path}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(200);
    return (path === '/metrics' ? await response.text() : await response.json()) as T;
  };
  const earnedAt = (sandbox: TestSandbox, prefix: string) =>
    sandbox.store.snapshot().earnings.filter((earning) => earning.orderId?.startsWith(prefix));

  describe(`one account’s spent budget, seen and not felt by the other (${backend})`, () => {
    it('earns the other account’s order at once and shows B’s budget, calls and waiting orders', async () => {
      for (let i = 1; i <= 5; i++) await deliver(SHOP_B, `74100000000${i}`);
      await eventually(() => expect(earnedAt(sandboxB, '74100000000')).toHaveLength(1));
      await eventually(async () => {
        const { accounts } = await admin<{ accounts: AccountLoad[] }>('/admin/api/status');
        const b = accounts.find((account) => account.id === accountB.id);
        expect(b).toMatchObject({ name: 'Merchant B', callsLastMinute: 1 });
        expect(b?.budgetSpentUntil).not.toBeNull();
        expect(b?.lanes.live.waiting).toBe(4);
      });

      await deliver(SHOP, '7400000000099');
      await eventually(() => expect(earnedAt(defaultSandbox, '7400000000099')).toHaveLength(1), 3_000);
      // B's next call is half a minute away: its orders wait, none went to the default account.
      expect(earnedAt(sandboxB, '74100000000')).toHaveLength(1);
      expect(earnedAt(defaultSandbox, '74100000000')).toHaveLength(0);

      const { accounts } = await admin<{ accounts: Array<{ id: string; health: Record<string, unknown> }> }>(
        '/admin/api/accounts',
      );
      const health = accounts.find((account) => account.id === accountB.id)?.health;
      expect(health).toMatchObject({ callsLastMinute: 1, lanes: { live: { waiting: 4 } } });
      expect(health?.budgetSpentUntil).toEqual(expect.any(String));
      expect(accounts.find((account) => account.id === 'default')?.health).toMatchObject({
        budgetSpentUntil: null,
        lanes: { live: { waiting: 0 }, backfill: { waiting: 0 } },
      });

      const metrics = await admin<string>('/metrics');
      expect(metrics).toContain(`loyalty_bridge_account_budget_spent{account="${accountB.id}"} 1`);
      expect(metrics).toContain('loyalty_bridge_account_budget_spent{account="default"} 0');
      expect(metrics).toContain(`loyalty_bridge_account_calls_last_minute{account="${accountB.id}"} 1`);
      expect(metrics).toMatch(
        new RegExp(`loyalty_bridge_account_limit_per_minute\\{account="${accountB.id}"\\} [12]\\n`),
      );
      expect(metrics).toMatch(/loyalty_bridge_account_due\{account="default",lane="live"\} 0/);
      // No key, and no customer's e-mail, in what the operator's tools show of the accounts.
      const shown = [
        metrics,
        JSON.stringify(await admin('/admin/api/status')),
        JSON.stringify(await admin('/admin/api/accounts')),
      ];
      for (const text of shown) {
        expect(text).not.toContain(B_CREDENTIALS.apiKey);
        expect(text).not.toContain('test-sandbox-key');
        expect(text).not.toMatch(/@example\.(com|org)/);
      }
    });

    it('gives orders asking at once one runtime of the account, whose budget a change of settings does not renew', async () => {
      // A change of settings makes the account's runtime anew.
      expect((await bridge.accounts.setSettings(accountB.id, { LOYALTY_EARN_ACTIVITY_ID: '1' }, 'test')).ok).toBe(true);
      const runtimes = await Promise.all(Array.from({ length: 8 }, () => bridge.accounts.runtime(accountB.id)));
      // Eight runtimes would each have had a limiter of their own, each with a minute's budget to hand out.
      expect(new Set(runtimes).size).toBe(1);
      // B's budget, spent above, is spent still: the limiter is the key's, not the runtime's.
      expect(runtimes[0]?.reserveCall?.()).toMatchObject({ spent: true });
      expect(earnedAt(sandboxB, '74100000000')).toHaveLength(1);
    });

    it('shows another account on B’s service, key and limit as spent too: they share one budget', async () => {
      const twin = await bridge.accounts.create(
        { name: 'Merchant B, second store', baseUrl: sandboxB.url, ...B_CREDENTIALS, rateLimitPerMinute: 2 },
        'test',
      );
      if (!twin.ok) throw new Error(twin.errors.join('\n'));
      const { accounts } = await admin<{ accounts: AccountLoad[] }>('/admin/api/status');
      const spentUntil = (id: string) => accounts.find((account) => account.id === id)?.budgetSpentUntil;
      expect(spentUntil(twin.value.id)).toEqual(expect.any(String));
      expect(spentUntil(twin.value.id)).toBe(spentUntil(accountB.id));
      expect(spentUntil('default')).toBeNull();
      // And one pool of their customers' points: the second store's reward codes go under the first's holders.
      const pool = await (await bridge.accounts.runtime(twin.value.id))!.pool();
      expect(pool).toEqual({ holder: accountB.id, members: [accountB.id, twin.value.id] });
      expect(await (await bridge.accounts.runtime('default'))!.pool()).toEqual({
        holder: 'default',
        members: ['default'],
      });
    });
  });
}

budgetsSuite('lowdb');
if (postgresAvailable()) budgetsSuite('postgres');
else describe.skip('one account’s spent budget (postgres: no server)', () => undefined);
