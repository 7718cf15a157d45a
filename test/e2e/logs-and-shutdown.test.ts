// Logs a person can read and share: a request id on every request, and no
// secret or customer contact detail in any line. And a stop that loses nothing.
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { startCli } from '../helpers/cli-process.ts';
import { startFakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';

describe('logs', () => {
  it('carry a request id and no secret, e-mail or phone number', async () => {
    const lines: string[] = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const secrets = {
      ADMIN_TOKEN: 'ADMIN-SECRET-0123456789-abcdef',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SANDBOX_API_KEY: 'SANDBOX-KEY-SECRET-42',
    };
    const bridge = await startTestBridge(
      { ...secrets, LOG_LEVEL: 'debug' },
      createLogger({ level: 'debug', destination: capture }),
    );
    try {
      const body = shopifyOrderJson({
        id: '9900000000001',
        email: 'private.person@example.com',
        phone: '+1 212 555 0177',
      });
      await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body }),
        body,
      });
      await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: { ...shopifyHeaders({ topic: 'orders/paid', body }), 'X-Shopify-Hmac-Sha256': 'forged' },
        body,
      });
      await fetch(`${bridge.http.localUrl}/admin/api/status`, {
        headers: { authorization: `Bearer ${secrets.ADMIN_TOKEN}` },
      });
      bridge.sandbox?.faults.configure({ forced: { status: 401, count: 1, message: 'Invalid auth' } });
      const second = shopifyOrderJson({ id: '9900000000002', email: 'private.person@example.com' });
      await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body: second }),
        body: second,
      });
      await bridge.engine.drain();
    } finally {
      await bridge.stop();
    }
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of Object.values(secrets)) expect(all).not.toContain(secret);
    expect(all).not.toContain('private.person@example.com');
    expect(all).not.toContain('555 0177');
    expect(all).not.toContain('2125550177');
    const requests = lines.map((line) => JSON.parse(line) as { req?: { id?: string } }).filter((entry) => entry.req);
    expect(requests.length).toBeGreaterThan(0);
    for (const entry of requests) expect(entry.req?.id).toMatch(/^[\w-]{8,}$/);
    expect(all).toMatch(/check LOYALTY_API_KEY and LOYALTY_BRAND_ID/i);
  });
});

describe('graceful shutdown', () => {
  let sandbox: TestSandbox;
  afterAll(() => sandbox?.close());

  it('on SIGTERM finishes the calls under way, flushes the ledger and exits 0; a restart loses nothing', async () => {
    sandbox = await startTestSandbox({ rateLimit: 100_000, faults: { latencyMs: 200 } });
    const dataDir = tempDataDir();
    const env = {
      DATA_DIR: dataDir,
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
      LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
      LOYALTY_RATE_LIMIT_PER_MINUTE: '100000',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_SHOPS: SHOP,
      SHUTDOWN_TIMEOUT_MS: '5000',
    };
    const first = await startCli(['start'], env);
    const ids = Array.from({ length: 8 }, (_, i) => `88000000000${i}`);
    for (const id of ids) {
      const body = shopifyOrderJson({ id });
      const response = await fetch(`${first.url}/webhooks/shopify`, {
        method: 'POST',
        headers: shopifyHeaders({ topic: 'orders/paid', body }),
        body,
      });
      expect(response.status).toBe(200);
    }
    const stopped = Date.now();
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(7_000);

    const second = await startCli(['start'], env);
    try {
      await eventually(() => {
        const earned = new Set(sandbox.store.snapshot().earnings.map((earning) => earning.orderId));
        expect(ids.filter((id) => !earned.has(id))).toEqual([]);
      }, 15_000);
    } finally {
      await second.stop('SIGTERM');
    }
  });

  it('ends within SHUTDOWN_TIMEOUT_MS while a store’s API holds a call unanswered, and exits 0', async () => {
    sandbox ??= await startTestSandbox();
    const bigcommerce = await startFakeBigCommerce({ storeHash: 'hungstore', accessToken: 'hung-token' });
    const release = bigcommerce.hold();
    try {
      const bridge = await startCli(['start'], {
        LOYALTY_BASE_URL: sandbox.url,
        LOYALTY_API_KEY: SANDBOX_CREDENTIALS.apiKey,
        LOYALTY_BRAND_ID: SANDBOX_CREDENTIALS.brandId,
        BIGCOMMERCE_STORE_HASH: 'hungstore',
        BIGCOMMERCE_ACCESS_TOKEN: 'hung-token',
        BIGCOMMERCE_WEBHOOK_SECRET: 'hung-store-header-secret-0123456789',
        BIGCOMMERCE_API_URL: bigcommerce.url,
        SHUTDOWN_TIMEOUT_MS: '1000',
      });
      // The check of the store's hooks at start is under way, and the API answers nothing (its client waits 15 s).
      await eventually(() => expect(bigcommerce.waiting).toBeGreaterThan(0));
      const stopped = Date.now();
      expect(await bridge.stop('SIGTERM')).toBe(0);
      expect(Date.now() - stopped).toBeLessThan(10_000);
      expect(bigcommerce.waiting).toBeGreaterThan(0);
      expect(bridge.output()).toContain('stopping without waiting for work still waiting on a platform');
      expect(bridge.output()).toContain('a reconciliation');
    } finally {
      release();
      await bigcommerce.close();
    }
  });
});
