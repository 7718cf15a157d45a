// The CLI as a merchant runs it: against a running bridge with --url and the
// admin token, and on DATA_DIR directly.
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli-process.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { WOO_SITE, wooOrderJson, WOO_ENV } from '../helpers/woocommerce.ts';

const TOKEN = 'cli-admin-token-0123456789abcdef';
const dataDir = tempDataDir();
let bridge: RunningBridge;
let url: string;

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  bridge = await startTestBridge({
    DATA_DIR: dataDir,
    ADMIN_TOKEN: TOKEN,
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    ...WOO_ENV,
    RECONCILE_INTERVAL_MINUTES: '0',
  });
  url = bridge.http.localUrl;
  const body = shopifyOrderJson({ id: '7700000000001', email: null, customer: null });
  await fetch(`${url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body }),
    body,
  });
  await bridge.engine.drain(); // the one forced failure is for the next order
  bridge.sandbox?.faults.configure({ forced: { status: 400, count: 1 } });
  const failing = shopifyOrderJson({ id: '7700000000002' });
  await fetch(`${url}/webhooks/shopify`, {
    method: 'POST',
    headers: shopifyHeaders({ topic: 'orders/paid', body: failing }),
    body: failing,
  });
  await bridge.engine.drain();
});
afterAll(async () => {
  await bridge.stop();
  nock.cleanAll();
  nock.enableNetConnect();
});

const remote = (...args: string[]) => runCli([...args, '--url', url, '--token', TOKEN], {});

describe('against a running bridge (--url)', () => {
  it('status shows orders by state and platform, skipped by reason, and dead letters', async () => {
    const result = await remote('status');
    expect(result.code).toBe(0);
    // Each platform by the name a person reads.
    expect(result.stdout).toMatch(/orders by platform\n {2}Shopify\s+2/);
    expect(result.stdout).toMatch(
      /skipped, by reason\n\s+1 {2}This customer gave no e-mail address, .* Fix: .* \(missing_email\)\n/,
    );
    expect(result.stdout).toContain('dead letters: 1');
    // Each of the newest orders with its points as a number: the skipped one earned none.
    expect(result.stdout).toMatch(
      /newest orders, with their points\n(.*\n)*? {2}#0001\s+no points · This customer gave no e-mail address, .*\n/,
    );
    // At the top, with the order's name and the fix.
    expect(result.stdout).toMatch(/^!! 1 dead letter: .*\(order #0002\)\..* Fix what each says, then retry them/m);
  });

  it('lists dead letters and retries one', async () => {
    const list = await remote('dead-letters', 'list');
    expect(list.code).toBe(0);
    const id = /^([0-9a-f-]{36})\s/m.exec(list.stdout)?.[1];
    // The order as the store shows it, its key beside it.
    expect(list.stdout).toMatch(/giving its points for order #0002 \(shopify:[^)]+:7700000000002\)/);
    const retried = await remote('dead-letters', 'retry', id ?? '');
    expect(retried).toMatchObject({ code: 0, stdout: `retried ${id}\n` });
    await bridge.engine.drain();
    expect(bridge.sandbox?.store.snapshot().earnings.some((earning) => earning.orderId === '7700000000002')).toBe(true);
  });

  it('resyncs with plain progress lines when not on a terminal, and exits 0', async () => {
    nock(WOO_SITE)
      .get('/wp-json/wc/v3/orders')
      .query(true)
      .reply(200, `[${wooOrderJson({ id: 7801, status: 'processing' })}]`, { 'X-WP-TotalPages': '1' });
    const result = await remote('resync', '--platform', 'woocommerce', '--since', '2026-11-01');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('resync done: fetched 1, changed 1, unchanged 0, failed 0');
  });

  it('exits 1 with a clear line when the token is wrong', async () => {
    const result = await runCli(['status', '--url', url, '--token', 'not-the-admin-token'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused the admin token');
    expect(result.stderr).not.toContain(TOKEN);
  });

  it('exits 2 on a dead-letters action it does not know', async () => {
    expect((await remote('dead-letters', 'forget')).code).toBe(2);
  });
});

describe('on DATA_DIR', () => {
  it('status reads the ledger directly', async () => {
    const result = await runCli(['status'], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Shopify\s+\d/);
    // The order retried above earned under activity 1, which gives 100 points in the sandbox.
    expect(result.stdout).toMatch(/ {2}#0002\s+earned 100 points, pending\n/);
  });

  it('dead-letters list reads the ledger directly', async () => {
    const result = await runCli(['dead-letters', 'list'], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
  });
});
