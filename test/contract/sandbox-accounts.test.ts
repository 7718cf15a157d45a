// Issue 32, item 9: the sandbox serves several accounts, each with its own
// key, brand, activities, rate limit and state, kept apart as the service
// keeps them. Raw HTTP, as any caller of the service sees it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/app.ts';
import { SandboxAccountError } from '../../src/sandbox/accounts.ts';
import type { SandboxState } from '../../src/sandbox/store.ts';
import {
  accountHeaders,
  authHeaders,
  rawPost,
  SANDBOX_CREDENTIALS,
  startTestSandbox,
  type TestSandbox,
} from '../helpers/sandbox-server.ts';

const ADMIN_TOKEN = 'sandbox-accounts-admin-token-0123456789';
const SECOND = { apiKey: 'second-merchant-key-0123456789', brandId: 'second-brand' };
const ada = { lp_name: 'Ada', lp_email: 'ada@example.com', lp_mobile: '+447700900123' };

const FIRST_HEADERS = authHeaders();
const SECOND_HEADERS = accountHeaders(SECOND);
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function control(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('two accounts on one sandbox', () => {
  let sandbox: TestSandbox;
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    rawPost(`${sandbox.url}${path}`, body, headers);
  const history = async (headers: Record<string, string>) =>
    (await post('/loyalty/v1/transaction', { lp_email: ada.lp_email, lp_type: 'all' }, headers)).body.response;

  beforeAll(async () => {
    sandbox = await startTestSandbox({
      adminToken: ADMIN_TOKEN,
      accounts: [{ ...SECOND, activities: { '7': 250 } }],
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    for (const account of sandbox.accounts) account.reset();
  });

  it('serves the configured credentials as the first account, and the other beside it', () => {
    expect(sandbox.accounts.map((account) => account.credentials)).toEqual([SANDBOX_CREDENTIALS, SECOND]);
    expect(sandbox.store).toBe(sandbox.accounts[0]?.store);
  });

  it('earns on each account with its own activities', async () => {
    const first = await post('/loyalty/v1/earn/1', { ...ada, lp_orderid: '1' }, FIRST_HEADERS);
    const second = await post('/loyalty/v1/earn/7', { ...ada, lp_orderid: '1' }, SECOND_HEADERS);
    expect(first.body.response.data.earning.points).toBe(100);
    expect(second.body.response.data.earning.points).toBe(250);
    // Neither has the other's activity: 402, as for any unknown activity.
    expect((await post('/loyalty/v1/earn/7', { ...ada, lp_orderid: '2' }, FIRST_HEADERS)).status).toBe(402);
    expect((await post('/loyalty/v1/earn/1', { ...ada, lp_orderid: '2' }, SECOND_HEADERS)).status).toBe(402);
  });

  it("keeps each account's earnings, redemptions, conversions and history to itself, the same customer and order on both", async () => {
    // The same customer and the same order id on both accounts: two merchants' orders, never one.
    await post('/loyalty/v1/earn/1', { ...ada, lp_orderid: '500' }, FIRST_HEADERS);
    await post('/loyalty/v1/earn/7', { ...ada, lp_orderid: '500' }, SECOND_HEADERS);
    expect(
      (await post('/loyalty/v1/updatePoints', { lp_status: 'approve', lp_orderid: '500' }, FIRST_HEADERS)).status,
    ).toBe(200);
    expect((await post('/loyalty/v1/redeem', { lp_points: 40, lp_email: ada.lp_email }, FIRST_HEADERS)).status).toBe(
      200,
    );
    const conversion = { order_id: '500', campaign_id: 5, referrer_code: 'ANNA-7' };
    expect((await post('/api/v1/conversion/add', conversion, SECOND_HEADERS)).status).toBe(200);

    const first = await history(FIRST_HEADERS);
    expect(first.data.balance).toEqual({ pending: 0, approved: 100, redeemed: 40, available: 60 });
    expect(first.data.earned).toMatchObject([{ orderId: '500', activityId: '1', status: 'approved' }]);
    expect(first.data.redeemed).toMatchObject([{ points: 40 }]);
    const second = await history(SECOND_HEADERS);
    // The first account's approval and redemption did nothing here.
    expect(second.data.balance).toEqual({ pending: 250, approved: 0, redeemed: 0, available: 0 });
    expect(second.data.earned).toMatchObject([{ orderId: '500', activityId: '7', status: 'pending' }]);
    expect(second.data.redeemed).toEqual([]);

    // Nothing the second account holds is reached through the first, nor the other way.
    const redeemOnSecond = await post('/loyalty/v1/redeem', { lp_points: 1, lp_email: ada.lp_email }, SECOND_HEADERS);
    expect(redeemOnSecond.status).toBe(400);
    const confirmOnFirst = await post(
      '/api/v1/conversion/confirm',
      { ...conversion, event: 'sale', status: 1 },
      FIRST_HEADERS,
    );
    expect(confirmOnFirst.body.response.message).toBe('conversion does not exist');
    await post('/loyalty/v1/earn/1', { ...ada, lp_email: 'grace@example.com', lp_orderid: '501' }, FIRST_HEADERS);
    const approveOnSecond = await post(
      '/loyalty/v1/updatePoints',
      { lp_status: 'approve', lp_orderid: '501' },
      SECOND_HEADERS,
    );
    expect(approveOnSecond.status).toBe(400);
    const graceOnSecond = await post(
      '/loyalty/v1/transaction',
      { lp_email: 'grace@example.com', lp_type: 'all' },
      SECOND_HEADERS,
    );
    expect(graceOnSecond.body.response.data.detail).toBe('no customer found for lp_email');

    const [firstStore, secondStore] = sandbox.accounts.map((account) => account.store.snapshot());
    expect(firstStore?.earnings.map((earning) => earning.orderId)).toEqual(['500', '501']);
    expect(firstStore?.conversions).toEqual([]);
    expect(secondStore?.earnings.map((earning) => earning.orderId)).toEqual(['500']);
    expect(secondStore?.redemptions).toEqual([]);
    expect(secondStore?.conversions).toMatchObject([{ orderId: '500', campaignId: 5 }]);
  });

  it("shows an account's own credentials only its state, and the admin token every account's, grouped", async () => {
    await post('/loyalty/v1/earn/1', { ...ada, lp_orderid: '600' }, FIRST_HEADERS);
    await post('/loyalty/v1/earn/7', { ...ada, lp_orderid: '601' }, SECOND_HEADERS);
    const orders = (state: SandboxState) => state.earnings.map((earning) => earning.orderId);

    const own = await control(`${sandbox.url}/_sandbox/state`, 'GET', SECOND_HEADERS);
    expect(own.status).toBe(200);
    expect(own.body).toEqual(sandbox.accounts[1]?.store.snapshot());
    expect(orders(own.body)).toEqual(['601']);
    expect(orders((await control(`${sandbox.url}/_sandbox/state`, 'GET', FIRST_HEADERS)).body)).toEqual(['600']);
    // Naming another account's brand reaches nothing.
    const other = await control(
      `${sandbox.url}/_sandbox/state?account=${SANDBOX_CREDENTIALS.brandId}`,
      'GET',
      SECOND_HEADERS,
    );
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.body)).not.toContain('600');

    const all = await control(`${sandbox.url}/_sandbox/state`, 'GET', ADMIN);
    expect(all.status).toBe(200);
    expect(orders(all.body)).toEqual(['600']);
    expect(
      (all.body.accounts as Array<SandboxState & { brandId: string }>).map((account) => [
        account.brandId,
        orders(account),
      ]),
    ).toEqual([
      [SANDBOX_CREDENTIALS.brandId, ['600']],
      [SECOND.brandId, ['601']],
    ]);
    const one = await control(`${sandbox.url}/_sandbox/state?account=${SECOND.brandId}`, 'GET', ADMIN);
    expect(orders(one.body)).toEqual(['601']);
    expect((await control(`${sandbox.url}/_sandbox/state?account=nobody`, 'GET', ADMIN)).status).toBe(404);
  });

  it("resets only the caller's own account", async () => {
    await post('/loyalty/v1/earn/1', { ...ada, lp_orderid: '700' }, FIRST_HEADERS);
    await post('/loyalty/v1/earn/7', { ...ada, lp_orderid: '701' }, SECOND_HEADERS);
    const reset = await control(`${sandbox.url}/_sandbox/reset`, 'POST', SECOND_HEADERS, {});
    expect(reset).toEqual({ status: 200, body: { reset: true, accounts: [SECOND.brandId] } });
    expect(sandbox.accounts[1]?.store.snapshot().earnings).toEqual([]);
    expect(sandbox.store.snapshot().earnings).toHaveLength(1);
  });

  it('refuses a key and brand pair no account has with 401 Invalid auth, and records nothing', async () => {
    const pairs = [
      accountHeaders({ apiKey: 'no-such-key-0123456789', brandId: SECOND.brandId }),
      // Each half is an account's, but not of the same one.
      accountHeaders({ apiKey: SECOND.apiKey, brandId: SANDBOX_CREDENTIALS.brandId }),
      accountHeaders({ apiKey: SANDBOX_CREDENTIALS.apiKey, brandId: SECOND.brandId }),
    ];
    for (const headers of pairs) {
      const answer = await post('/loyalty/v1/earn/1', { ...ada, lp_orderid: '800' }, headers);
      expect(answer.status).toBe(401);
      expect(answer.body.response).toMatchObject({ status: 'failure', message: 'Invalid auth' });
      expect((await control(`${sandbox.url}/_sandbox/state`, 'GET', headers)).status).toBe(401);
    }
    expect(sandbox.accounts.flatMap((account) => account.store.snapshot().earnings)).toEqual([]);
  });

  it('takes an account added while it runs, by addAccount(), with credentials of its own', async () => {
    const added = sandbox.addAccount({ activities: { '9': 5 } });
    expect(added.credentials.apiKey.length).toBeGreaterThanOrEqual(32);
    expect(added.credentials.brandId).not.toBe(SECOND.brandId);
    const earned = await post('/loyalty/v1/earn/9', { ...ada, lp_orderid: '900' }, accountHeaders(added));
    expect(earned.body.response.data.earning.points).toBe(5);
    expect(added.store.snapshot().earnings).toHaveLength(1);
    expect(() => sandbox.addAccount({ apiKey: SECOND.apiKey })).toThrow(SandboxAccountError);
    expect(() => sandbox.addAccount({ brandId: SECOND.brandId })).toThrow(/another account has this brand id/);
  });
});

describe("each account's own rate limit, counted per API key", () => {
  let sandbox: TestSandbox;
  const earn = (headers: Record<string, string>, order: string) =>
    rawPost(`${sandbox.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: order }, headers);

  beforeAll(async () => {
    sandbox = await startTestSandbox({ rateLimit: 2, accounts: [{ ...SECOND, rateLimitPerMinute: 3 }] });
  });
  afterAll(() => sandbox.close());

  it('refuses one account past its limit with 429 while the other is served, each to its own limit', async () => {
    const second = [];
    for (let call = 1; call <= 4; call++) second.push((await earn(SECOND_HEADERS, `1${call}`)).status);
    expect(second).toEqual([200, 200, 200, 429]);
    const refused = await earn(SECOND_HEADERS, '15');
    expect(refused.status).toBe(429);
    expect(refused.body.response.message).toBe('Rate limit exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The second account's calls spent nothing of the first's.
    const first = [];
    for (let call = 1; call <= 3; call++) first.push((await earn(FIRST_HEADERS, `2${call}`)).status);
    expect(first).toEqual([200, 200, 429]);
    expect(sandbox.accounts.map((account) => account.refusedForRate)).toEqual([1, 2]);
    expect(sandbox.refusedForRate).toBe(3);
    expect(sandbox.accounts.map((account) => account.store.snapshot().earnings.length)).toEqual([2, 3]);
  });
});

describe('adding accounts through /_sandbox/accounts', () => {
  let sandbox: TestSandbox;
  const accountsUrl = () => `${sandbox.url}/_sandbox/accounts`;

  beforeAll(async () => {
    sandbox = await startTestSandbox({ adminToken: ADMIN_TOKEN, accounts: [SECOND] });
  });
  afterAll(() => sandbox.close());

  it('creates an account for the admin token, with random credentials when none are given, that earns at once', async () => {
    const created = await control(accountsUrl(), 'POST', ADMIN, { activities: { '3': 30 }, rateLimitPerMinute: 10 });
    expect(created.status).toBe(201);
    const { apiKey, brandId, activities, rateLimitPerMinute } = created.body.account;
    expect(apiKey.length).toBeGreaterThanOrEqual(32);
    expect({ activities, rateLimitPerMinute }).toEqual({ activities: { '3': 30 }, rateLimitPerMinute: 10 });
    const earned = await rawPost(
      `${sandbox.url}/loyalty/v1/earn/3`,
      { ...ada, lp_orderid: '1' },
      accountHeaders({ apiKey, brandId }),
    );
    expect(earned.body.response.data.earning.points).toBe(30);
    expect(sandbox.accounts.at(-1)?.credentials).toEqual({ apiKey, brandId });

    // Listed by brand and the last four characters of the key, never the key.
    const listed = await control(accountsUrl(), 'GET', ADMIN);
    expect(listed.body.accounts.map((account: { brandId: string }) => account.brandId)).toEqual([
      SANDBOX_CREDENTIALS.brandId,
      SECOND.brandId,
      brandId,
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);
    expect(listed.body.accounts[2]).toMatchObject({ apiKeyEnding: apiKey.slice(-4), rateLimitPerMinute: 10 });
  });

  it("creates one for the sandbox's own credentials, with the key and brand asked for", async () => {
    const asked = { apiKey: 'third-merchant-key-0123456789', brandId: 'third-brand' };
    const created = await control(accountsUrl(), 'POST', FIRST_HEADERS, asked);
    expect(created.status).toBe(201);
    expect(created.body.account).toEqual({ ...asked, activities: { '1': 100 }, rateLimitPerMinute: 500 });
  });

  it("refuses an added account's credentials: accounts and faults are the sandbox's", async () => {
    const before = sandbox.accounts.length;
    expect((await control(accountsUrl(), 'POST', SECOND_HEADERS, {})).status).toBe(403);
    expect((await control(`${sandbox.url}/_sandbox/faults`, 'PUT', SECOND_HEADERS, { failureRate: 1 })).status).toBe(
      403,
    );
    expect(sandbox.faults.settings.failureRate).toBe(0);
    expect(sandbox.accounts).toHaveLength(before);
    // It lists only itself.
    const listed = await control(accountsUrl(), 'GET', SECOND_HEADERS);
    expect(listed.body.accounts.map((account: { brandId: string }) => account.brandId)).toEqual([SECOND.brandId]);
  });

  it('refuses callers without control credentials, before reading the body', async () => {
    const before = sandbox.accounts.length;
    const callers: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer not-the-admin-token' },
      accountHeaders({ apiKey: 'x', brandId: 'y' }),
    ];
    for (const headers of callers) {
      const answer = await control(accountsUrl(), 'POST', headers, { apiKey: 'sneaked-in-key-0123456789' });
      expect(answer.status).toBe(401);
      expect(answer.body.response.message).toBe('Invalid auth');
    }
    expect(sandbox.accounts).toHaveLength(before);
  });

  it('refuses wrong input, the public key, and a key or brand another account has', async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      [{ activities: { '1': -5 } }, 400, /activities/],
      [{ activities: { 'a/b': 5 } }, 400, /activities/],
      [{ rateLimitPerMinute: 0 }, 400, /rateLimitPerMinute/],
      [{ apiKey: 'has spaces in it' }, 400, /apiKey/],
      [{ unknown: true }, 400, /unknown|Unrecognized/i],
      [{ apiKey: 'sandbox-key' }, 400, /public/],
      [{ apiKey: SECOND.apiKey }, 409, /another account has this key/],
      [{ brandId: SECOND.brandId }, 409, /another account has this brand id/],
      [{ brandId: SANDBOX_CREDENTIALS.brandId }, 409, /brand id/],
    ];
    const before = sandbox.accounts.length;
    for (const [body, status, error] of cases) {
      const answer = await control(accountsUrl(), 'POST', ADMIN, body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect(answer.body.error).toMatch(error);
    }
    expect(sandbox.accounts).toHaveLength(before);
  });
});

describe('a sandbox whose own credentials are the public defaults (npm run sandbox on loopback)', () => {
  let sandbox: TestSandbox;
  const PUBLIC = { 'x-api-key': 'sandbox-key', 'x-brand-id': 'sandbox-brand' };

  beforeAll(async () => {
    sandbox = await startTestSandbox({ apiKey: 'sandbox-key', brandId: 'sandbox-brand', adminToken: ADMIN_TOKEN });
  });
  afterAll(() => sandbox.close());

  it('takes them for the API but never to add an account; the admin token adds one', async () => {
    const earned = await rawPost(`${sandbox.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '1' }, authHeaders(PUBLIC));
    expect(earned.status).toBe(200);
    const refused = await control(`${sandbox.url}/_sandbox/accounts`, 'POST', PUBLIC, {
      apiKey: 'mine-now-0123456789',
    });
    expect(refused.status).toBe(401);
    expect(sandbox.accounts).toHaveLength(1);
    const created = await control(`${sandbox.url}/_sandbox/accounts`, 'POST', ADMIN, {});
    expect(created.status).toBe(201);
    // The added account's state is its own, and open to its own credentials; the public ones still see nothing.
    const added = accountHeaders(created.body.account);
    expect((await control(`${sandbox.url}/_sandbox/state`, 'GET', added)).body.earnings).toEqual([]);
    expect((await control(`${sandbox.url}/_sandbox/state`, 'GET', PUBLIC)).status).toBe(401);
  });
});

describe('two accounts on two sandboxes', () => {
  it('each knows only its own account', async () => {
    const one = await startTestSandbox();
    const two = await startTestSandbox({ ...SECOND });
    try {
      expect((await rawPost(`${one.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '1' }, FIRST_HEADERS)).status).toBe(
        200,
      );
      expect((await rawPost(`${two.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '1' }, SECOND_HEADERS)).status).toBe(
        200,
      );
      expect((await rawPost(`${two.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '2' }, FIRST_HEADERS)).status).toBe(
        401,
      );
      expect((await rawPost(`${one.url}/loyalty/v1/earn/1`, { ...ada, lp_orderid: '2' }, SECOND_HEADERS)).status).toBe(
        401,
      );
      expect([one.store.snapshot().earnings.length, two.store.snapshot().earnings.length]).toEqual([1, 1]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('refuses accounts it cannot tell apart when configured, as createSandbox is given them', () => {
    expect(() =>
      createSandbox({ ...SANDBOX_CREDENTIALS, accounts: [{ brandId: SANDBOX_CREDENTIALS.brandId }] }),
    ).toThrow(SandboxAccountError);
  });
});
