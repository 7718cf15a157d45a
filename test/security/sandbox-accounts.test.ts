// Issue 32, item 9, as deployed: the sandbox the bridge serves at /sandbox in
// sandbox mode takes more accounts at run time, but only from the operator's
// admin token or its own credentials: the public defaults (sandbox-key /
// sandbox-brand, printed in docs/configuration.md) add none, read none, and an added
// account's credentials reach only that account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';

const PUBLIC = { 'x-api-key': 'sandbox-key', 'x-brand-id': 'sandbox-brand' };
const ADMIN_TOKEN = 'sandbox-accounts-lockdown-token-0123456789';
const ada = { lp_name: 'Ada', lp_email: 'ada@example.com', lp_mobile: '+447700900123' };

async function call(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

describe("the bridge's sandbox, SANDBOX_* set to the public defaults", () => {
  let bridge: RunningBridge;
  let sandboxUrl = '';

  beforeAll(async () => {
    bridge = await startTestBridge({
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
      SANDBOX_API_KEY: 'sandbox-key',
      SANDBOX_BRAND_ID: 'sandbox-brand',
    });
    sandboxUrl = `${bridge.http.localUrl}/sandbox`;
  }, 30_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it('adds no account for the public defaults, nor for no credentials', async () => {
    for (const headers of [PUBLIC, {}]) {
      const answer = await call(`${sandboxUrl}/_sandbox/accounts`, 'POST', headers, {
        apiKey: 'the-strangers-own-key-0123456789',
        brandId: 'stranger',
      });
      expect(answer.status).toBe(401);
    }
    expect(bridge.sandbox?.accounts).toHaveLength(1);
  });

  it("adds one for the operator's admin token, whose credentials reach only their own account", async () => {
    const created = await call(
      `${sandboxUrl}/_sandbox/accounts`,
      'POST',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      {},
    );
    expect(created.status).toBe(201);
    const { apiKey, brandId } = created.body.account as { apiKey: string; brandId: string };
    const own = { 'x-api-key': apiKey, 'x-brand-id': brandId };
    expect((await call(`${sandboxUrl}/loyalty/v1/earn/1`, 'POST', own, { ...ada, lp_orderid: '1' })).status).toBe(200);

    // The bridge's own account holds none of it, and the added account sees none of the bridge's.
    expect(bridge.sandbox?.store.snapshot().earnings).toEqual([]);
    const state = await call(`${sandboxUrl}/_sandbox/state`, 'GET', own);
    expect(state.body.earnings).toMatchObject([{ orderId: '1', email: ada.lp_email }]);
    expect(state.body).not.toHaveProperty('accounts');
    // It changes nothing sandbox-wide.
    expect((await call(`${sandboxUrl}/_sandbox/accounts`, 'POST', own, {})).status).toBe(403);
    expect((await call(`${sandboxUrl}/_sandbox/faults`, 'PUT', own, { failureRate: 1 })).status).toBe(403);
    // The public defaults still see nothing.
    const peek = await call(`${sandboxUrl}/_sandbox/state`, 'GET', PUBLIC);
    expect(peek.status).toBe(401);
    expect(peek.text).not.toContain(ada.lp_email);
  });
});
