// `npm start` on a fresh clone: the bridge comes up in sandbox mode and all
// five operations answer at /sandbox with the credentials it made for its
// sandbox and keeps in the ledger; a bad setting stops it before it listens.
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import type { SandboxCredentials } from '../../src/sandbox/credentials.ts';
import { runCli, startCli, type RunningCli } from '../helpers/cli-process.ts';
import { raw } from '../helpers/raw-records.ts';

/** What a person finds in the ledger of a running bridge (opened read-only, as `loyalty-bridge status` does). */
async function keptSandboxCredentials(dataDir: string): Promise<SandboxCredentials> {
  const store = new LowdbStore({ dataDir, readOnly: true });
  await store.open();
  const kept = await store.getRecord(raw<SandboxCredentials>('sandbox-credentials'), 'bridge');
  if (!kept) throw new Error(`no sandbox credentials kept in ${dataDir}`);
  return kept;
}

type Envelope = { response: { status: string; data: Record<string, unknown> } };

describe('loyalty-bridge start, with no configuration', () => {
  let bridge: RunningCli;
  const dataDir = mkdtempSync(join(tmpdir(), 'lb-fresh-'));
  let post: (url: string, body: unknown) => Promise<{ status: number; body: Envelope }>;
  beforeAll(async () => {
    bridge = await startCli(['start'], { DATA_DIR: dataDir });
    const { apiKey, brandId } = await keptSandboxCredentials(dataDir);
    const headers = { 'x-api-key': apiKey, 'x-brand-id': brandId, 'content-type': 'application/json' };
    post = async (url, body) => {
      const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Envelope };
    };
  });
  afterAll(async () => {
    await bridge.stop();
  });

  it('is alive', async () => {
    expect((await fetch(`${bridge.url}/healthz`)).status).toBe(200);
  });

  it('serves every operation of the loyalty API at /sandbox', async () => {
    const base = `${bridge.url}/sandbox`;
    const customer = { lp_name: 'Ada', lp_email: 'ada@example.com', lp_mobile: '+447700900123' };
    const calls = [
      await post(`${base}/loyalty/v1/earn/1`, { ...customer, lp_orderid: '1001' }),
      await post(`${base}/loyalty/v1/updatePoints`, { lp_status: 'approve', lp_orderid: '1001' }),
      await post(`${base}/loyalty/v1/redeem`, { lp_points: 40, lp_email: 'ada@example.com' }),
      await post(`${base}/loyalty/v1/transaction`, { lp_type: 'all', lp_email: 'ada@example.com' }),
      await post(`${base}/api/v1/conversion/add`, {
        order_id: '1001',
        campaign_id: 5,
        event: 'sale',
        referrer_code: 'ANNA-7',
        referee_name: 'Grace',
        referee_email: 'grace@example.com',
      }),
      await post(`${base}/api/v1/conversion/confirm`, { order_id: '1001', campaign_id: 5, event: 'sale', status: 1 }),
    ];
    expect(calls.map((call) => [call.status, call.body.response.status])).toEqual(Array(6).fill([200, 'success']));
    expect(calls[3]?.body.response.data.balance).toMatchObject({ approved: 100, redeemed: 40, available: 60 });
  });

  it('refuses a second bridge on the same DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lb-busy-'));
    const first = await startCli(['start'], { DATA_DIR: dataDir });
    try {
      const second = await runCli(['start'], { DATA_DIR: dataDir });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/is in use by another loyalty-bridge process \(pid \d+\)/);
    } finally {
      await first.stop();
    }
  });

  it('starts at once on a DATA_DIR whose bridge was just killed with SIGKILL, every time', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lb-killed-'));
    for (let round = 0; round < 4; round++) {
      const bridge = await startCli(['start'], { DATA_DIR: dataDir });
      // Not waiting for the process to be gone: the kernel lets go of its lock as it dies.
      bridge.child.kill('SIGKILL');
    }
    const last = await startCli(['start'], { DATA_DIR: dataDir });
    expect(await last.stop('SIGTERM')).toBe(0);
  });

  it('starts on a DATA_DIR whose lock file names a live process that is not a bridge (a pid reused after a reboot)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lb-reboot-'));
    writeFileSync(join(dataDir, 'lock'), String(process.pid));
    const bridge = await startCli(['start'], { DATA_DIR: dataDir });
    expect(await bridge.stop('SIGTERM')).toBe(0);
  });

  it('stops with exit code 0 on SIGTERM', async () => {
    const other = await startCli(['start'], {});
    expect(await other.stop('SIGTERM')).toBe(0);
  });
});

describe('loyalty-bridge sandbox', () => {
  it('serves the sandbox alone', async () => {
    const sandbox = await startCli(['sandbox'], { SANDBOX_API_KEY: 'alone-key', SANDBOX_BRAND_ID: 'alone-brand' });
    try {
      const response = await fetch(`${sandbox.url}/api/v1/conversion/add`, {
        method: 'POST',
        headers: { 'x-api-key': 'alone-key', 'x-brand-id': 'alone-brand', 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: '1', campaign_id: 1, referrer_code: 'ANNA-7' }),
      });
      expect(response.status).toBe(200);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('a bad configuration', () => {
  it('stops start-up with a non-zero exit, one line per bad key, before anything listens', async () => {
    const result = await runCli(['start'], {
      PORT: 'eighty',
      LOYALTY_RATE_LIMIT_PER_MINUTE: '-5',
      ADMIN_TOKEN: 'hunter2',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT (environment): must be a whole number from 0 to 65535');
    expect(result.stderr).toContain('LOYALTY_RATE_LIMIT_PER_MINUTE (environment): must be a whole number from 1');
    expect(result.stderr).toContain('ADMIN_TOKEN (environment): must be at least 16 characters');
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stdout).not.toContain('listening');
  });

  it('says what to do when another program listens on its port', async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = other.address() as AddressInfo;
      const result = await runCli(['start'], { PORT: String(port), HOST: '127.0.0.1' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('another program listens on that port; stop it, or choose another');
      expect(result.stderr).toContain('PORT=3001 npm start');
    } finally {
      other.close();
    }
  });

  it('refuses to start on a damaged ledger file, saying which and why', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lb-torn-'));
    mkdirSync(join(dataDir, 'orders'));
    writeFileSync(join(dataDir, 'orders', 'active-000003.json'), '{"orders":{"shopify:a:1":{"key":');
    const result = await runCli(['start'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The ledger file ${join(dataDir, 'orders', 'active-000003.json')} is damaged`);
    expect(result.stdout).not.toContain('listening');
  });

  it.each([
    [['resync', '--platform', 'shopify'], '--since is required'],
    [['resync', '--platform', 'etsy', '--since', '2026-11-01'], '--platform etsy is not supported'],
    [['resync', '--platform', 'shopify', '--since', 'last tuesday'], 'is not a date'],
    [['register', '--colour', 'blue'], "Unknown option '--colour'"],
  ])('answers %j with usage and exit code 2', async (args, message) => {
    const result = await runCli(args, {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('says which settings registration needs', async () => {
    const result = await runCli(['register', '--platform', 'shopify'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'register --platform shopify: set SHOPIFY_API_KEY and SHOPIFY_API_SECRET with SHOPIFY_SHOP',
    );
  });

  it('answers an unknown command with usage and exit code 2', async () => {
    const result = await runCli(['launch'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: loyalty-bridge');
  });
});
