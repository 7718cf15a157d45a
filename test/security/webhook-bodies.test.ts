// Unauthenticated requests cost little. A webhook request without its
// platform's signature header is answered 401 before a byte of its body is
// read: the test sends the headers and a little of a large body, and hears
// the answer while most of the body was never sent. WooCommerce's unsigned
// ping still gets 200, and nothing of it is kept. Requests that do carry a
// signature header (free to forge) are read a few at a time, each within a
// deadline, and beyond a bounded queue are told to come back later.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../src/http/listen.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { BC_SECRET } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { WOO_SECRET } from '../helpers/woocommerce.ts';

let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await startTestBridge({
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    WOOCOMMERCE_WEBHOOK_SECRET: WOO_SECRET,
    BIGCOMMERCE_CLIENT_SECRET: BC_SECRET,
    RECONCILE_INTERVAL_MINUTES: '0',
    WEBHOOK_CONCURRENT_READS: '1',
    WEBHOOK_BODY_TIMEOUT_SECONDS: '2',
  });
});
afterAll(() => bridge.stop());

interface Held {
  socket: Socket;
  /** Everything the bridge answered, as text. */
  answer: () => string;
  closed: Promise<void>;
}

/**
 * Sends a request's headers and the first bytes of a body of `length`, and holds the rest back. `halfOpen`: the
 * socket stays writable once the bridge's side ends, as a proxy's does while it still sends a body.
 */
function holdOpen(
  path: string,
  headers: Record<string, string>,
  length: number,
  firstBytes = '{"id": 1, "padding": "',
  halfOpen = false,
): Held {
  const { port } = new URL(bridge.http.localUrl);
  const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: halfOpen });
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const lines = [
    `POST ${path} HTTP/1.1`,
    'host: 127.0.0.1',
    `content-length: ${length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${firstBytes}`);
  return { socket, answer: () => answer, closed };
}

/**
 * Resolves once `count` more requests have reached the bridge. Its handler is the server's 'request' listener
 * before this one, and a webhook's takes its read turn, or its place in the line, before its first wait: by the
 * time this listener hears a request, that request holds its turn or waits in line.
 */
function requestsReached(http: Listening, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onRequest = () => {
      if (++seen < count) return;
      http.server.off('request', onRequest);
      resolve();
    };
    http.server.on('request', onRequest);
  });
}

const waitFor = async (condition: () => boolean, ms = 5_000) => {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('a request without its platform’s signature header', () => {
  it.each([
    [
      'shopify',
      {
        'content-type': 'application/json',
        'x-shopify-topic': 'orders/paid',
        'x-shopify-shop-domain': 'lb-test-store.myshopify.com',
      },
    ],
    [
      'woocommerce',
      {
        'content-type': 'application/json',
        'x-wc-webhook-topic': 'order.updated',
        'x-wc-webhook-source': 'https://shop.example/',
      },
    ],
    ['woocommerce', { 'content-type': 'application/x-www-form-urlencoded' }],
    [
      'bigcommerce',
      {
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      },
    ],
  ])('at /webhooks/%s is answered 401 before its body is read', async (platform, headers) => {
    const held = holdOpen(`/webhooks/${platform}`, headers, 900_000);
    await waitFor(() => held.answer().includes('\r\n\r\n'));
    expect(held.answer()).toMatch(/^HTTP\/1\.1 401 /);
    // The bridge closes the connection: the 900 kB it was promised are never waited for.
    await held.closed;
    expect(held.answer().toLowerCase()).toContain('connection: close');
  });

  it('WooCommerce’s ping when a webhook is saved still gets 200, and nothing is kept', async () => {
    const response = await fetch(`${bridge.http.localUrl}/webhooks/woocommerce`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'webhook_id=31',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ result: 'ignored' });
    expect((await bridge.engine.store.stats()).inboxBacklog).toBe(0);
  });
});

describe('requests that carry a signature header', () => {
  it('are read one at a time here, a few wait, the rest are told to come back, and a trickle is cut at its deadline', async () => {
    const signedLooking = {
      'content-type': 'application/json',
      'x-shopify-hmac-sha256': 'Zm9yZ2Vk',
      'x-shopify-topic': 'orders/paid',
    };
    const reached = requestsReached(bridge.http, 5);
    const trickles = Array.from({ length: 5 }, () => holdOpen('/webhooks/shopify', signedLooking, 500_000));
    // One read in flight and four waiting fill the queue (before, a 200 ms sleep, which a loaded machine could
    // outlast with a trickle not yet in line)…
    await reached;
    const refused = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: signedLooking,
      body: '{}',
    });
    // …so the next is refused at once: a 503 is answered before any wait for a turn (a wait ends in a 408), which
    // says "at once" without a duration a loaded machine can stretch.
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    // Each is cut off once its deadline (2 s, the wait included) has passed.
    await Promise.all(trickles.map((held) => held.closed));
    // A genuine delivery then goes through.
    const body = shopifyOrderJson({ id: '9280000000001' });
    const genuine = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    expect(genuine.status).toBe(200);
  });
});

describe('a connection that takes a turn and sends nothing', () => {
  let patient: RunningBridge;
  beforeAll(async () => {
    patient = await startTestBridge({
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      RECONCILE_INTERVAL_MINUTES: '0',
      WEBHOOK_CONCURRENT_READS: '1',
      WEBHOOK_BODY_TIMEOUT_SECONDS: '30',
    });
  });
  afterAll(() => patient.stop());

  it('gives its turn up within two seconds, not at the body’s whole deadline, and the delivery behind it goes through', async () => {
    const { port } = new URL(patient.http.localUrl);
    const reached = requestsReached(patient.http, 1);
    const idle = connect(Number(port), '127.0.0.1');
    idle.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => idle.on('close', () => resolve()));
    // Headers with a signature header, then not a byte of the promised body.
    idle.write(
      'POST /webhooks/shopify HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-shopify-hmac-sha256: Zm9yZ2Vk\r\ncontent-length: 1000\r\n\r\n',
    );
    // It holds the one read turn (before, a 100 ms sleep: outlasted, the genuine delivery went first, proving nothing).
    await reached;
    const started = Date.now();
    const body = shopifyOrderJson({ id: '9280000000002' });
    const genuine = await fetch(`${patient.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
    expect(genuine.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
    await closed;
  });
});

describe('a delivery over the limit', () => {
  it('gets 413, and the rest of its body is taken before the connection closes, so a proxy in front reads the 413', async () => {
    const signedLooking = { 'content-type': 'application/json', 'x-shopify-hmac-sha256': 'Zm9yZ2Vk' };
    const rest = Buffer.alloc(64 * 1024, ' ');
    const headers = { ...signedLooking, 'x-shopify-topic': 'orders/paid' };
    const held = holdOpen('/webhooks/shopify', headers, 60_000_000, '{', true);
    let reset: Error | undefined;
    let ended = false;
    held.socket.on('error', (error) => (reset = error));
    held.socket.on('end', () => (ended = true));
    await waitFor(() => held.answer().includes('\r\n\r\n'));
    expect(held.answer()).toMatch(/^HTTP\/1\.1 413 /);
    // As nginx does, still sending the body it was given after the answer came: a bridge that closed at once
    // would have the kernel reset the connection here, and nginx would tell the platform 502.
    for (let chunk = 0; chunk < 8 && !reset; chunk += 1) {
      held.socket.write(rest);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    held.socket.end();
    await held.closed;
    expect(reset).toBeUndefined();
    expect(ended).toBe(true);
  });

  it('on a connection that closes after its answer (HTTP/1.0, as nginx proxies), takes the whole body, then answers 413', async () => {
    const { port } = new URL(bridge.http.localUrl);
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let reset: Error | undefined;
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', (error) => (reset = error));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const body = Buffer.alloc(1_200_000, ' ');
    socket.write(
      `POST /webhooks/shopify HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `x-shopify-hmac-sha256: Zm9yZ2Vk\r\nx-shopify-topic: orders/paid\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    // The body follows once the bridge has seen the headers and refused the length: a bridge that answered and
    // closed then would have the kernel reset the connection under the body still coming.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let at = 0; at < body.length && !reset; at += 100_000) {
      socket.write(body.subarray(at, at + 100_000));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    socket.end();
    await closed;
    expect(reset).toBeUndefined();
    expect(answer).toMatch(/^HTTP\/1\.1 413 [^]*\r\nconnection: close\r\n/i);
  });

  it('keeps the connection for the client’s next request once the body has come, and answers that one too', async () => {
    const { port } = new URL(bridge.http.localUrl);
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const request = (length: number) =>
      `POST /webhooks/shopify HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `x-shopify-hmac-sha256: Zm9yZ2Vk\r\nx-shopify-topic: orders/paid\r\ncontent-length: ${length}\r\n\r\n`;
    // A client that sent its whole body, then its next request on the same connection at once, as fetch may.
    const body = ' '.repeat(1_100_000);
    socket.write(`${request(body.length)}${body}${request(2)}{}`);
    await waitFor(() => (answer.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2);
    expect(answer.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 401']);
    socket.end();
    socket.destroy();
    await closed;
  });
});
