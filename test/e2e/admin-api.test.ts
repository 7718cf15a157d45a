// The admin API's door, and the reconciliation status behind it.
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { WOO_SECRET, WOO_SITE, wooOrderJson } from '../helpers/woocommerce.ts';

const TOKEN = 'admin-token-for-tests-0123456789';

describe('with ADMIN_TOKEN set', () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    bridge = await startTestBridge({
      ADMIN_TOKEN: TOKEN,
      WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
      WOOCOMMERCE_URL: WOO_SITE,
      WOOCOMMERCE_CONSUMER_KEY: 'ck_test',
      WOOCOMMERCE_CONSUMER_SECRET: 'cs_test',
      RECONCILE_INTERVAL_MINUTES: '0',
    });
  });
  afterAll(async () => {
    await bridge.stop();
    nock.cleanAll();
    nock.enableNetConnect();
  });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${bridge.http.localUrl}/admin/api${path}`, { headers });

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer admin-token-for-tests-0123456788' }],
    ['the token without Bearer', { authorization: TOKEN }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('refuses %s with 401', async (_name, headers) => {
    const response = await get('/reconciliation', headers);
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain(TOKEN);
  });

  it("shows each platform's last reconciliation: window, counts, errors", async () => {
    nock(WOO_SITE).get('/wp-json/wc/v3/orders').query(true).reply(200, `[${wooOrderJson({ id: 1, status: 'processing' })}]`, { 'X-WP-TotalPages': '1' });
    await bridge.reconciler.run('woocommerce');
    const response = await get('/reconciliation', { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { platforms: Record<string, { highWaterMark: string; lastRun: Record<string, unknown> }> };
    expect(body.platforms.woocommerce?.lastRun).toMatchObject({ fetched: 1, changed: 1, failed: 0, errors: [] });
    expect(body.platforms.woocommerce?.highWaterMark).toBeTruthy();
  });
});

describe('without ADMIN_TOKEN', () => {
  it('answers 404: admin is off', async () => {
    const bridge = await startTestBridge();
    try {
      const response = await fetch(`${bridge.http.localUrl}/admin/api/reconciliation`, { headers: { authorization: 'Bearer anything-at-all-long' } });
      expect(response.status).toBe(404);
    } finally {
      await bridge.stop();
    }
  });
});
