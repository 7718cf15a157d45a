// The rate limit from both sides: the sandbox refuses call 501 in a minute,
// and our client, however large the burst, never gets that far.
import { afterEach, describe, expect, it } from 'vitest';
import { LoyaltyClient, type AttemptReport } from '../../src/loyalty/client.ts';
import { createRateLimiter } from '../../src/loyalty/rate-limiter.ts';
import { rawPost, SANDBOX_CREDENTIALS, startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';

let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('the sandbox', () => {
  it('serves 500 calls a minute per key, then answers 429 with Retry-After', async () => {
    sandbox = await startTestSandbox();
    const url = `${sandbox.url}/api/v1/conversion/add`;
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const calls = Array.from({ length: 50 }, (_, i) =>
        rawPost(url, { order_id: String(batch * 50 + i), campaign_id: 1, referrer_code: 'ANNA-7' }),
      );
      statuses.push(...(await Promise.all(calls)).map((response) => response.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(500);

    const call501 = await rawPost(url, { order_id: '501', campaign_id: 1, referrer_code: 'ANNA-7' });
    expect(call501.status).toBe(429);
    expect(call501.body.response).toMatchObject({ status: 'failure', message: 'Rate limit exceeded' });
    expect(Number(call501.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(call501.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(sandbox.store.snapshot().conversions).toHaveLength(500);
  });
});

describe('the client', () => {
  it('fires 600 calls at once and all succeed: it never exceeds the limit', async () => {
    // The same limit as the real service, in a window scaled from a minute to 12 s so the test is short. The
    // limiter tolerates one slice of jitter between a call's start here and its arrival there: a twentieth of the
    // window (123 ms at 6 s, which a loaded machine outlasted and got a 429; 245 ms here; 1.2 s for the real minute).
    const windowMs = 12_000;
    sandbox = await startTestSandbox({ rateLimit: 500, rateWindowMs: windowMs });
    const refused: AttemptReport[] = [];
    const client = new LoyaltyClient({
      baseUrl: sandbox.url,
      ...SANDBOX_CREDENTIALS,
      maxRetries: 0, // one 429 would fail its call
      limiter: createRateLimiter({ limit: 500, windowMs }),
      onAttempt: (report) => {
        if (report.outcome !== 'success') refused.push(report);
      },
    });
    const started = Date.now();
    const results = await Promise.allSettled(
      Array.from({ length: 600 }, (_, i) =>
        client.addConversion({
          orderId: String(i),
          campaignId: 1,
          event: 'sale',
          referrer: { kind: 'code', value: 'ANNA-7' },
        }),
      ),
    );
    const elapsed = Date.now() - started;

    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(refused).toEqual([]);
    expect(sandbox.store.snapshot().conversions).toHaveLength(600);
    // More than a window's worth of calls cannot all fit in one window.
    expect(elapsed).toBeGreaterThan(windowMs);
  });
});
