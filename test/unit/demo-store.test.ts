// The first run's demo store as a newcomer meets it: a handful of orders at once, then a slow trickle, and one
// line of the log for each order. Its waits are counted, not slept: the test runs each when it is asked for.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_RETRY_MS, DemoStore, type Schedule } from '../../src/composition/demo-store.ts';
import { shopifyDemo } from '../../adapters/shopify/demo.ts';
import { wooDemo } from '../../adapters/woocommerce/demo.ts';
import { createLogger } from '../../src/logger.ts';
import { eventually } from '../helpers/engine.ts';

describe('the demo store', () => {
  let server: Server;
  let url: string;
  const deliveries: string[] = [];
  /** The bodies the bridge got, in order. */
  const bodies: string[] = [];
  /** How many deliveries the bridge answers 503 before it takes them again. */
  let refuse = 0;
  const lines: string[] = [];
  /** The waits the demo asked for, in order, each with what it runs after. */
  const waits: Array<{ ms: number; next: () => void }> = [];
  const schedule: Schedule = (ms, next) => {
    waits.push({ ms, next });
    return { cancel: () => undefined };
  };
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
  const players = [
    { platform: 'shopify', platformName: 'Shopify', shop: shopifyDemo.shop, demo: shopifyDemo, secret: 's1' },
    { platform: 'woocommerce', platformName: 'WooCommerce', shop: 'demo-woo', demo: wooDemo, secret: 's2' },
  ];
  const orders = shopifyDemo.orders.length + wooDemo.orders.length;

  beforeEach(async () => {
    deliveries.length = bodies.length = lines.length = waits.length = refuse = 0;
    server = createServer((req, res) => {
      deliveries.push(req.url ?? '');
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString());
        if (refuse > 0) {
          refuse--;
          res.writeHead(503).end('{"error":"the delivery could not be stored; please send it again"}');
        } else res.end('{"result":"accepted"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => server.close());

  /** Runs the demo's next wait, once it asked for it. */
  const nextWait = async (count: number) => {
    await eventually(() => expect(waits.length).toBeGreaterThanOrEqual(count));
    return waits[count - 1]!;
  };

  it('sends each shop’s orders quickly once, then one order a minute, one log line per order', async () => {
    let handfulSent = 0;
    const demo = new DemoStore({
      url,
      players,
      logger,
      paceMs: 1_500,
      schedule,
      outcome: async ({ order }) => `${order.total}, paid`,
      onHandfulSent: () => handfulSent++,
    });
    expect(demo.handful).toBe(orders);
    demo.start();
    for (let count = 1; count <= orders + 2; count++) (await nextWait(count)).next();
    await nextWait(orders + 3);
    demo.stop();

    // Quick between the handful's orders, then a minute between each.
    expect(waits.map(({ ms }) => ms)).toEqual([
      ...Array.from({ length: orders - 1 }, () => 1_500),
      ...Array.from({ length: 4 }, () => 60_000),
    ]);
    expect(handfulSent).toBe(1);
    // Every step of every order went to the bridge's webhook routes.
    const steps = [...shopifyDemo.orders, ...wooDemo.orders].reduce((sum, { steps }) => sum + steps.length, 0);
    expect(deliveries.length).toBeGreaterThanOrEqual(steps);
    expect(deliveries.every((path) => /^\/webhooks\/(shopify|woocommerce)$/.test(path))).toBe(true);
    // One line per order played, each naming its platform and number.
    await eventually(() => expect(lines.length).toBe(demo.played));
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages[0]).toBe(`demo: Shopify order #1001, ${shopifyDemo.orders[0]!.total}, paid`);
    expect(messages[1]).toBe(`demo: WooCommerce order #1002, ${wooDemo.orders[0]!.total}, paid`);
    expect(new Set(messages).size).toBe(messages.length);
  });

  it('ends its trickle after a bound, saying so once: a demo left running sends no more for ever', async () => {
    const demo = new DemoStore({ url, players, logger, schedule, trickleOrders: 2 });
    demo.start();
    // The handful, then two of the trickle: the last one schedules nothing.
    for (let count = 1; count <= orders + 1; count++) (await nextWait(count)).next();
    await eventually(() => expect(lines.some((line) => line.includes('sends no more'))).toBe(true));
    expect(waits).toHaveLength(orders + 1);
    expect(lines.filter((line) => line.includes('sends no more'))).toHaveLength(1);
    expect(demo.running).toBe(true);
    demo.stop();
  });

  it('stops for good: nothing more is sent or scheduled', async () => {
    const demo = new DemoStore({ url, players, logger, schedule });
    demo.start();
    (await nextWait(1)).next();
    await nextWait(2);
    demo.stop();
    expect(demo.running).toBe(false);
    const sent = deliveries.length;
    waits[1]!.next();
    expect(waits.length).toBe(2);
    expect(deliveries.length).toBe(sent);
  });

  it('sends a delivery the bridge did not take again as it was, within seconds; gives its order up after a few tries', async () => {
    const demo = new DemoStore({
      url,
      players,
      logger,
      schedule,
      outcome: async ({ order }) => `${order.total}, paid`,
    });
    // The first order's first delivery refused at every try: its order is given up, and told.
    refuse = 1 + DEMO_RETRY_MS.length;
    demo.start();
    for (let count = 1; count <= DEMO_RETRY_MS.length; count++) (await nextWait(count)).next();
    // Then the second order, at the handful's pace.
    (await nextWait(DEMO_RETRY_MS.length + 1)).next();
    await nextWait(DEMO_RETRY_MS.length + 2);
    demo.stop();

    expect(waits.map(({ ms }) => ms)).toEqual([...DEMO_RETRY_MS, 1_500, 1_500]);
    expect(DEMO_RETRY_MS.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(60_000);
    // The same bytes each time, as a platform sends a delivery again.
    expect(new Set(bodies.slice(0, 1 + DEMO_RETRY_MS.length)).size).toBe(1);
    // Its later step was never sent out of order; the second order was sent and played.
    expect(bodies.length).toBe(1 + DEMO_RETRY_MS.length + wooDemo.orders[0]!.steps.length);
    expect(demo.played).toBe(1);
    await eventually(() => expect(lines.length).toBe(2));
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } });
    expect(logged[0]).toMatchObject({ level: 40 });
    expect(logged[0]!.err?.message).toMatch(/order #1001 .* not delivered: answered 503/);
    expect(logged[1]!.msg).toBe(`demo: WooCommerce order #1002, ${wooDemo.orders[0]!.total}, paid`);
  });

  it('stops for good while it waits to send a delivery again: nothing more is sent, the order untold', async () => {
    const demo = new DemoStore({ url, players, logger, schedule });
    refuse = 1;
    demo.start();
    await nextWait(1);
    demo.stop();
    const sends = vi.spyOn(globalThis, 'fetch');
    waits[0]!.next();
    // What the wait's end leads to, up to a send, runs in promise callbacks: all of them run before the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    const sent = sends.mock.calls.length;
    sends.mockRestore();
    expect(sent).toBe(0);
    expect(bodies.length).toBe(1);
    expect(waits.length).toBe(1);
    expect(demo.played).toBe(0);
    expect(lines).toEqual([]);
  });
});
