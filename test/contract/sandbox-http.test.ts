// The sandbox as any HTTP caller sees it: raw requests, no client of ours.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxState } from '../../src/sandbox/store.ts';
import { authHeaders, rawPost, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.store.reset();
  sandbox.faults.configure({});
});

const earnBody = { lp_name: 'Ada', lp_email: 'ada@example.com', lp_mobile: '+447700900123' };

describe('parameters', () => {
  it('takes every parameter from the query string', async () => {
    const query = new URLSearchParams({ ...earnBody, lp_orderid: '77', format: 'JSON' });
    const response = await rawPost(`${sandbox.url}/loyalty/v1/earn/1?${query}`, '');
    expect(response.status).toBe(200);
    expect(response.body.response).toMatchObject({
      status: 'success',
      data: { earning: { orderId: '77', points: 100 } },
    });
  });

  it('keeps the digits of an order id sent as a JSON number above 2^53', async () => {
    const body = `{"lp_name":"Ada","lp_email":"ada@example.com","lp_mobile":"+447700900123","lp_orderid":9007199254740993123}`;
    await rawPost(`${sandbox.url}/loyalty/v1/earn/1`, body);
    expect(sandbox.store.snapshot().earnings[0]?.orderId).toBe('9007199254740993123');
  });

  it('answers in JSON with format=JSON and refuses another format', async () => {
    const ok = await rawPost(`${sandbox.url}/loyalty/v1/transaction?format=JSON`, {
      lp_type: 'all',
      lp_email: 'nobody@example.com',
    });
    expect(ok.headers.get('content-type')).toContain('application/json');
    const xml = await rawPost(`${sandbox.url}/loyalty/v1/transaction?format=XML`, {
      lp_type: 'all',
      lp_email: 'a@example.com',
    });
    expect(xml.status).toBe(400);
    expect(xml.body.response.data.detail).toBe('format must be JSON');
  });
});

describe('refusals', () => {
  const cases: Array<{
    name: string;
    path: string;
    body: unknown;
    headers?: Record<string, string>;
    status: number;
    message: string;
    detail: string | RegExp;
  }> = [
    {
      name: 'no credentials',
      path: '/loyalty/v1/redeem',
      body: {},
      headers: { 'content-type': 'application/json' },
      status: 401,
      message: 'Invalid auth',
      detail: /required/,
    },
    {
      name: 'a wrong API key',
      path: '/loyalty/v1/redeem',
      body: {},
      headers: authHeaders({ 'x-api-key': 'wrong' }),
      status: 401,
      message: 'Invalid auth',
      detail: /unknown/,
    },
    {
      name: 'a wrong brand',
      path: '/loyalty/v1/redeem',
      body: {},
      headers: authHeaders({ 'x-brand-id': 'other' }),
      status: 401,
      message: 'Invalid auth',
      detail: /unknown/,
    },
    {
      name: 'an unknown path',
      path: '/loyalty/v1/nope',
      body: {},
      status: 402,
      message: 'Invalid URL',
      detail: 'unknown path POST /loyalty/v1/nope',
    },
    {
      name: 'an unknown activity',
      path: '/loyalty/v1/earn/42',
      body: earnBody,
      status: 402,
      message: 'Invalid URL',
      detail: 'unknown activity 42',
    },
    {
      name: 'a missing name',
      path: '/loyalty/v1/earn/1',
      body: { ...earnBody, lp_name: undefined },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_name is required',
    },
    {
      name: 'a missing e-mail',
      path: '/loyalty/v1/earn/1',
      body: { ...earnBody, lp_email: undefined },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_email is required',
    },
    {
      name: 'a missing mobile',
      path: '/loyalty/v1/earn/1',
      body: { ...earnBody, lp_mobile: undefined },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_mobile is required',
    },
    {
      name: 'a malformed mobile',
      path: '/loyalty/v1/earn/1',
      body: { ...earnBody, lp_mobile: 'call me' },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_mobile must be a phone number of 7 to 15 digits',
    },
    {
      name: 'a non-integer order id',
      path: '/loyalty/v1/earn/1',
      body: { ...earnBody, lp_orderid: '#1001' },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_orderid must be an integer',
    },
    {
      name: 'points that are not an integer',
      path: '/loyalty/v1/redeem',
      body: { lp_points: 1.5, lp_email: 'a@example.com' },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_points must be an integer',
    },
    {
      name: 'a redeem with no customer',
      path: '/loyalty/v1/redeem',
      body: { lp_points: 5 },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_email or lp_mobile is required',
    },
    {
      name: 'an unknown transaction type',
      path: '/loyalty/v1/transaction',
      body: { lp_type: 'some', lp_email: 'a@example.com' },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_type must be one of earn, redeem, all, ledger',
    },
    {
      name: 'an unknown status',
      path: '/loyalty/v1/updatePoints',
      body: { lp_status: 'approved', lp_orderid: '1' },
      status: 400,
      message: 'Invalid Source',
      detail: 'lp_status must be one of approve, cancel',
    },
    {
      name: 'a conversion with no campaign',
      path: '/api/v1/conversion/add',
      body: { order_id: '1', referrer_code: 'A' },
      status: 400,
      message: 'Invalid Source',
      detail: 'campaign_id is required',
    },
    {
      name: 'a body that is not JSON',
      path: '/loyalty/v1/redeem',
      body: '{"lp_points": ',
      status: 400,
      message: 'Invalid Source',
      detail: /not valid JSON/,
    },
    {
      name: 'a JSON array body',
      path: '/loyalty/v1/redeem',
      body: '[1]',
      status: 400,
      message: 'Invalid Source',
      detail: 'the body must be a JSON object',
    },
  ];

  for (const testCase of cases) {
    it(`answers ${testCase.status} ${testCase.message} for ${testCase.name}`, async () => {
      const response = await rawPost(
        `${sandbox.url}${testCase.path}`,
        testCase.body,
        testCase.headers ?? authHeaders(),
      );
      expect(response.status).toBe(testCase.status);
      expect(response.body.response).toMatchObject({ status: 'failure', message: testCase.message });
      if (typeof testCase.detail === 'string') expect(response.body.response.data.detail).toBe(testCase.detail);
      else expect(response.body.response.data.detail).toMatch(testCase.detail);
      expect(sandbox.store.snapshot().earnings).toHaveLength(0);
    });
  }

  it('answers 402 for a GET on an operation', async () => {
    const response = await fetch(`${sandbox.url}/loyalty/v1/redeem`, { headers: authHeaders() });
    expect(response.status).toBe(402);
  });

  it('answers 413 for a body over the limit', async () => {
    const response = await rawPost(`${sandbox.url}/loyalty/v1/redeem`, {
      lp_points: 1,
      padding: 'x'.repeat(1_100_000),
    });
    expect(response.status).toBe(413);
  });
});

describe('state and fault injection', () => {
  it('shows everything it holds at /_sandbox/state, behind the same credentials', async () => {
    await rawPost(`${sandbox.url}/loyalty/v1/earn/1`, { ...earnBody, lp_orderid: '8001' });
    await rawPost(`${sandbox.url}/api/v1/conversion/add`, {
      order_id: '8001',
      campaign_id: 3,
      referrer_code: 'ANNA-7',
    });
    const denied = await fetch(`${sandbox.url}/_sandbox/state`);
    expect(denied.status).toBe(401);
    const state = (await (
      await fetch(`${sandbox.url}/_sandbox/state`, { headers: authHeaders() })
    ).json()) as SandboxState;
    expect(state.earnings).toMatchObject([
      {
        activityId: '1',
        orderId: '8001',
        name: 'Ada',
        email: 'ada@example.com',
        mobile: '+447700900123',
        description: null,
        points: 100,
        status: 'pending',
      },
    ]);
    expect(state.earnings[0]).toHaveProperty('createdAt');
    expect(state.earnings[0]).toHaveProperty('updatedAt');
    expect(state.conversions).toMatchObject([{ campaignId: 3, orderId: '8001', status: 'pending' }]);
    expect(state.redemptions).toEqual([]);
  });

  it('forces a status for the next calls through an authenticated call, then behaves again', async () => {
    const set = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'PUT',
      headers: authHeaders(),
      body: JSON.stringify({ forced: { status: 429, count: 2, retryAfterSeconds: 3 } }),
    });
    expect(set.status).toBe(200);
    const first = await rawPost(`${sandbox.url}/api/v1/conversion/add`, {
      order_id: '1',
      campaign_id: 1,
      referrer_code: 'ANNA-7',
    });
    const second = await rawPost(`${sandbox.url}/api/v1/conversion/add`, {
      order_id: '1',
      campaign_id: 1,
      referrer_code: 'ANNA-7',
    });
    const third = await rawPost(`${sandbox.url}/api/v1/conversion/add`, {
      order_id: '1',
      campaign_id: 1,
      referrer_code: 'ANNA-7',
    });
    expect([first.status, second.status, third.status]).toEqual([429, 429, 200]);
    expect(first.headers.get('retry-after')).toBe('3');
  });

  it('can fail after the change was made, the case that makes retries dangerous', async () => {
    sandbox.faults.configure({ failureRate: 1, failureStatus: 502, failurePhase: 'after' });
    const response = await rawPost(`${sandbox.url}/loyalty/v1/earn/1`, { ...earnBody, lp_orderid: '8002' });
    expect(response.status).toBe(502);
    expect(sandbox.store.snapshot().earnings).toHaveLength(1);
  });

  it('adds latency to every call', async () => {
    sandbox.faults.configure({ latencyMs: 300 });
    const started = performance.now();
    await rawPost(`${sandbox.url}/api/v1/conversion/add`, { order_id: '1', campaign_id: 1, referrer_code: 'ANNA-7' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('refuses fault settings it does not understand', async () => {
    const response = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'PUT',
      headers: authHeaders(),
      body: JSON.stringify({ failureRate: 3 }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain('failureRate');
  });
});
