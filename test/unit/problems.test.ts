// The operator's problems, each with its cause and the fix for that cause: a key refused is put right at the
// service, an address refused is changed here, a service down is waited for; orders of a shop on no account
// are held; a budget spent for minutes on end is told, a busy minute is not.
import { describe, expect, it } from 'vitest';
import type { AccountLoad } from '../../src/accounts/account-load.ts';
import type { AccountRecord } from '../../src/accounts/account-records.ts';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import { emptyLaneCounts } from '../../src/core/lanes.ts';
import { BUDGET_SPENT_LONG_MS } from '../../src/core/worker/account-budgets.ts';
import { operatorProblems, type ProblemParts } from '../../src/http/problems.ts';

const NOW = new Date('2026-11-25T12:00:00Z');

const runtime = (id: string, paused = false) =>
  ({ id, name: `Program ${id}`, authPause: { paused }, pausedRules: [] }) as unknown as AccountRuntime;
const record = (id: string, check: AccountRecord['check']) =>
  ({ id, name: `Program ${id}`, baseUrl: `https://${id}.example`, check }) as AccountRecord;
const load = (id: string, spentSinceMs?: number): AccountLoad => ({
  id,
  name: `Program ${id}`,
  callsLastMinute: 0,
  limitPerMinute: 489,
  budgetSpentUntil: spentSinceMs === undefined ? null : new Date(NOW.getTime() + 30_000).toISOString(),
  budgetSpentSince: spentSinceMs === undefined ? null : new Date(NOW.getTime() - spentSinceMs).toISOString(),
  lanes: emptyLaneCounts(),
  pausedRules: [],
});

function parts(over: Partial<ProblemParts>): ProblemParts {
  return {
    store: {
      listDeadLetters: async () => [],
      getOrder: async () => undefined,
      laneCountsByShop: async () => [],
    },
    runtimes: async () => [],
    records: async () => [],
    accountOf: async () => 'default',
    loads: [],
    spentLongMs: BUDGET_SPENT_LONG_MS,
    now: NOW,
    ...over,
  };
}

describe('the operator’s problems', () => {
  it('tells a key refused from an address refused from a service down, each with its own fix', async () => {
    const at = NOW.toISOString();
    const problems = await operatorProblems(
      parts({
        runtimes: async () => [runtime('default', true), runtime('a'), runtime('b'), runtime('c')],
        records: async () => [
          record('a', { status: 'refused', at, detail: 'Invalid auth' }),
          // As an earlier release saved it: no addressRefused, the refusal's words alone.
          record('b', {
            status: 'unreachable',
            at,
            detail: 'transactions: 10.0.0.5 is not a public internet address (loopback, private or link-local). Give…',
          }),
          record('c', { status: 'unreachable', at, detail: 'transactions: ECONNREFUSED' }),
        ],
      }),
    );
    expect(problems.map(({ kind, account }) => [kind, account])).toEqual([
      ['key_refused', 'default'],
      ['key_refused', 'a'],
      ['address_refused', 'b'],
      ['unreachable', 'c'],
    ]);
    const [byDefault, key, address, down] = problems;
    expect(byDefault!.fix).toMatch(/LOYALTY_API_KEY and LOYALTY_BRAND_ID/);
    expect(key!.fix).toMatch(/Put its API key or brand id right/);
    expect(address!.cause).toMatch(/will not send its calls to https:\/\/b\.example: 10\.0\.0\.5 is not a public/);
    expect(address!.fix).toMatch(/public https address/);
    expect(address!.fix).not.toMatch(/key/);
    expect(down!.cause).toMatch(/could not be reached .*ECONNREFUSED/);
    expect(down!.fix).toMatch(/the service is up/);
  });

  it('holds the orders of a shop on no account, and says where to choose one', async () => {
    const lanes = emptyLaneCounts();
    lanes.live.waiting = 4;
    const problems = await operatorProblems(
      parts({
        store: {
          listDeadLetters: async () => [],
          getOrder: async () => undefined,
          laneCountsByShop: async () => [
            { platform: 'shopify', shop: 'lost.myshopify.com', lanes },
            { platform: 'shopify', shop: 'found.myshopify.com', lanes },
          ],
        },
        accountOf: async (shop) => (shop.shop === 'lost.myshopify.com' ? undefined : 'default'),
      }),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        kind: 'orders_held',
        count: 4,
        cause: expect.stringMatching(/^4 orders of shopify lost\.myshopify\.com are held/),
        fix: expect.stringMatching(/shops link shopify lost\.myshopify\.com/),
      }),
    ]);
  });

  it('tells a budget spent for minutes on end, and not one spent for a moment', async () => {
    const problems = await operatorProblems(
      parts({
        runtimes: async () => [runtime('long'), runtime('short')],
        loads: [load('long', BUDGET_SPENT_LONG_MS + 60_000), load('short', 30_000)],
      }),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        kind: 'budget_spent',
        account: 'long',
        cause: expect.stringMatching(/has used every call it may make a minute for 4 minutes/),
        fix: expect.stringMatching(/Nothing is lost.*raise its calls a minute/),
      }),
    ]);
  });
});
