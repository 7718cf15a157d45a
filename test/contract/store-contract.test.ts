// One contract for the store, run on both backends: the lowdb files and
// PostgreSQL. Whatever the core relies on (durable, deduped acceptance;
// intake committed in one step; leases; queries; records; privacy; exclusive
// runs; moving a ledger) holds the same on each.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { InboxEntry, StoredDelivery } from '../../src/core/delivery.ts';
import type { Lane } from '../../src/core/lanes.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import type { DeliveryRedactor, LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { openPostgresStore } from '../../src/core/store/postgres/open-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { raw } from '../helpers/raw-records.ts';
import { STORED } from '../../src/core/adjustments.ts';

interface Backend {
  open(): Promise<LedgerStore>;
  close(): Promise<void>;
}

function lowdb(): Backend {
  const dataDir = tempDataDir();
  let store: LowdbStore | undefined;
  return {
    async open() {
      store = new LowdbStore({ dataDir, settleAfterMs: 1 });
      await store.open();
      return store;
    },
    close: async () => store?.close(),
  };
}

function postgres(): Backend {
  let database: TestDatabase | undefined;
  const opened: Array<{ close(): Promise<void> }> = [];
  return {
    async open() {
      database ??= await freshDatabase();
      const { store, release } = await openPostgresStore({
        url: database.url,
        dedupeWindowMs: 7 * 86_400_000,
        logger: createLogger({ level: 'silent' }),
        poolSize: 4,
      });
      await store.open();
      opened.push({
        close: async () => {
          await store.close();
          await release();
        },
      });
      return store;
    },
    async close() {
      for (const each of opened) await each.close();
      await database?.drop();
    },
  };
}

const entry = (key: string, parts: Partial<InboxEntry> = {}): InboxEntry => ({
  key,
  aliases: [],
  receivedAt: new Date().toISOString(),
  retry: null,
  ...parts,
});
const delivery = (body: string, shop = 'shop-1'): StoredDelivery => ({
  platform: 'testshop',
  topic: 'orders/paid',
  shop,
  sentAt: new Date().toISOString(),
  headers: {},
  body,
  bodyEncoding: 'utf8',
});
let sequence = 0;
const nextOrderId = () => String(700_000 + ++sequence);
const keyOf = (event: OrderEvent) => `${event.platform}:${event.shop}:${event.orderId}`;

/** Accepts an events entry and commits it, as intake would. */
async function fold(store: LedgerStore, ...events: OrderEvent[]): Promise<void> {
  await foldIn(store, 'live', ...events);
}

/** The same, for work of a lane: a resync's events are backfill. */
async function foldIn(store: LedgerStore, lane: Lane, ...events: OrderEvent[]): Promise<void> {
  const key = `fold-${++sequence}`;
  await store.accept(entry(key, { events, ...(lane === 'backfill' ? { lane } : {}) }));
  const claimed = await store.claimInbox('me', 100, 60_000);
  await store.commitIntake(
    claimed.map((each) => ({ entryKey: each.key, lane: each.lane, ...(each.events ? { events: each.events } : {}) })),
  );
}

/** A redactor that understands the test bodies: JSON with an "email". */
const redactor =
  (email: string): DeliveryRedactor =>
  (stored) => {
    const about = stored.body.includes(email);
    return { about, redacted: about ? { ...stored, body: stored.body.replaceAll(email, '') } : stored };
  };

describe.each([
  ['lowdb', lowdb, true],
  ['postgres', postgres, postgresAvailable()],
])('the %s store', (_name, make, available) => {
  const backend = make();
  let store: LedgerStore;
  beforeAll(async () => {
    if (available) store = await backend.open();
  });
  afterAll(async () => {
    if (available) await backend.close();
  });

  describe.skipIf(!available)('the contract', () => {
    it('accepts a delivery once: a copy under the same key or an alias is a duplicate', async () => {
      expect(await store.accept(entry('k-1', { aliases: ['alias-1'], delivery: delivery('{}') }))).toBe('accepted');
      expect(await store.accept(entry('k-1', { delivery: delivery('{}') }))).toBe('duplicate');
      expect(await store.accept(entry('k-2', { aliases: ['alias-1'], delivery: delivery('{}') }))).toBe('duplicate');
      expect(await store.hasSeen('alias-1')).toBe(true);
      expect((await store.inboxEntry('k-1'))?.delivery?.body).toBe('{}');
    });

    it('keeps every field of an order record, each set, through a move in and a read', async () => {
      const orderId = nextOrderId();
      const at = '2026-11-20T10:00:00.000Z';
      // Required<>: a field added to OrderRecord must be given here, and so is tried on both backends.
      const full: Required<OrderRecord> = {
        key: `testshop:shop-1:${orderId}`,
        platform: 'testshop',
        shop: 'shop-1',
        orderId,
        facts: ['placed', 'paid'],
        snapshot: {
          orderName: `#${orderId}`,
          customer: { name: 'Kim Kept', email: 'kim@kept.example', mobile: '+447700900123' },
          total: { amount: '12.50', currency: 'EUR', presentment: { amount: '13.00', currency: 'USD' } },
          subtotal: '10.00',
          test: false,
          source: 'web',
          referral: { campaignId: 7 },
          discountCodes: [{ code: 'LOYALTY-1', amount: '1.00' }],
          attributes: { ref: 'x' },
          landingSite: '/?ref=x',
          protectedDataHidden: false,
        },
        snapshotFrom: { orderName: `${at}|d-1` },
        refunds: { r1: { amount: '1.00', currency: 'EUR' } },
        firstSeenAt: at,
        updatedAt: at,
        target: { state: 'earned', reason: 'paid' },
        upstream: {
          points: 'earned',
          earnedAt: at,
          earnActivityId: '1',
          conversion: 'sent',
          conversionCampaignId: 7,
          conversionSentAt: at,
          conversionStatus: 'pending',
          redemption: 'sent',
          redeemedPoints: 100,
          redemptionReturn: null,
          lpOrderId: orderId,
          account: 'acc-1',
        },
        work: {
          attempts: 1,
          firstFailureAt: at,
          retryAt: at,
          lastError: 'timeout',
          unknownFailures: 1,
          held: {},
          waitingFor: 'account',
        },
        calls: [{ operation: 'earn', at, attempts: 1, outcome: 'success', httpStatus: 200, message: 'ok' }],
        deliveries: ['testshop:d-1'],
        erasedAt: null,
        version: 3,
        foldVersion: 2,
        dueAt: at,
        lane: 'backfill',
      };
      await store.importItems([{ type: 'order', record: full }]);
      const read = await store.getOrder(full.key);
      // version counts the store's writes, the import's own among them on lowdb.
      expect(read?.version).toBeGreaterThanOrEqual(full.version);
      expect({ ...read, version: full.version }).toEqual(full);
    });

    it('answers concurrent copies of one delivery: exactly one accepted', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.accept(entry('k-race', { delivery: delivery('{}') }))),
      );
      expect(results.filter((result) => result === 'accepted')).toHaveLength(1);
    });

    it('leases an inbox entry to one taker, and commits what it became in one step', async () => {
      const orderId = nextOrderId();
      const event = orderEvent({ orderId, facts: ['placed', 'paid'] });
      await store.accept(entry('k-fold', { events: [event] }));
      const first = await store.claimInbox('a', 100, 60_000);
      expect(first.map((each) => each.key)).toContain('k-fold');
      expect((await store.claimInbox('b', 100, 60_000)).map((each) => each.key)).not.toContain('k-fold');
      const changed = await store.commitIntake(
        first.map((each) => ({ entryKey: each.key, ...(each.events ? { events: each.events } : {}) })),
      );
      expect(changed).toContain(keyOf(event));
      expect(await store.inboxEntry('k-fold')).toBeUndefined();
      expect(await store.getOrder(keyOf(event))).toMatchObject({
        facts: ['placed', 'paid'],
        foldVersion: 1,
        dueAt: expect.any(String),
      });
      // Consumed, and still remembered for dedupe.
      expect(await store.accept(entry('k-fold', { events: [event] }))).toBe('duplicate');
    });

    it('keeps one dead letter however often the same entry is committed as one', async () => {
      await store.accept(entry('k-dead', { delivery: delivery('not json') }));
      const letter = {
        id: 'delivery-k-dead',
        kind: 'delivery' as const,
        reason: 'not JSON',
        platform: 'testshop',
        deliveryKey: 'k-dead',
      };
      await store.commitIntake([{ entryKey: 'k-dead', deadLetter: letter }]);
      await store.commitIntake([{ entryKey: 'k-dead', deadLetter: letter }]);
      expect((await store.listDeadLetters()).filter((candidate) => candidate.id === 'delivery-k-dead')).toHaveLength(1);
    });

    it('defers an entry whose platform did not answer until its retry time', async () => {
      await store.accept(entry('k-later', { delivery: delivery('{}') }));
      const claimed = await store.claimInbox('a', 100, 60_000);
      expect(claimed.map((each) => each.key)).toContain('k-later');
      const retryAt = new Date(Date.now() + 60_000).toISOString();
      await store.deferInbox('a', 'k-later', {
        attempts: 1,
        firstFailureAt: new Date().toISOString(),
        retryAt,
        lastError: 'down',
      });
      expect((await store.claimInbox('a', 100, 60_000)).map((each) => each.key)).not.toContain('k-later');
      expect((await store.inboxEntry('k-later'))?.retry).toMatchObject({ attempts: 1, lastError: 'down' });
      expect(await store.nextInboxAt()).toBeLessThanOrEqual(Date.parse(retryAt));
      await store.commitIntake([{ entryKey: 'k-later' }]);
    });

    it('leases a due order to one worker, and tells it when new facts were folded in meanwhile', async () => {
      const event = orderEvent({ orderId: nextOrderId(), facts: ['paid'] });
      await fold(store, event);
      const claimed = (await store.claimDue('w1', 100, 60_000)).find((record) => record.key === keyOf(event));
      expect(claimed).toBeDefined();
      expect((await store.claimDue('w2', 100, 60_000)).map((record) => record.key)).not.toContain(keyOf(event));
      const record = claimed as OrderRecord;
      record.upstream.points = 'earned';
      record.target = { state: 'earned' };
      record.dueAt = null;
      expect(await store.saveProgress(record, { owner: 'w1', release: false, leaseMs: 60_000 })).toBe('saved');
      await fold(store, { ...event, deliveryId: 'later', facts: ['fulfilled'] });
      expect(await store.saveProgress(record, { owner: 'w1', release: true, leaseMs: 60_000 })).toBe('refolded');
      // Both writers kept what they wrote.
      expect(await store.getOrder(keyOf(event))).toMatchObject({
        facts: ['paid', 'fulfilled'],
        upstream: { points: 'earned' },
        target: { state: 'earned' },
      });
      // Folded while leased: due again once released.
      expect((await store.claimDue('w2', 100, 60_000)).map((each) => each.key)).toContain(keyOf(event));
    });

    it('passes over the shops it is told to skip (their account’s budget is spent), and hands them out later', async () => {
      const spent = orderEvent({ orderId: nextOrderId(), shop: 'skip-spent.example', facts: ['paid'] });
      const other = orderEvent({ orderId: nextOrderId(), shop: 'skip-other.example', facts: ['paid'] });
      await fold(store, spent, other);
      const skip = new Set([`${spent.platform}:${spent.shop}`]);
      const claimed = (await store.claimDue('skip-w', 100, 60_000, undefined, skip)).map((record) => record.key);
      expect(claimed).toContain(keyOf(other));
      expect(claimed).not.toContain(keyOf(spent));
      expect((await store.claimDue('skip-w', 100, 60_000, 'live', skip)).map((each) => each.key)).not.toContain(
        keyOf(spent),
      );
      expect((await store.claimDue('skip-w', 100, 60_000)).map((record) => record.key)).toContain(keyOf(spent));
    });

    it('renews the leases of claims still held, and not of those released', async () => {
      const event = orderEvent({ orderId: nextOrderId(), facts: ['paid'] });
      await fold(store, event);
      const order = (await store.claimDue('renew-w/1', 100, 60_000)).find((record) => record.key === keyOf(event))!;
      expect(await store.renewClaims('orders', [{ key: order.key, owner: 'renew-w/1' }], 60_000)).toEqual([
        { key: order.key, owner: 'renew-w/1' },
      ]);
      order.dueAt = null;
      await store.saveProgress(order, { owner: 'renew-w/1', release: true, leaseMs: 60_000 });
      expect(await store.renewClaims('orders', [{ key: order.key, owner: 'renew-w/1' }], 60_000)).toEqual([]);

      await store.accept(entry('k-renew', { delivery: delivery('{}') }));
      expect((await store.claimInbox('renew-i/1', 100, 60_000)).map((each) => each.key)).toContain('k-renew');
      expect(await store.renewClaims('inbox', [{ key: 'k-renew', owner: 'renew-i/1' }], 60_000)).toEqual([
        { key: 'k-renew', owner: 'renew-i/1' },
      ]);
      await store.deferInbox('renew-i/1', 'k-renew', {
        attempts: 1,
        firstFailureAt: new Date().toISOString(),
        retryAt: new Date(Date.now() + 60_000).toISOString(),
        lastError: 'down',
      });
      expect(await store.renewClaims('inbox', [{ key: 'k-renew', owner: 'renew-i/1' }], 60_000)).toEqual([]);
      await store.commitIntake([{ entryKey: 'k-renew' }]);
    });

    it('lists and counts orders, newest first, by state, platform, reason and search', async () => {
      const email = `list-${nextOrderId()}@example.com`;
      const events = [0, 1, 2].map((i) =>
        orderEvent({
          orderId: nextOrderId(),
          facts: ['paid'],
          customer: { name: 'L', email, mobile: '+447700900001' },
          occurredAt: new Date(Date.UTC(2026, 10, 1, 12, i)).toISOString(),
        }),
      );
      for (const event of events) await fold(store, event);
      const found = await store.listOrders({ q: email, page: 1, limit: 2 });
      expect(found.total).toBe(3);
      expect(found.orders).toHaveLength(2);
      const second = await store.listOrders({ q: email, page: 2, limit: 2 });
      expect(new Set([...found.orders, ...second.orders].map((order) => order.key)).size).toBe(3);
      const counts = await store.countOrders();
      expect(counts.byPlatform.testshop).toBeGreaterThanOrEqual(3);
      expect((await store.listOrders({ platform: 'testshop', page: 1, limit: 1 })).total).toBe(
        counts.byPlatform.testshop,
      );
    });

    it("reads a customer's orders by e-mail or phone, in memory and settled, and no one else's", async () => {
      const email = `orders-${nextOrderId()}@example.com`;
      const theirs = orderEvent({
        orderId: nextOrderId(),
        facts: ['paid'],
        customer: { name: 'Ada', email, mobile: '+12125550142' },
      });
      const byPhoneOnly = orderEvent({
        orderId: nextOrderId(),
        facts: ['paid'],
        customer: { name: 'Ada', email: null, mobile: '+12125550142' },
      });
      const someoneElse = orderEvent({
        orderId: nextOrderId(),
        facts: ['paid'],
        customer: { name: 'Bo', email: `other-${email}`, mobile: '+12125550143' },
      });
      await fold(store, theirs, byPhoneOnly, someoneElse);
      const keys = async (customer: { email: string } | { mobile: string }) =>
        (await store.customerOrders(customer)).map((order) => order.key).sort();
      const expectTheirs = async () => {
        expect(await keys({ email: email.toUpperCase() })).toEqual([keyOf(theirs)]);
        expect(await keys({ mobile: '+1 212-555-0142' })).toEqual([keyOf(theirs), keyOf(byPhoneOnly)].sort());
      };
      await expectTheirs();
      // Settled: read through the chunks' filters (lowdb), as before.
      for (const record of await store.claimDue('w', 100, 60_000))
        await store.saveProgress({ ...record, dueAt: null }, { owner: 'w', release: true, leaseMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (store instanceof LowdbStore) expect(await store.settleQuiet()).toBeGreaterThan(0);
      await expectTheirs();
    });

    it('lists and counts an order that earns but needs the merchant’s eye by its reason, in memory or settled', async () => {
      const reason = 'points_redeemed_on_cancelled_order';
      const before = (await store.countOrders()).attention[reason] ?? 0;
      const event = orderEvent({ orderId: nextOrderId(), facts: ['paid', 'cancelled'] });
      await fold(store, event);
      const claimed = (await store.claimDue('w', 100, 60_000)).find(
        (record) => record.key === keyOf(event),
      ) as OrderRecord;
      // What its points are read from (its activity, its account, what it redeemed) is listed with it, settled too:
      // what its own redeem took and what each of its reward codes' redeems took, the one sent.
      const code = { code: 'LB-X', account: 'acct-2', points: 30, holder: 'h', reservation: 'r' };
      const upstream = {
        ...claimed.upstream,
        earnActivityId: '7',
        account: 'acct-1',
        redemption: 'sent' as const,
        redeemedPoints: 50,
        redeemCodes: [
          { ...code, redemption: 'sent' as const },
          { ...code, reservation: 'r2', redemption: 'none' as const },
        ],
      };
      await store.saveProgress(
        { ...claimed, upstream, target: { state: 'cancelled', reason }, dueAt: null },
        { owner: 'w', release: true, leaseMs: 60_000 },
      );
      // Quiet orders leave memory for the settled files, whose summaries decide which files a query reads.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (store instanceof LowdbStore) expect(await store.settleQuiet()).toBeGreaterThan(0);
      const counts = await store.countOrders();
      expect(counts.attention[reason]).toBe(before + 1);
      expect(counts.skipped[reason]).toBeUndefined();
      const listed = await store.listOrders({ reason, page: 1, limit: 50 });
      expect(listed.orders.map((order) => order.key)).toContain(keyOf(event));
      expect(listed.orders.find((order) => order.key === keyOf(event))).toMatchObject({
        earnActivityId: '7',
        account: 'acct-1',
        redeemedPoints: 80,
      });
      expect(listed.total).toBe(before + 1);
    });

    it('lists each order with its total and when it was first seen; an order no event gave a total lists none', async () => {
      const email = `totals-${nextOrderId()}@example.com`;
      const customer = { name: 'Ada', email, mobile: null };
      const priced = orderEvent({
        orderId: nextOrderId(),
        facts: ['paid'],
        customer,
        total: { amount: '1234.50', currency: 'JPY' },
      });
      // A refund that came before its order: the ledger has the order, but not what it came to.
      const unpriced = orderEvent({ orderId: nextOrderId(), facts: [], customer, total: null });
      const before = Date.now();
      await fold(store, priced, unpriced);
      const listed = async () => {
        const { orders } = await store.listOrders({ q: email, page: 1, limit: 10 });
        return new Map(orders.map((order) => [order.key, order]));
      };
      const check = (orders: Awaited<ReturnType<typeof listed>>) => {
        expect(orders.get(keyOf(priced))?.total).toEqual({ amount: '1234.50', currency: 'JPY' });
        expect(orders.get(keyOf(unpriced))?.total).toBeNull();
        for (const order of orders.values()) {
          expect(Date.parse(order.firstSeenAt)).toBeGreaterThanOrEqual(before - 1000);
          expect(Date.parse(order.firstSeenAt)).toBeLessThanOrEqual(Date.now());
        }
      };
      check(await listed());
      // The same once they are settled (lowdb's files of quiet orders).
      if (store instanceof LowdbStore) {
        // Ours go quiet; any other test's claimed with them is released as it was.
        const ours = [keyOf(priced), keyOf(unpriced)];
        for (const record of await store.claimDue('w', 100, 60_000)) {
          const dueAt = ours.includes(record.key) ? null : record.dueAt;
          await store.saveProgress({ ...record, dueAt }, { owner: 'w', release: true, leaseMs: 60_000 });
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await store.settleQuiet()).toBeGreaterThan(0);
        check(await listed());
      }
    });

    it('registers an lp_orderid to the first order that claims it', async () => {
      expect(await store.claimLpOrderId('4242', 'woocommerce:a:4242')).toBe('woocommerce:a:4242');
      expect(await store.claimLpOrderId('4242', 'bigcommerce:b:4242')).toBe('woocommerce:a:4242');
      expect(await store.claimLpOrderId('4242', 'woocommerce:a:4242')).toBe('woocommerce:a:4242');
    });

    it('keeps records by kind, and dead letters, and changes and forgets them', async () => {
      await store.putRecord(raw('session'), 'shopify:a.myshopify.com', { shop: 'a.myshopify.com', accessToken: 't1' });
      await store.putRecord(raw('session'), 'shopify:a.myshopify.com', { shop: 'a.myshopify.com', accessToken: 't2' });
      expect(await store.getRecord(raw('session'), 'shopify:a.myshopify.com')).toEqual({
        shop: 'a.myshopify.com',
        accessToken: 't2',
      });
      expect((await store.listRecords(raw('session'))).map((record) => record.id)).toContain('shopify:a.myshopify.com');
      await store.deleteRecord(raw('session'), 'shopify:a.myshopify.com');
      expect(await store.getRecord(raw('session'), 'shopify:a.myshopify.com')).toBeUndefined();
    });

    it('adds a record only where there is none: of callers at once, exactly one wins and all see its value', async () => {
      const attempts = await Promise.all(
        ['load', 'uninstall', 'remove_user', 'load'].map((callback) =>
          store.addRecord(raw('callback-payload'), 'jti-race', { callback }),
        ),
      );
      expect(attempts.filter((attempt) => attempt.added)).toHaveLength(1);
      const winner = attempts.find((attempt) => attempt.added)!.value;
      for (const attempt of attempts) expect(attempt.value).toEqual(winner);
      expect(await store.getRecord(raw('callback-payload'), 'jti-race')).toEqual(winner);
      await store.deleteRecord(raw('callback-payload'), 'jti-race');
      expect(await store.addRecord(raw('callback-payload'), 'jti-race', { callback: 'uninstall' })).toEqual({
        added: true,
        value: { callback: 'uninstall' },
      });
    });

    // On PostgreSQL each call is a transaction on a connection of its own, as another instance's would be.
    it('changes a record by what it holds now: of callers at once, each sees the value the one before it wrote', async () => {
      const callers = 12;
      const changes = await Promise.all(
        Array.from({ length: callers }, () =>
          store.changeRecord(raw<{ count: number }>('migration'), 'counted', (current) => ({
            put: { count: (current?.count ?? 0) + 1 },
          })),
        ),
      );
      expect(changes.every((change) => change.changed)).toBe(true);
      expect(changes.map((change) => change.value!.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: callers }, (_, i) => i + 1),
      );
      expect(await store.getRecord(raw('migration'), 'counted')).toEqual({ count: callers });
    });

    it('deletes a record only while it holds what the change saw: a new value written at once survives', async () => {
      for (let round = 0; round < 5; round++) {
        await store.putRecord(raw('session'), 'cas:shop', { accessToken: 'old' });
        const [forgot] = await Promise.all([
          store.changeRecord(raw<{ accessToken: string }>('session'), 'cas:shop', (current) =>
            current?.accessToken === 'old' ? { delete: true } : undefined,
          ),
          store.changeRecord(raw<{ accessToken: string }>('session'), 'cas:shop', () => ({
            put: { accessToken: 'new' },
          })),
        ]);
        // Whichever went first, the new value is what is left.
        expect(await store.getRecord(raw('session'), 'cas:shop')).toEqual({ accessToken: 'new' });
        expect(forgot).toEqual(
          forgot.changed ? { changed: true, value: undefined } : { changed: false, value: { accessToken: 'new' } },
        );
      }
    });

    it('changes nothing when the change asks for nothing, or deletes a record that is not there', async () => {
      await store.putRecord(raw('session'), 'cas:kept', { accessToken: 'kept' });
      expect(await store.changeRecord(raw('session'), 'cas:kept', () => undefined)).toEqual({
        changed: false,
        value: { accessToken: 'kept' },
      });
      expect(await store.changeRecord(raw('session'), 'cas:none', () => ({ delete: true }))).toEqual({
        changed: false,
        value: undefined,
      });
      expect(await store.changeRecord(raw('session'), 'cas:kept', () => ({ delete: true }))).toEqual({
        changed: true,
        value: undefined,
      });
      expect(await store.getRecord(raw('session'), 'cas:kept')).toBeUndefined();
    });

    it('keeps and forgets dead letters', async () => {
      const letter = await store.addDeadLetter({
        id: 'dl-records',
        kind: 'call',
        reason: 'refused',
        orderKey: 'x:y:1',
        operation: 'earn',
      });
      expect(letter).toMatchObject({ retries: 0, createdAt: expect.any(String) });
      await store.updateDeadLetter({ ...letter, retries: 1 });
      expect(await store.getDeadLetter('dl-records')).toMatchObject({ retries: 1 });
      expect(await store.removeDeadLetter('dl-records')).toMatchObject({ id: 'dl-records' });
      expect(await store.getDeadLetter('dl-records')).toBeUndefined();
    });

    it("exports and erases a customer's personal data everywhere, keeping the orders' facts and points", async () => {
      const email = `erase-${nextOrderId()}@example.com`;
      const event = orderEvent({
        orderId: nextOrderId(),
        facts: ['paid'],
        customer: { name: 'Eve Erase', email, mobile: '+447700900999' },
      });
      await fold(store, event);
      await store.accept(entry(`k-erase-${sequence}`, { delivery: delivery(JSON.stringify({ email, id: 1 })) }));
      await store.addDeadLetter({
        id: `dl-erase-${sequence}`,
        kind: 'delivery',
        reason: 'x',
        platform: 'testshop',
        shop: 'shop-1',
        delivery: delivery(JSON.stringify({ email })),
      });
      await store.putRecord(raw('adjustment'), `adj-${sequence}`, {
        id: `adj-${sequence}`,
        at: new Date().toISOString(),
        kind: 'earn',
        by: 'admin',
        reason: 'goodwill',
        customer: { email },
        outcome: 'success',
        message: 'ok',
      });
      const match = { emails: [email.toUpperCase()], phones: [], orderIds: [] };

      const exported = await store.exportCustomer(match, redactor(email));
      expect(exported.orders.map((order) => order.key)).toEqual([keyOf(event)]);
      expect(exported.inbox).toHaveLength(1);
      expect(exported.deadLetters).toHaveLength(1);
      expect(exported.adjustments).toHaveLength(1);

      const report = await store.eraseCustomer(match, redactor(email), new Date().toISOString());
      expect(report).toMatchObject({ orders: 1, inbox: 1, deadLetters: 1, records: 1 });
      const order = await store.getOrder(keyOf(event));
      expect(order).toMatchObject({
        facts: ['paid'],
        snapshot: { customer: { name: null, email: null, mobile: null } },
        erasedAt: expect.any(String),
      });
      const after = await store.exportCustomer(match, redactor(email));
      expect(after.orders).toEqual([]);
      expect(JSON.stringify(after)).not.toContain(email);
      expect(JSON.stringify(await store.listDeadLetters())).not.toContain(email);
    });

    it("reaches, for a shop's request, the adjustments made for that shop alone; the operator's erase reaches the rest", async () => {
      const email = `adjusted-${nextOrderId()}@example.com`;
      const adjustment = (id: string, shop?: string) =>
        store.putRecord(raw('adjustment'), `${id}-${sequence}`, {
          id: `${id}-${sequence}`,
          at: new Date().toISOString(),
          kind: 'earn',
          by: shop ? 'shop' : 'admin',
          reason: `goodwill for ${email}`,
          customer: { email },
          ...(shop ? { platform: 'testshop', shop } : {}),
          outcome: 'unknown',
          message: 'in doubt',
          // A call in doubt keeps its request, to send it again: it names the customer.
          request: { email, points: 10, reason: 'goodwill' },
        });
      await adjustment('adj-operator');
      await adjustment('adj-shop-1', 'shop-1');
      await adjustment('adj-shop-2', 'shop-2');
      const ofShop1 = { platform: 'testshop', shop: 'shop-1', emails: [email], phones: [], orderIds: [] };
      const everywhere = { emails: [email], phones: [], orderIds: [] };
      const customerOf = async (id: string) =>
        (await store.getRecord(raw<{ customer: object; request?: object }>('adjustment'), `${id}-${sequence}`))!;

      expect((await store.exportCustomer(ofShop1, redactor(email))).adjustments.map((each) => each.id)).toEqual([
        `adj-shop-1-${sequence}`,
      ]);
      const report = await store.eraseCustomer(ofShop1, redactor(email), new Date().toISOString());
      expect(report).toMatchObject({ adjustments: 1 });
      const erased = await customerOf('adj-shop-1');
      expect(erased.customer).toEqual({});
      expect(erased.request).toBeUndefined();
      // The operator's list of adjustments still reads, the erased one with nothing to send again.
      const listed = await store.listRecords(STORED);
      expect(listed.find(({ id }) => id === `adj-shop-1-${sequence}`)?.value.request).toBeUndefined();
      for (const untouched of ['adj-operator', 'adj-shop-2'])
        expect(await customerOf(untouched)).toMatchObject({ customer: { email }, request: { email } });

      const operators = await store.eraseCustomer(everywhere, redactor(email), new Date().toISOString());
      expect(operators).toMatchObject({ adjustments: 2 });
      expect(JSON.stringify(await store.listRecords(raw('adjustment')))).not.toContain(email);
    });

    it("erases a shop's dedupe keys with it, and no other shop's", async () => {
      const receivedAt = new Date().toISOString();
      const shop = `erased-${sequence}`;
      await store.importItems([
        { type: 'seen', key: `testshop:body:${shop}:orders/paid:abc`, receivedAt },
        { type: 'seen', key: `testshop:body:${shop}-other:orders/paid:abc`, receivedAt },
      ]);
      // A store whose name starts with this one's, with a delivery still waiting: its key stays, or a repeat of it
      // would pass as new and collide with the waiting entry.
      await store.accept(entry(`testshop:body:${shop}:8443:waiting`, { delivery: delivery('{}') }));
      await store.eraseShop('testshop', shop, `testshop:body:${shop}:`);
      const seen: string[] = [];
      for await (const item of store.exportAll()) if (item.type === 'seen') seen.push(item.key);
      expect(seen.filter((key) => key.includes(shop)).sort()).toEqual([
        `testshop:body:${shop}-other:orders/paid:abc`,
        `testshop:body:${shop}:8443:waiting`,
      ]);
      expect(await store.accept(entry(`testshop:body:${shop}:8443:waiting`, { delivery: delivery('{}') }))).toBe(
        'duplicate',
      );
    });

    it('trims the kept deliveries of the inbox and of dead letters, and leaves the others as they are', async () => {
      const whole = JSON.stringify({ id: 7, address1: '1 Whole Body Road' });
      await store.accept(entry(`k-trim-${sequence}`, { delivery: delivery(whole) }));
      await store.accept(entry(`k-trim-other-${sequence}`, { delivery: delivery('{"id":8}') }));
      await store.addDeadLetter({
        id: `dl-trim-${sequence}`,
        kind: 'delivery',
        reason: 'x',
        platform: 'testshop',
        shop: 'shop-1',
        delivery: delivery(whole),
      });
      const seen: string[] = [];
      const report = await store.trimDeliveries((kept) => {
        seen.push(kept.body);
        return kept.body.includes('Whole Body') ? { ...kept, body: '{"id":7}' } : undefined;
      });
      expect(report).toEqual({ inbox: 1, deadLetters: 1 });
      expect(seen).toContain('{"id":8}');
      expect((await store.inboxEntry(`k-trim-${sequence}`))?.delivery).toMatchObject({
        body: '{"id":7}',
        platform: 'testshop',
      });
      expect((await store.inboxEntry(`k-trim-other-${sequence}`))?.delivery?.body).toBe('{"id":8}');
      expect((await store.getDeadLetter(`dl-trim-${sequence}`))?.delivery?.body).toBe('{"id":7}');
      expect(await store.trimDeliveries(() => undefined)).toEqual({ inbox: 0, deadLetters: 0 });
    });

    it('erases everything of one shop and nothing of another', async () => {
      const gone = orderEvent({ orderId: nextOrderId(), facts: ['paid'], shop: 'closing-shop' });
      const kept = orderEvent({ orderId: nextOrderId(), facts: ['paid'], shop: 'other-shop' });
      await fold(store, gone);
      await fold(store, kept);
      await store.putRecord(raw('shop'), 'testshop:closing-shop', {
        platform: 'testshop',
        shop: 'closing-shop',
        uninstalledAt: new Date().toISOString(),
      });
      await store.claimLpOrderId(`lp-${gone.orderId}`, keyOf(gone));
      const report = await store.eraseShop('testshop', 'closing-shop');
      expect(report.orders).toBe(1);
      expect(report.records).toBeGreaterThanOrEqual(1);
      expect(await store.getOrder(keyOf(gone))).toBeUndefined();
      expect(await store.getOrder(keyOf(kept))).toBeDefined();
      expect(await store.getRecord(raw('shop'), 'testshop:closing-shop')).toBeUndefined();
      expect(await store.claimLpOrderId(`lp-${gone.orderId}`, 'someone:else:1')).toBe('someone:else:1');
    });

    it('runs an exclusive job once at a time', async () => {
      let release!: () => void;
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const first = store.exclusive('job', () => {
        started();
        return new Promise<string>((resolve) => (release = () => resolve('first')));
      });
      // The first job holds the job's turn (on PostgreSQL, a lock taken over the network) once it runs: before, a
      // 50 ms sleep, which a loaded machine could outlast, letting the second run first.
      await running;
      expect(await store.exclusive('job', async () => 'second')).toEqual({ ran: false });
      release();
      expect(await first).toEqual({ ran: true, value: 'first' });
      expect(await store.exclusive('job', async () => 'third')).toEqual({ ran: true, value: 'third' });
    });

    it('changes an order’s progress from outside the worker and makes it due', async () => {
      const event = orderEvent({ orderId: nextOrderId(), facts: ['paid'] });
      await fold(store, event);
      for (const claimed of await store.claimDue('w', 100, 60_000))
        await store.saveProgress({ ...claimed, dueAt: null }, { owner: 'w', release: true, leaseMs: 60_000 });
      const changed = await store.updateProgress(keyOf(event), (record) => {
        record.work = { ...record.work, held: {} };
      });
      expect(changed?.dueAt).toBeTruthy();
      expect((await store.claimDue('w', 100, 60_000)).map((record) => record.key)).toContain(keyOf(event));
    });
  });
});

describe.each([
  ['lowdb', lowdb, true],
  ['postgres', postgres, postgresAvailable()],
])('the lanes of the %s store', (_name, make, available) => {
  let backend: Backend;
  let store: LedgerStore;
  const keys = (records: OrderRecord[]) => records.map((record) => record.key).sort();
  const inShop = async (shop: string, lane: Lane, count: number) => {
    const events = Array.from({ length: count }, () => orderEvent({ orderId: nextOrderId(), shop, facts: ['paid'] }));
    for (const event of events) await foldIn(store, lane, event);
    return events.map(keyOf);
  };
  beforeEach(async () => {
    if (!available) return;
    backend = make();
    store = await backend.open();
  });
  afterEach(async () => {
    if (available) await backend.close();
  });

  it.skipIf(!available)('claims live work before backfill, and each lane on its own', async () => {
    const backfill = await inShop('shop-1', 'backfill', 3);
    const live = await inShop('shop-1', 'live', 2);
    // Backfill came first, yet live goes first.
    expect(keys(await store.claimDue('w', 2, 60_000))).toEqual([...live].sort());
    expect(keys(await store.claimDue('w', 10, 60_000, 'live'))).toEqual([]);
    expect(keys(await store.claimDue('w', 10, 60_000, 'backfill'))).toEqual([...backfill].sort());
  });

  it.skipIf(!available)(
    'lets shops take turns within a lane: a small shop is not kept behind a large backlog',
    async () => {
      const large = await inShop('large-shop', 'backfill', 30);
      const small = await inShop('small-shop', 'backfill', 3);
      const first = keys(await store.claimDue('w', 6, 60_000, 'backfill'));
      expect(first.filter((key) => small.includes(key))).toHaveLength(3);
      expect(first.filter((key) => large.includes(key))).toHaveLength(3);
      // The large shop's oldest, in order.
      expect(first.filter((key) => large.includes(key))).toEqual(large.slice(0, 3).sort());
    },
  );

  it.skipIf(!available)('keeps the turns fair across claims that each take more than one round', async () => {
    const a = await inShop('shop-a', 'backfill', 20);
    const b = await inShop('shop-b', 'backfill', 20);
    const got = { a: 0, b: 0 };
    for (let i = 0; i < 5; i++) {
      for (const record of await store.claimDue('w', 3, 60_000, 'backfill')) {
        if (a.includes(record.key)) got.a++;
        if (b.includes(record.key)) got.b++;
      }
    }
    // Fifteen in claims of three (A, B, A, then B, A, B, ...): neither shop more than one ahead.
    expect(got.a + got.b).toBe(15);
    expect(Math.abs(got.a - got.b)).toBeLessThanOrEqual(1);
  });

  it.skipIf(!available)(
    'goes round every shop, small claims among many shops included, each once before any twice, passing over the skipped',
    async () => {
      // More shops than a claim looks at (PostgreSQL walks only as many shops as the claim needs).
      const shops = Array.from({ length: 24 }, (_, i) => `turns-${String(i).padStart(2, '0')}`);
      const byShop = new Map<string, string[]>();
      for (const shop of shops) byShop.set(shop, await inShop(shop, 'backfill', 3));
      const shopOf = (key: string) => [...byShop].find(([, keys]) => keys.includes(key))![0];
      const skipped = shops[5]!;
      const skip = new Set([`testshop:${skipped}`]);
      const served: string[] = [];
      // Claims of 1, 2 and 3 in turn: 46 orders, the 23 shops not skipped twice each.
      for (let n = 0; served.length < 46; n++) {
        const claimed = await store.claimDue('w', (n % 3) + 1, 60_000, 'backfill', skip);
        expect(claimed.length).toBeGreaterThan(0);
        served.push(...claimed.map((record) => shopOf(record.key)));
      }
      expect(served).not.toContain(skipped);
      const first = served.slice(0, 23);
      // The first round reaches every shop once, then the second round every shop once more, in the same order.
      expect(new Set(first).size).toBe(23);
      expect(served.slice(23, 46)).toEqual(first);
      // Once no longer skipped, the skipped shop is served too.
      const rest = await store.claimDue('w', 100, 60_000, 'backfill');
      expect(rest.filter((record) => shopOf(record.key) === skipped)).toHaveLength(3);
    },
  );

  it.skipIf(!available)(
    'lifts a pending backfill order to live when a live event comes, never the other way, and an idle order takes the lane that wakes it',
    async () => {
      const event = orderEvent({ orderId: nextOrderId(), facts: ['paid'] });
      await foldIn(store, 'backfill', event);
      await foldIn(store, 'live', { ...event, deliveryId: 'live-copy' });
      await foldIn(store, 'backfill', { ...event, deliveryId: 'resync-copy' });
      const [claimed] = await store.claimDue('w', 10, 60_000, 'live');
      expect(claimed?.key).toBe(keyOf(event));
      // Done for now: idle. A resync wakes it next, in the backfill lane.
      await store.saveProgress({ ...claimed!, dueAt: null }, { owner: 'w', release: true, leaseMs: 60_000 });
      await foldIn(store, 'backfill', { ...event, deliveryId: 'later-resync', facts: ['fulfilled'] });
      expect(keys(await store.claimDue('w', 10, 60_000, 'live'))).toEqual([]);
      expect(keys(await store.claimDue('w', 10, 60_000, 'backfill'))).toEqual([keyOf(event)]);
    },
  );

  it.skipIf(!available)(
    'counts each lane’s waiting and due orders and the oldest, and keeps the lanes when reopened',
    async () => {
      await inShop('shop-1', 'backfill', 4);
      const live = await inShop('shop-1', 'live', 1);
      const counts = await store.laneCounts();
      expect(counts).toMatchObject({ live: { waiting: 1, due: 1 }, backfill: { waiting: 4, due: 4 } });
      expect(Date.parse(counts.backfill.oldestDueAt ?? '')).toBeLessThanOrEqual(Date.now());
      // Reopened: the files again (lowdb), or another instance on the same database.
      if (_name === 'lowdb') await store.close();
      store = await backend.open();
      expect(await store.laneCounts()).toMatchObject({ live: { waiting: 1 }, backfill: { waiting: 4 } });
      expect(keys(await store.claimDue('w', 1, 60_000))).toEqual(live);
    },
  );
});

describe.skipIf(!postgresAvailable())('moving a ledger from lowdb to PostgreSQL', () => {
  it('copies every order, entry, dead letter, record and registration, and a second copy changes nothing', async () => {
    const source = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await source.open();
    const events = Array.from({ length: 30 }, () =>
      orderEvent({ orderId: nextOrderId(), facts: ['paid', 'fulfilled'] }),
    );
    for (const event of events) await fold(source, event);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Most of them settled, out of memory, as in a ledger that ran a while.
    for (const claimed of await source.claimDue('w', 100, 60_000))
      await source.saveProgress(
        {
          ...claimed,
          dueAt: null,
          upstream: { ...claimed.upstream, points: 'approved' },
          target: { state: 'approved' },
        },
        { owner: 'w', release: true, leaseMs: 60_000 },
      );
    await source.settleQuiet();
    // A resync under way: its orders wait in the backfill lane, and must not jump ahead of live ones once moved.
    const resyncing = orderEvent({ orderId: nextOrderId(), facts: ['paid'] });
    await foldIn(source, 'backfill', resyncing);
    await source.accept(entry('k-moving', { delivery: delivery('{}') }));
    await source.addDeadLetter({
      id: 'dl-moving',
      kind: 'call',
      reason: 'refused',
      orderKey: keyOf(events[0]!),
      operation: 'earn',
    });
    await source.putRecord(raw('reconciliation'), 'woocommerce:shop', {
      highWaterMark: '2026-11-20T00:00:00.000Z',
      lastRun: null,
    });
    await source.claimLpOrderId('lp-moving', keyOf(events[1]!));

    const database = await freshDatabase();
    const { store: target, release } = await openPostgresStore({
      url: database.url,
      dedupeWindowMs: 7 * 86_400_000,
      logger: createLogger({ level: 'silent' }),
    });
    try {
      await target.open();
      const copy = async () => {
        const items = [];
        for await (const item of source.exportAll()) items.push(item);
        await target.importItems(items);
        return items.length;
      };
      expect(await copy()).toBeGreaterThan(30);
      for (const event of events)
        expect(await target.getOrder(keyOf(event))).toMatchObject({
          upstream: { points: 'approved' },
          facts: ['paid', 'fulfilled'],
        });
      expect(await target.inboxEntry('k-moving')).toBeDefined();
      expect(await target.getOrder(keyOf(resyncing))).toMatchObject({ lane: 'backfill' });
      expect((await target.claimDue('w', 10, 60_000, 'backfill')).map((record) => record.key)).toEqual([
        keyOf(resyncing),
      ]);
      expect(await target.hasSeen('k-moving')).toBe(true);
      expect(await target.getDeadLetter('dl-moving')).toBeDefined();
      expect(await target.getRecord(raw('reconciliation'), 'woocommerce:shop')).toMatchObject({
        highWaterMark: '2026-11-20T00:00:00.000Z',
      });
      expect(await target.claimLpOrderId('lp-moving', 'other:shop:1')).toBe(keyOf(events[1]!));
      const counts = await target.countOrders();
      await copy();
      expect(await target.countOrders()).toEqual(counts);
    } finally {
      await target.close();
      await release();
      await database.drop();
      await source.close();
    }
  });
});

describe.skipIf(!postgresAvailable())('instances starting together on a new database', () => {
  it('all start: one migrates, the others wait for it instead of failing', async () => {
    const database = await freshDatabase();
    const opened = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { store, release } = await openPostgresStore({
          url: database.url,
          dedupeWindowMs: 86_400_000,
          logger: createLogger({ level: 'silent' }),
          poolSize: 2,
        });
        await store.open();
        return { store, release };
      }),
    );
    try {
      for (const { store } of opened) expect(await store.countOrders()).toMatchObject({ byState: {} });
    } finally {
      for (const { store, release } of opened) {
        await store.close();
        await release();
      }
      await database.drop();
    }
  });
});
