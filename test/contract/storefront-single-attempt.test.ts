// A storefront balance read is one attempt: when the service is busy the customer is asked to try again (or sees
// the balance kept), and the call is not retried outside the storefront's share of the budget. Exact fault
// sequences: nock.
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { alone, type AccountRuntime } from '../../src/core/accounts.ts';
import { StorefrontReader } from '../../src/core/storefront/storefront-reader.ts';
import { createLogger } from '../../src/logger.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';

const BASE = 'https://loyalty.test';
const PATH = '/loyalty/v1/transaction';
const busy = { response: { status: 'failure', message: 'Service unavailable', data: { detail: 'try later' } } };
const figures = {
  response: {
    status: 'success',
    message: 'Success',
    data: { balance: { approved: 300, redeemed: 50, pending: 0, available: 250 }, earned: [], redeemed: [] },
  },
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function storefront() {
  const client = new LoyaltyClient({
    baseUrl: BASE,
    apiKey: 'k',
    brandId: 'b',
    maxRetries: 4,
    minRetryDelayMs: 1,
    maxRetryDelayMs: 2,
    rateLimitPerMinute: 100_000,
  });
  const account = {
    id: 'acct',
    pool: alone('acct'),
    client,
    policy: { pendingDays: 14 },
    reserveCall: () => client.limiter.reserve(),
  } as unknown as AccountRuntime;
  const reader = new StorefrontReader({
    accounts: { forShop: async () => 'acct', runtime: async () => account },
    store: {
      customerOrders: async () => [],
    },
    liveFirst: () => false,
    share: 0.5,
    logger: createLogger({ level: 'silent' }),
  });
  return { reader, account };
}

describe("the storefront's balance read", () => {
  it('asks the customer to try again after one 503, without a second attempt', async () => {
    const first = nock(BASE).post(PATH).query(true).reply(503, busy);
    const retried = nock(BASE).post(PATH).query(true).reply(200, figures);
    const { reader, account } = storefront();
    expect(await reader.points(account, { email: 'ada@example.com' }, { platform: 'testshop', shop: 'acme' })).toEqual({
      ok: false,
      retryAfterSeconds: 30,
    });
    expect(first.isDone()).toBe(true);
    expect(retried.isDone()).toBe(false);
  });

  it('shows the service figures when its one attempt succeeds', async () => {
    nock(BASE).post(PATH).query(true).reply(200, figures);
    const { reader, account } = storefront();
    expect(
      await reader.points(account, { email: 'ada@example.com' }, { platform: 'testshop', shop: 'acme' }),
    ).toMatchObject({
      ok: true,
      points: { balance: { available: 250, source: 'service' } },
    });
  });
});
