// What the bridge says to people who are not the merchant: its log lines and
// its unauthenticated /metrics. A body that does not parse is never quoted
// into a log line or a dead letter's reason (the parser's own message quotes
// the text around the fault, which may be a customer's e-mail); /metrics
// names no shop unless the operator says it may.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLogger } from '../../src/logger.ts';
import { LoyaltyClient } from '../../src/loyalty/client.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { startCli } from '../helpers/cli-process.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { WOO_ENV, wooHeaders } from '../helpers/woocommerce.ts';

let bridge: RunningBridge | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

describe('a body that does not parse', () => {
  it('is kept as a dead letter whose reason, like every log line, quotes none of it', async () => {
    const lines: string[] = [];
    bridge = await startTestBridge(
      { ...WOO_ENV, RECONCILE_INTERVAL_MINUTES: '0', LOG_LEVEL: 'trace' },
      createLogger({ level: 'trace', destination: { write: (line: string) => void lines.push(line) } }),
    );
    // The fault is the unquoted phone: V8's message quotes the text around it.
    const body = '{"id": 7001, "billing": {"email": "leak.me@example.com", "phone": +44 7700 900123}}';
    const response = await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, {
      method: 'POST',
      headers: wooHeaders('order.updated', body),
      body,
    });
    expect(response.status).toBe(200);
    await bridge.engine.drain();
    const letters = await bridge.engine.store.listDeadLetters();
    const letter = letters.find((candidate) => candidate.topic === 'order.updated');
    expect(letter?.reason).toMatch(/not valid JSON/);
    for (const text of [letter?.reason ?? '', ...lines]) {
      expect(text).not.toContain('leak.me');
      expect(text).not.toContain('7700');
    }
  });
});

describe('what the loyalty service says back', () => {
  it('keeps none of the customer the call sent, however the service quotes it, out of the error a dead letter keeps', async () => {
    // A service that quotes the request in its refusal.
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const sent = JSON.parse(body) as { lp_email: string; lp_mobile: string; lp_name: string };
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            response: {
              status: 'failure',
              message: 'Invalid Source',
              data: { detail: `customer ${sent.lp_name} <${sent.lp_email}> (${sent.lp_mobile}) is blocked` },
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new LoyaltyClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: 'k',
        brandId: 'b',
        maxRetries: 0,
      });
      const error = (await client
        .earn({
          activityId: '1',
          name: 'Ann Echo',
          email: 'ann.echo@example.com',
          mobile: '+12125550142',
          orderId: '5',
        })
        .catch((caught: unknown) => caught)) as Error;
      expect(error.message).toContain('Invalid Source');
      expect(error.message).toContain('is blocked');
      for (const personal of ['Ann Echo', 'ann.echo@example.com', '+12125550142'])
        expect(error.message).not.toContain(personal);
    } finally {
      server.close();
    }
  });
});

describe('the sign-in made for a run', () => {
  it('is never written where logs are collected: with stdout not a terminal it goes to an owner-only file in DATA_DIR', async () => {
    const dataDir = tempDataDir();
    const cli = await startCli(['start'], { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO_STORE: 'off' });
    try {
      const file = join(dataDir, 'sign-in-link.txt');
      await eventually(() => expect(existsSync(file)).toBe(true));
      const link = /#token=([\w-]+)/.exec(readFileSync(file, 'utf8'))?.[1];
      expect(link).toBeTruthy();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await eventually(() => expect(cli.output()).toContain(file));
      expect(cli.output()).not.toContain(link);
    } finally {
      await cli.stop();
    }
  });
});

describe('/metrics', () => {
  const health = (shop: string) => ({
    platform: 'woocommerce',
    shop,
    checkedAt: new Date().toISOString(),
    healthy: 0,
    repaired: [],
    problems: [{ kind: 'disabled' as const, topic: 'order.updated', detail: 'disabled', fix: 'turn it on' }],
  });
  const scrape = async () => (await fetch(`${bridge!.http.localUrl}/metrics`)).text();

  it('names no shop by default: a problem is counted per platform', async () => {
    bridge = await startTestBridge({ RECONCILE_INTERVAL_MINUTES: '0' });
    bridge.metrics.reportSubscriptions(health('merchant-one.example'));
    bridge.metrics.reportSubscriptions(health('merchant-two.example'));
    const text = await scrape();
    expect(text).not.toMatch(/merchant-(one|two)/);
    expect(text).toMatch(/loyalty_bridge_subscription_problems\{platform="woocommerce",kind="disabled"\} 2/);
  });

  it('names each shop when METRICS_SHOP_LABELS=true', async () => {
    bridge = await startTestBridge({ RECONCILE_INTERVAL_MINUTES: '0', METRICS_SHOP_LABELS: 'true' });
    bridge.metrics.reportSubscriptions(health('merchant-one.example'));
    expect(await scrape()).toMatch(
      /loyalty_bridge_subscription_problems\{platform="woocommerce",shop="merchant-one.example",kind="disabled"\} 1/,
    );
  });
});
