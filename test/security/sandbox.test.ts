// Issue 28, item 1: the sandbox holds only what strangers may see. The
// public default credentials (sandbox-key / sandbox-brand, printed in
// config/default.json and docs/configuration.md) open neither the state and controls
// of any sandbox nor the API of the one the bridge serves; the operator's
// admin token opens the state; the standalone sandbox takes the defaults on
// loopback only; a first run still earns, out of the box.
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startBridge, type RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { CLI, startCli } from '../helpers/cli-process.ts';
import { compileCache } from '../helpers/compile-cache.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable } from '../helpers/postgres.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

const PUBLIC = { 'x-api-key': 'sandbox-key', 'x-brand-id': 'sandbox-brand' };
const ADMIN_TOKEN = 'sandbox-lockdown-admin-token-0123456789';
const CUSTOMER = { email: 'real.customer@example.com', phone: '+1 212 555 0177' };

interface Answer {
  status: number;
  text: string;
}

async function call(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

const refused = (answer: Answer) => expect([401, 404]).toContain(answer.status);

describe('the bridge in sandbox mode, a real store connected, on 0.0.0.0, SANDBOX_* set to the public defaults', () => {
  let bridge: RunningBridge;
  let sandboxUrl = '';
  const earnings = () => bridge.sandbox?.store.snapshot().earnings ?? [];

  beforeAll(async () => {
    bridge = await startTestBridge({
      HOST: '0.0.0.0',
      ADMIN_TOKEN,
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      RECONCILE_INTERVAL_MINUTES: '0',
      SANDBOX_API_KEY: 'sandbox-key',
      SANDBOX_BRAND_ID: 'sandbox-brand',
    });
    sandboxUrl = `${bridge.http.localUrl}/sandbox`;
    const body = shopifyOrderJson({ id: '2800000000001', email: CUSTOMER.email, phone: CUSTOMER.phone });
    const delivered = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    expect(delivered.status).toBe(200);
    await eventually(() => expect(earnings().map((earning) => earning.email)).toContain(CUSTOMER.email), 15_000);
  }, 30_000);
  afterAll(async () => {
    await bridge?.stop();
  });

  it('does not show what the sandbox holds to the public defaults', async () => {
    const answer = await call(`${sandboxUrl}/_sandbox/state`, 'GET', PUBLIC);
    refused(answer);
    expect(answer.text).not.toContain(CUSTOMER.email);
  });

  it('does not empty the sandbox for them', async () => {
    refused(await call(`${sandboxUrl}/_sandbox/reset`, 'POST', PUBLIC, {}));
    expect(earnings()).toHaveLength(1);
  });

  it.each([
    ['GET', undefined],
    ['PUT', { latencyMs: 5 }],
  ])('does not let them %s the faults', async (method, body) => {
    refused(await call(`${sandboxUrl}/_sandbox/faults`, method, PUBLIC, body));
    expect(bridge.sandbox?.faults.settings.latencyMs).toBe(0);
  });

  it("does not give them a customer's history through the loyalty API", async () => {
    const answer = await call(`${sandboxUrl}/loyalty/v1/transaction`, 'POST', PUBLIC, {
      lp_type: 'ledger',
      lp_email: CUSTOMER.email,
    });
    refused(answer);
    expect(answer.text).not.toContain(CUSTOMER.email);
    expect(answer.text).not.toContain('Hopper');
  });

  it.each([
    [
      '/loyalty/v1/earn/1',
      { lp_name: 'Mallory', lp_email: 'mallory@example.com', lp_mobile: '+15550100000', lp_orderid: '66' },
    ],
    ['/loyalty/v1/redeem', { lp_points: 10, lp_email: CUSTOMER.email }],
    ['/loyalty/v1/updatePoints', { lp_status: 'cancel', lp_orderid: '2800000000001' }],
    ['/api/v1/conversion/add', { order_id: '66', campaign_id: 1, referrer_code: 'MALLORY' }],
  ])('refuses %s to them, and nothing changes', async (path, body) => {
    const before = JSON.stringify(bridge.sandbox?.store.snapshot());
    refused(await call(`${sandboxUrl}${path}`, 'POST', PUBLIC, body));
    expect(JSON.stringify(bridge.sandbox?.store.snapshot())).toBe(before);
  });

  it("shows the state to the operator's admin token", async () => {
    refused(await call(`${sandboxUrl}/_sandbox/state`, 'GET', { authorization: 'Bearer not-the-admin-token-at-all' }));
    const answer = await call(`${sandboxUrl}/_sandbox/state`, 'GET', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(answer.status).toBe(200);
    expect(
      (JSON.parse(answer.text) as { earnings: Array<{ email: string }> }).earnings.map((earning) => earning.email),
    ).toEqual([CUSTOMER.email]);
  });
});

describe('the credentials the bridge makes for its sandbox', () => {
  it('are not the public ones, and outlive a restart', async () => {
    const dataDir = tempDataDir();
    const first = await startTestBridge({ DATA_DIR: dataDir });
    const made = { ...first.sandbox!.credentials };
    await first.stop();
    expect(made.apiKey).not.toBe('sandbox-key');
    expect(made.apiKey.length).toBeGreaterThanOrEqual(32);
    const again = await startTestBridge({ DATA_DIR: dataDir });
    try {
      expect(again.sandbox!.credentials).toEqual(made);
      const answer = await call(`${again.http.localUrl}/sandbox/_sandbox/state`, 'GET', {
        'x-api-key': made.apiKey,
        'x-brand-id': made.brandId,
      });
      expect(answer.status).toBe(200);
    } finally {
      await again.stop();
    }
  });

  it("are the operator's own when those are not the public ones, and then none are kept", async () => {
    const own = { apiKey: 'operator-own-sandbox-key-4242', brandId: 'operator-brand' };
    const bridge = await startTestBridge({ SANDBOX_API_KEY: own.apiKey, SANDBOX_BRAND_ID: own.brandId });
    try {
      expect(bridge.sandbox!.credentials).toEqual(own);
      expect(await bridge.engine.store.getRecord(raw('sandbox-credentials'), 'bridge')).toBeUndefined();
    } finally {
      await bridge.stop();
    }
  });

  it.skipIf(!postgresAvailable())(
    'are the same for bridges that share one PostgreSQL, however they race to start',
    async () => {
      const database = await freshDatabase();
      const bridges = await Promise.all([
        startTestBridge({ DATABASE_URL: database.url }),
        startTestBridge({ DATABASE_URL: database.url }),
      ]);
      try {
        const [one, two] = bridges.map((bridge) => bridge.sandbox!.credentials);
        expect(one?.apiKey.length).toBeGreaterThanOrEqual(32);
        expect(two).toEqual(one);
      } finally {
        await Promise.all(bridges.map((bridge) => bridge.stop()));
        await database.drop();
      }
    },
    30_000,
  );
});

/** Runs the CLI until it exits, or kills it after `ms` (code null: it kept running). */
function runUntil(
  args: string[],
  env: Record<string, string>,
  ms: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...compileCache(), SANDBOX_PORT: '0', DATA_DIR: tempDataDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('loyalty-bridge sandbox, serving alone', () => {
  it('refuses to start beyond loopback with the public defaults, saying what to set, and starts with credentials of its own', async () => {
    // Refusing takes a node start (3.7 s here with other tests running): killed only well past what a loaded
    // machine takes, since a kill reads as "it kept running".
    const result = await runUntil(['sandbox'], { HOST: '0.0.0.0' }, 30_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'set SANDBOX_API_KEY and SANDBOX_BRAND_ID to credentials of your own, or HOST=127.0.0.1',
    );
    expect(result.stdout).not.toContain('listening');
    const own = await startCli(['sandbox'], {
      HOST: '0.0.0.0',
      SANDBOX_API_KEY: 'developer-own-key-77',
      SANDBOX_BRAND_ID: 'developer-brand',
    });
    expect(await own.stop()).toBe(0);
  }, 60_000);

  it('on loopback takes the public defaults for the API, and keeps its state to the token it gives the person at the terminal', async () => {
    const dataDir = tempDataDir();
    const sandbox = await startCli(['sandbox'], { HOST: '127.0.0.1', DATA_DIR: dataDir });
    try {
      const earned = await call(`${sandbox.url}/loyalty/v1/earn/1`, 'POST', PUBLIC, {
        lp_name: 'Ada',
        lp_email: 'ada@example.com',
        lp_mobile: '+447700900123',
        lp_orderid: '1',
      });
      expect(earned.status).toBe(200);
      const answer = await call(`${sandbox.url}/_sandbox/state`, 'GET', PUBLIC);
      refused(answer);
      expect(answer.text).not.toContain('ada@example.com');
      // Its output is a pipe here, not a terminal: the token is in an owner-only file, never in the log.
      const file = join(dataDir, 'sandbox-token.txt');
      await eventually(() => expect(existsSync(file)).toBe(true));
      const token = /Authorization: Bearer (\S+)/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
      expect(token).not.toBe('');
      expect(sandbox.output()).not.toContain(token);
      const state = await call(`${sandbox.url}/_sandbox/state`, 'GET', { authorization: `Bearer ${token}` });
      expect(state.status).toBe(200);
      expect(state.text).toContain('ada@example.com');
      // A page in the developer's browser reaching it through a name that resolves to 127.0.0.1 (DNS rebinding): refused.
      const { port } = new URL(sandbox.url);
      const rebound = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/loyalty/v1/transaction',
            headers: {
              host: `rebind.attacker.example:${port}`,
              'content-type': 'application/json',
              'x-api-key': PUBLIC['x-api-key'],
              'x-brand-id': PUBLIC['x-brand-id'],
            },
          },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ lp_email: 'ada@example.com', lp_type: 'all' }));
      });
      expect(rebound).toBe(421);
    } finally {
      await sandbox.stop();
    }
  }, 30_000);
});

describe('a first run: npm start on a fresh machine', () => {
  let bridge: RunningBridge;
  beforeAll(async () => {
    const loaded = loadConfig({ env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' } });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    bridge = await startBridge(loaded.config, createLogger({ level: 'silent' }), { demoPaceMs: 100 });
  });
  afterAll(async () => {
    await bridge?.stop();
  });

  it('still earns, into a sandbox that only the operator reads', async () => {
    // The demo's Shopify shop earns on a trial account of its own on this sandbox.
    const link = (await bridge.accounts.links()).find(({ platform }) => platform === 'shopify');
    const record = await bridge.accounts.get(link!.account);
    const held = bridge.sandbox!.accounts.find(({ credentials }) => credentials.brandId === record!.brandId)!;
    await eventually(() => expect(held.store.snapshot().earnings.length).toBeGreaterThan(0), 30_000);
    const sandboxUrl = `${bridge.http.localUrl}/sandbox`;
    refused(await call(`${sandboxUrl}/_sandbox/state`, 'GET', PUBLIC));
    const token = new URL(bridge.signInUrl!).hash.replace('#token=', '');
    const state = await call(`${sandboxUrl}/_sandbox/state`, 'GET', { authorization: `Bearer ${token}` });
    expect(state.status).toBe(200);
    // The dashboard's view of a customer's points: the admin API, through the bridge's own client for that account.
    const email = held.store.snapshot().earnings[0]!.email;
    const points = await call(
      `${bridge.http.localUrl}/admin/api/customers/points?account=${link!.account}&email=${encodeURIComponent(email)}`,
      'GET',
      { authorization: `Bearer ${token}` },
    );
    expect(points.status).toBe(200);
  }, 45_000);
});
