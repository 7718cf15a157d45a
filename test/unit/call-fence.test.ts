// The client checks its caller's fence after the rate limiter's wait, right
// before an attempt leaves: a right lost while waiting sends nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoyaltyClient } from '../../src/loyalty/client.ts';

let server: Server;
let requests = 0;
let url: string;
beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ response: { data: {}, message: 'ok', status: 'success' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () =>
  new LoyaltyClient({ baseUrl: url, apiKey: 'key', brandId: 'brand', maxRetries: 0, rateLimitPerMinute: 10_000 });

describe('the call fence', () => {
  it('stops an attempt whose fence closed while it waited in the rate limiter, before anything is sent', async () => {
    const loyalty = client();
    loyalty.limiter.holdFor(300);
    let open = true;
    const before = requests;
    const call = loyalty.updatePoints(
      { status: 'approve', orderId: '1' },
      {
        fence: () => {
          if (!open) throw new Error('lease lost');
        },
      },
    );
    open = false;
    await expect(call).rejects.toThrow('lease lost');
    expect(requests).toBe(before);
  });

  it('lets an attempt go while its fence is open, and calls without a fence are not held to one', async () => {
    const loyalty = client();
    const before = requests;
    await loyalty.updatePoints({ status: 'approve', orderId: '1' }, { fence: () => undefined });
    await loyalty.updatePoints({ status: 'approve', orderId: '2' });
    expect(requests).toBe(before + 2);
  });
});
