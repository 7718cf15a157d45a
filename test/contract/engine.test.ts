// The core end to end against the real sandbox over HTTP: events in, the
// right calls out, once each, with retries and dead letters.
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/core/policy.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, sandboxWithEngines, startTestEngine, tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { raw } from '../helpers/raw-records.ts';

const harness = sandboxWithEngines();

let nextOrder = 1000;
const newOrderId = () => String(nextOrder++);
const earningOf = (orderId: string) =>
  harness.sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === orderId);
const start = harness.start;

describe('the order lifecycle against the sandbox', () => {
  it('earns on paid, approves on fulfilled, cancels on a full refund', async () => {
    const engine = await start();
    const orderId = newOrderId();
    await engine.accept('d1', [orderEvent({ orderId, facts: ['placed', 'paid'] })]);
    await engine.drain();
    expect(earningOf(orderId)).toMatchObject([
      { status: 'pending', points: 100, email: 'ada@example.com', description: `Order #${orderId}` },
    ]);
    await engine.accept('d2', [orderEvent({ orderId, facts: ['paid', 'fulfilled'] })]);
    await engine.drain();
    expect(earningOf(orderId)).toMatchObject([{ status: 'approved' }]);
    await engine.accept('d3', [orderEvent({ orderId, facts: ['fullyRefunded'] })]);
    await engine.drain();
    expect(earningOf(orderId)).toMatchObject([{ status: 'cancelled' }]);
    const order = await engine.store.getOrder(`testshop:shop-1:${orderId}`);
    expect(order?.calls.map((call) => [call.operation, call.outcome])).toEqual([
      ['earn', 'success'],
      ['approve', 'success'],
      ['cancel', 'success'],
    ]);
  });

  it('earns and then approves when fulfilment arrives before payment', async () => {
    const engine = await start();
    const orderId = newOrderId();
    await engine.accept('f', [orderEvent({ orderId, facts: ['fulfilled'] })]);
    await engine.accept('p', [orderEvent({ orderId, facts: ['paid'] })]);
    await engine.drain();
    expect(earningOf(orderId)).toMatchObject([{ status: 'approved' }]);
  });

  it('makes no call at all for an order cancelled before it earned', async () => {
    const engine = await start();
    const orderId = newOrderId();
    await engine.accept('c', [orderEvent({ orderId, facts: ['placed', 'cancelled'] })]);
    await engine.accept('p', [orderEvent({ orderId, facts: ['paid'] })]);
    await engine.drain();
    expect(earningOf(orderId)).toEqual([]);
    const order = await engine.store.getOrder(`testshop:shop-1:${orderId}`);
    expect(order?.target).toEqual({ state: 'void' });
    expect(order?.calls).toEqual([]);
  });

  it('answers a delivery seen before as a duplicate and makes one earn for three deliveries', async () => {
    const engine = await start();
    const orderId = newOrderId();
    const event = orderEvent({ orderId, facts: ['paid'] });
    const results = await Promise.all([
      engine.accept('same', [event]),
      engine.accept('same', [event]),
      engine.accept('same', [event]),
    ]);
    expect(results.sort()).toEqual(['accepted', 'duplicate', 'duplicate']);
    await engine.drain();
    expect(earningOf(orderId)).toHaveLength(1);
  });

  it('records a referred order as one conversion, and a loyalty discount as one redemption', async () => {
    const engine = await start();
    const orderId = newOrderId();
    const email = `r${orderId}@example.com`;
    // Points to redeem first: an approved earning of 100 for this customer.
    const earlier = newOrderId();
    await engine.accept('e', [
      orderEvent({
        orderId: earlier,
        facts: ['paid', 'fulfilled'],
        customer: { name: 'R', email, mobile: '+447700900555' },
      }),
    ]);
    await engine.drain();
    const referred = orderEvent({
      orderId,
      facts: ['paid'],
      customer: { name: 'R', email, mobile: '+447700900555' },
      attributes: { loyalty_campaign: '44', loyalty_referrer: 'ANNA-7' },
      discountCodes: [{ code: 'LOYALTY-R', amount: '0.50' }],
    });
    await engine.accept('r1', [referred]);
    await engine.accept('r2', [{ ...referred, deliveryId: 'again', facts: ['paid', 'fulfilled'] }]);
    await engine.drain();
    const state = harness.sandbox.store.snapshot();
    expect(state.conversions.filter((c) => c.orderId === orderId)).toMatchObject([
      { campaignId: 44, refereeName: 'R', refereeEmail: email, status: 'approved' },
    ]);
    expect(state.redemptions.filter((r) => r.email === email)).toMatchObject([{ points: 50 }]);
  });

  it('skips an order without an e-mail and says why', async () => {
    const engine = await start();
    const orderId = newOrderId();
    await engine.accept('s', [
      orderEvent({ orderId, facts: ['paid'], customer: { name: 'X', email: null, mobile: null } }),
    ]);
    await engine.drain();
    expect((await engine.store.getOrder(`testshop:shop-1:${orderId}`))?.target).toEqual({
      state: 'skipped',
      reason: 'missing_email',
    });
    expect(earningOf(orderId)).toEqual([]);
  });
});

describe('failures', () => {
  it('retries a retryable failure with backoff until it succeeds', async () => {
    const engine = await start();
    const orderId = newOrderId();
    harness.sandbox.faults.configure({ forced: { status: 503, count: 2 } });
    await engine.accept('x', [orderEvent({ orderId, facts: ['paid'] })]);
    await eventually(() => expect(earningOf(orderId)).toHaveLength(1));
    await eventually(async () => {
      const order = await engine.store.getOrder(`testshop:shop-1:${orderId}`);
      expect(order?.calls.map((call) => call.outcome)).toEqual(['retry', 'retry', 'success']);
    });
  });

  it('dead-letters a permanent failure with the service message', async () => {
    const engine = await start({ earnActivityId: '999' });
    const orderId = newOrderId();
    await engine.accept('y', [orderEvent({ orderId, facts: ['paid'] })]);
    await engine.drain();
    const [letter] = await engine.store.listDeadLetters();
    expect(letter).toMatchObject({
      kind: 'call',
      operation: 'earn',
      httpStatus: 402,
      orderKey: `testshop:shop-1:${orderId}`,
    });
    expect(letter?.reason).toContain('unknown activity 999');
    expect(earningOf(orderId)).toEqual([]);
  });

  it('sends a dead-lettered call again when a person retries it', async () => {
    const engine = await start();
    const orderId = newOrderId();
    harness.sandbox.faults.configure({ forced: { status: 400, count: 1 } });
    await engine.accept('w', [orderEvent({ orderId, facts: ['paid'] })]);
    await engine.drain();
    const [letter] = await engine.store.listDeadLetters();
    expect(letter).toMatchObject({ operation: 'earn', httpStatus: 400 });
    expect(earningOf(orderId)).toEqual([]);

    await engine.retryDeadLetter(letter!);
    await engine.drain();
    expect(earningOf(orderId)).toHaveLength(1);
    expect(await engine.store.listDeadLetters()).toEqual([]);
  });

  it('keeps a dead letter whose retry could not be written, so the order is not stranded', async () => {
    const engine = await start();
    const orderId = newOrderId();
    harness.sandbox.faults.configure({ forced: { status: 400, count: 1 } });
    await engine.accept('wf', [orderEvent({ orderId, facts: ['paid'] })]);
    await engine.drain();
    const [letter] = await engine.store.listDeadLetters();
    // The ledger's disk fails the one write that lets the order go on.
    const store = engine.store as { updateProgress: typeof engine.store.updateProgress };
    const write = store.updateProgress;
    store.updateProgress = () => Promise.reject(new Error('EIO: the disk failed'));
    await expect(engine.retryDeadLetter(letter!)).rejects.toThrow('EIO');
    store.updateProgress = write;
    expect((await engine.store.listDeadLetters()).map((each) => each.id)).toEqual([letter!.id]);
    // Retried again once the disk is back: the call goes.
    expect(await engine.retryDeadLetter(letter!)).toEqual({ retried: true });
    await engine.drain();
    expect(earningOf(orderId)).toHaveLength(1);
  });

  it('holds only the call that failed: a refused redeem does not stop a later cancellation', async () => {
    const engine = await start();
    const orderId = newOrderId();
    const customer = { name: 'N', email: `nobalance${orderId}@example.com`, mobile: '+447700900888' };
    await engine.accept('nb1', [
      orderEvent({ orderId, facts: ['paid'], customer, discountCodes: [{ code: 'LOYALTY-N', amount: '1.00' }] }),
    ]);
    await engine.drain();
    expect(await engine.store.listDeadLetters()).toMatchObject([{ operation: 'redeem', httpStatus: 400 }]);
    await engine.accept('nb2', [orderEvent({ orderId, facts: ['cancelled'], customer })]);
    await engine.drain();
    expect(earningOf(orderId)).toMatchObject([{ status: 'cancelled' }]);
  });

  it('gives up on a retryable failure once it is older than the maximum age', async () => {
    let now = new Date('2026-11-21T00:00:00Z');
    const engine = await start({
      now: () => now,
      worker: { maxRetryAgeMs: 60 * 60_000, retryMinDelayMs: 1, retryMaxDelayMs: 1 },
    });
    harness.sandbox.faults.configure({ failureRate: 1, failureStatus: 500 });
    const orderId = newOrderId();
    await engine.accept('z', [orderEvent({ orderId, facts: ['paid'] })]);
    await eventually(async () =>
      expect((await engine.store.getOrder(`testshop:shop-1:${orderId}`))?.work.attempts).toBeGreaterThan(0),
    );
    now = new Date('2026-11-21T02:00:00Z');
    await eventually(async () => expect(await engine.store.listDeadLetters()).toHaveLength(1));
    expect((await engine.store.listDeadLetters())[0]?.reason).toMatch(/gave up after retrying for 1 h/);
  });

  it('never sends a redeem twice when its outcome is unknown: it becomes a dead letter instead', async () => {
    const engine = await start();
    const orderId = newOrderId();
    const email = `doubt${orderId}@example.com`;
    const customer = { name: 'D', email, mobile: '+447700900777' };
    await engine.accept('a', [orderEvent({ orderId: newOrderId(), facts: ['fulfilled'], customer })]);
    await engine.drain();
    // Every redeem fails after it was applied: the caller cannot know it worked.
    harness.sandbox.faults.configure({
      failureRate: 1,
      failureStatus: 502,
      failurePhase: 'after',
      onlyPath: '/redeem',
    });
    await engine.accept('c', [
      orderEvent({ orderId, facts: ['paid'], customer, discountCodes: [{ code: 'LOYALTY-D', amount: '0.10' }] }),
    ]);
    await eventually(async () =>
      expect((await engine.store.listDeadLetters()).some((letter) => letter.operation === 'redeem')).toBe(true),
    );
    harness.sandbox.faults.configure({});
    await engine.drain();
    expect(harness.sandbox.store.snapshot().redemptions.filter((r) => r.email === email)).toHaveLength(1);
    expect((await engine.store.listDeadLetters()).find((letter) => letter.operation === 'redeem')?.reason).toMatch(
      /may or may not have been applied/,
    );
  });
});

describe('durability', () => {
  it('has the delivery on disk when accept resolves', async () => {
    const dataDir = tempDataDir();
    const engine = await start({ dataDir });
    const orderId = newOrderId();
    await engine.accept('durable-1', [orderEvent({ orderId, facts: ['placed'] })]);
    // A second store reads the files as a restarted process would.
    const reader = new LowdbStore({ dataDir, readOnly: true });
    await reader.open();
    const inInbox = (await reader.inboxEntry('durable-1')) !== undefined;
    const inOrders = (await reader.getOrder(`testshop:shop-1:${orderId}`)) !== undefined;
    expect(inInbox || inOrders).toBe(true);
  });

  it('resumes pending work after a restart, and the pending period survives it', async () => {
    const dataDir = tempDataDir();
    let now = new Date('2026-11-01T00:00:00Z');
    const policy = { pendingDays: 14 };
    const first = await startTestEngine(harness.sandbox, { dataDir, policy, now: () => now });
    const orderId = newOrderId();
    await first.accept('pp', [orderEvent({ orderId, facts: ['paid', 'fulfilled'] })]);
    await first.drain();
    expect(earningOf(orderId)).toMatchObject([{ status: 'pending' }]);
    await first.stop();

    now = new Date('2026-11-15T00:00:01Z');
    await start({ dataDir, policy, now: () => now });
    await eventually(() => expect(earningOf(orderId)).toMatchObject([{ status: 'approved' }]));
  });

  it('group-commits: a burst of acknowledgements takes far fewer inbox files than deliveries', async () => {
    const dataDir = tempDataDir();
    // Opened but not started: nothing consumes the inbox, so its files stay to be counted.
    const engine = await harness.open({ dataDir });
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        engine.accept(`burst-${i}`, [orderEvent({ orderId: newOrderId(), facts: ['placed'] })]),
      ),
    );
    const files = readdirSync(join(dataDir, 'inbox')).filter((name) => /^\d+\.json$/.test(name));
    expect(files.length).toBeGreaterThan(0);
    expect(files.length).toBeLessThan(20);
  });

  it('moves settled orders out of the hot files and brings one back when an event arrives for it', async () => {
    const dataDir = tempDataDir();
    const store = new LowdbStore({ dataDir, settleAfterMs: 1 });
    const engine = await start({ dataDir, store });
    const orderId = newOrderId();
    await engine.accept('s1', [orderEvent({ orderId, facts: ['paid', 'fulfilled'] })]);
    await engine.drain();
    const key = `testshop:shop-1:${orderId}`;
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The sweep runs on its own too; whichever sweep moves it, it leaves the hot files.
    await store.settleQuiet();
    // The active orders as the next start reads them: their partitions, with their journal's changes applied.
    const hot = async () => {
      const reader = new LowdbStore({ dataDir, readOnly: true });
      await reader.open();
      return (await reader.stats()).activeOrders;
    };
    const cold = () =>
      readdirSync(join(dataDir, 'orders'))
        .filter((name) => name.startsWith('settled-'))
        .map((name) => readFileSync(join(dataDir, 'orders', name), 'utf8'))
        .join('');
    await eventually(async () => expect(await hot()).toBe(0));
    expect(cold()).toContain(key);

    await engine.accept('s2', [orderEvent({ orderId, facts: ['fullyRefunded'] })]);
    await engine.drain();
    expect(earningOf(orderId)).toMatchObject([{ status: 'cancelled' }]);
    expect(await hot()).toBe(1);
  });

  it("keeps each platform's reconciliation high-water mark across a restart", async () => {
    const dataDir = tempDataDir();
    const first = await startTestEngine(harness.sandbox, { dataDir });
    await first.store.putRecord(raw('reconciliation'), 'woocommerce:shop', {
      highWaterMark: '2026-11-20T10:00:00.000Z',
      lastRun: null,
    });
    await first.stop();
    const second = await start({ dataDir });
    expect(await second.store.getRecord(raw('reconciliation'), 'woocommerce:shop')).toMatchObject({
      highWaterMark: '2026-11-20T10:00:00.000Z',
    });
  });

  it('forgets delivery keys after the dedupe window', async () => {
    let now = new Date('2026-11-01T00:00:00Z');
    const engine = await start({ now: () => now, dedupeWindowMs: 24 * 60 * 60_000 });
    await engine.accept('old', [orderEvent({ orderId: newOrderId(), facts: ['placed'] })]);
    await engine.drain();
    expect(await engine.store.hasSeen('old')).toBe(true);
    now = new Date('2026-11-03T00:00:00Z');
    await engine.store.pruneSeen(new Date(now.getTime() - 24 * 60 * 60_000));
    expect(await engine.store.hasSeen('old')).toBe(false);
  });
});

it('uses the default policy from DESIGN.md', () => {
  expect(DEFAULT_POLICY).toMatchObject({
    earnTrigger: 'paid',
    partialRefund: 'ignore',
    countTestOrders: false,
    pendingDays: 0,
  });
});
