// Two merchants on one bridge (issue 32), each on their own loyalty account:
// a sandbox per account, each with its own credentials. Signed Shopify
// deliveries are posted to the running bridge; each sandbox shows what
// reached it. The default account is the environment's (LOYALTY_*) and
// serves the shop the environment names; account B is kept in the ledger.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../src/accounts/account-records.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { raw } from '../helpers/raw-records.ts';

/** A merchant who installed the app (open installs) and whom the operator links to account B. */
const SHOP_B = 'merchant-b.myshopify.com';
/** A stranger's shop: installed, linked to nobody. */
const STRANGER = 'stranger-shop.myshopify.com';
const ADMIN_TOKEN = 'accounts-test-admin-token-0123456789';
const B_CREDENTIALS = { apiKey: 'merchant-b-key-7a9f', brandId: 'merchant-b-brand' };

function accountsSuite(backend: 'lowdb' | 'postgres') {
  let defaultSandbox: TestSandbox;
  let sandboxB: TestSandbox;
  let bridge: RunningBridge;
  let accountB: AccountRecord;
  let database: TestDatabase | undefined;
  const dataDir = tempDataDir();
  const logged: string[] = [];

  beforeAll(async () => {
    database = backend === 'postgres' ? await freshDatabase() : undefined;
    defaultSandbox = await startTestSandbox({ rateLimit: 100_000 });
    sandboxB = await startTestSandbox({ ...B_CREDENTIALS, rateLimit: 100_000, activities: { '1': 100, '7': 250 } });
    bridge = await startTestBridge(
      {
        SHOPIFY_API_SECRET: SHOPIFY_SECRET,
        SHOPIFY_SHOPS: SHOP,
        SHOPIFY_OPEN_INSTALLS: 'true',
        LOYALTY_BASE_URL: defaultSandbox.url,
        LOYALTY_API_KEY: 'test-sandbox-key',
        LOYALTY_BRAND_ID: 'test-brand',
        // Account B's API key is kept sealed (outside sandbox mode a key is never stored plain).
        SECRETS_KEY: randomBytes(32).toString('base64'),
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        ...(database ? { DATABASE_URL: database.url } : {}),
      },
      createLogger({ level: 'warn', destination: { write: (line: string) => void logged.push(line) } }),
    );
    const created = await bridge.accounts.create(
      {
        name: 'Merchant B',
        baseUrl: sandboxB.url,
        ...B_CREDENTIALS,
        rateLimitPerMinute: 600,
        settings: { LOYALTY_EARN_ACTIVITY_ID: '7' },
      },
      'test',
    );
    if (!created.ok) throw new Error(created.errors.join('\n'));
    accountB = created.value;
    await bridge.accounts.link({ platform: 'shopify', shop: SHOP_B }, accountB.id, 'test');
  });
  afterAll(async () => {
    await bridge?.stop();
    await defaultSandbox?.close();
    await sandboxB?.close();
    await database?.drop();
  });

  async function deliver(shop: string, topic: string, body: string) {
    const response = await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic, body, shop }),
      body,
    });
    expect(((await response.json()) as { result?: string }).result).toBe('accepted');
  }
  const earningsAt = (sandbox: TestSandbox, orderId: string) =>
    sandbox.store.snapshot().earnings.filter((earning) => earning.orderId === orderId);

  describe(`two merchants on one bridge (${backend})`, () => {
    it('checked account B’s credentials with the service when it was saved', () => {
      expect(accountB.check).toMatchObject({ status: 'connected' });
    });

    it('keeps account B’s API key sealed: not in plain text under DATA_DIR or in the tables', async () => {
      const files = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
          entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
        );
      for (const file of files(dataDir)) expect(readFileSync(file, 'utf8'), file).not.toContain(B_CREDENTIALS.apiKey);
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const { rows } = await client.query<{ value: string }>(
            `SELECT value::text FROM lb_records WHERE kind = 'account'`,
          );
          expect(rows.length).toBe(1);
          expect(rows[0]!.value).not.toContain(B_CREDENTIALS.apiKey);
        } finally {
          await client.end();
        }
      }
      // Read back through the store, it is the key the calls carry.
      expect((await bridge.accounts.get(accountB.id))?.apiKey).toBe(B_CREDENTIALS.apiKey);
    });

    it('sends each shop’s orders to its own account, with that account’s credentials and rules', async () => {
      await deliver(SHOP, 'orders/paid', shopifyOrderJson({ id: '7300000000001' }));
      await deliver(SHOP_B, 'orders/paid', shopifyOrderJson({ id: '7300000000002' }));
      await bridge.engine.drain();
      expect(earningsAt(defaultSandbox, '7300000000001')).toEqual([
        expect.objectContaining({ status: 'pending', points: 100 }),
      ]);
      expect(earningsAt(sandboxB, '7300000000001')).toEqual([]);
      // Account B earns under its own activity (7, 250 points), at its own service.
      expect(earningsAt(sandboxB, '7300000000002')).toEqual([
        expect.objectContaining({ status: 'pending', points: 250 }),
      ]);
      expect(earningsAt(defaultSandbox, '7300000000002')).toEqual([]);
      expect((await bridge.engine.store.getOrder(`shopify:${SHOP_B}:7300000000002`))?.upstream.account).toBe(
        accountB.id,
      );
    });

    it('applies a setting changed while the bridge runs to the next order, and keeps an earned order’s activity', async () => {
      expect((await bridge.accounts.setSettings(accountB.id, { LOYALTY_EARN_ACTIVITY_ID: '1' }, 'test')).ok).toBe(true);
      await deliver(SHOP_B, 'orders/paid', shopifyOrderJson({ id: '7300000000010' }));
      await bridge.engine.drain();
      expect(earningsAt(sandboxB, '7300000000010')).toEqual([expect.objectContaining({ points: 100 })]);
      // An order earned before the change keeps the activity of its first earn.
      expect((await bridge.engine.store.getOrder(`shopify:${SHOP_B}:7300000000002`))?.upstream.earnActivityId).toBe(
        '7',
      );
      expect((await bridge.accounts.setSettings(accountB.id, { LOYALTY_EARN_ACTIVITY_ID: '7' }, 'test')).ok).toBe(true);
    });

    it('approves an order on the account it earned on, after its shop moved to another', async () => {
      await deliver(SHOP_B, 'orders/paid', shopifyOrderJson({ id: '7300000000003' }));
      await bridge.engine.drain();
      await bridge.accounts.link({ platform: 'shopify', shop: SHOP_B }, 'default', 'test');
      await deliver(
        SHOP_B,
        'orders/fulfilled',
        shopifyOrderJson({ id: '7300000000003', fulfillmentStatus: 'fulfilled' }),
      );
      await deliver(SHOP_B, 'orders/paid', shopifyOrderJson({ id: '7300000000004' }));
      await bridge.engine.drain();
      expect(earningsAt(sandboxB, '7300000000003')).toEqual([expect.objectContaining({ status: 'approved' })]);
      expect(earningsAt(defaultSandbox, '7300000000003')).toEqual([]);
      // A new order of the moved shop goes to its new account.
      expect(earningsAt(defaultSandbox, '7300000000004')).toEqual([expect.objectContaining({ status: 'pending' })]);
      await bridge.accounts.link({ platform: 'shopify', shop: SHOP_B }, accountB.id, 'test');
    });

    it('adjusts points and reads a customer’s points on the account named, the default one otherwise', async () => {
      const admin = (path: string, init: RequestInit = {}) =>
        fetch(`${bridge.http.localUrl}/admin/api${path}`, {
          ...init,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        });
      const earn = {
        activityId: '7',
        name: 'Ada',
        email: 'ada@example.com',
        mobile: '+12125550199',
        reason: 'goodwill',
      };
      expect(
        (await admin('/adjustments/earn', { method: 'POST', body: JSON.stringify({ ...earn, account: accountB.id }) }))
          .status,
      ).toBe(201);
      expect(sandboxB.store.snapshot().earnings.filter((earning) => earning.email === 'ada@example.com')).toHaveLength(
        1,
      );
      expect(
        defaultSandbox.store.snapshot().earnings.filter((earning) => earning.email === 'ada@example.com'),
      ).toHaveLength(0);
      const points = (await (
        await admin(`/customers/points?email=ada%40example.com&account=${accountB.id}`)
      ).json()) as { account: string };
      expect(points.account).toBe(accountB.id);
      expect(
        (await admin('/adjustments/earn', { method: 'POST', body: JSON.stringify({ ...earn, account: 'nobody' }) }))
          .status,
      ).toBe(404);
    });

    it('writes no change that was judged before the account changed under it (a merchant’s change while the operator shares it)', async () => {
      const own = { platform: 'shopify', shop: 'merchant-own.myshopify.com' };
      const made = await bridge.accounts.create(
        { name: 'Own', baseUrl: sandboxB.url, ...B_CREDENTIALS },
        'shopify merchant-own.myshopify.com',
        own,
      );
      if (!made.ok) throw new Error(made.errors.join('\n'));
      await bridge.accounts.link(own, made.value.id, 'shopify merchant-own.myshopify.com');
      // The merchant's new address answers only when the test lets it; while its credentials are checked, the
      // operator shares the account. (Before, a 50 ms sleep and an answer after 300 ms set the order, and a loaded
      // machine could swap it.)
      let asked!: () => void;
      const checking = new Promise<void>((resolve) => (asked = resolve));
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const slow = createServer((_req, res) => {
        asked();
        void answered.then(() =>
          res.writeHead(401).end('{"response":{"status":"failure","message":"Invalid auth","data":{}}}'),
        );
      });
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
      try {
        const changing = bridge.accounts.update(
          made.value.id,
          { baseUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`, apiKey: 'merchant-new-key-0000' },
          'shopify merchant-own.myshopify.com',
        );
        await checking;
        await bridge.accounts.link(
          { platform: 'shopify', shop: 'another-merchant.myshopify.com' },
          made.value.id,
          'operator',
        );
        answer();
        expect(await changing).toMatchObject({ ok: false, status: 409 });
        expect((await bridge.accounts.get(made.value.id))?.baseUrl).toBe(sandboxB.url);
      } finally {
        answer();
        slow.close();
        await bridge.accounts.link(
          { platform: 'shopify', shop: 'another-merchant.myshopify.com' },
          undefined,
          'operator',
        );
        await bridge.accounts.link(own, undefined, 'operator');
      }
    });

    it('never sends a kept key to a new address: a new baseUrl needs the key again', async () => {
      const moved = await bridge.accounts.update(accountB.id, { baseUrl: 'https://elsewhere.example' }, 'test');
      expect(moved).toMatchObject({
        ok: false,
        status: 400,
        errors: [expect.stringMatching(/^apiKey: is required with a new baseUrl/)],
      });
      expect((await bridge.accounts.get(accountB.id))?.baseUrl).toBe(sandboxB.url);
    });

    it('keeps a removed account for the orders that earned on it: their approval still goes there', async () => {
      const c = sandboxB.addAccount({ activities: { '1': 100 } });
      const created = await bridge.accounts.create(
        { name: 'Merchant C', baseUrl: sandboxB.url, apiKey: c.credentials.apiKey, brandId: c.credentials.brandId },
        'test',
      );
      if (!created.ok) throw new Error(created.errors.join('\n'));
      const accountC = created.value;
      const shopC = 'merchant-c.myshopify.com';
      await bridge.accounts.link({ platform: 'shopify', shop: shopC }, accountC.id, 'test');
      await deliver(shopC, 'orders/paid', shopifyOrderJson({ id: '7300000000009' }));
      await bridge.engine.drain();
      expect(c.store.snapshot().earnings).toEqual([
        expect.objectContaining({ orderId: '7300000000009', status: 'pending' }),
      ]);

      // The merchant leaves: the shop moves, the account is removed; the earned order waits for its fulfilment.
      await bridge.accounts.link({ platform: 'shopify', shop: shopC }, 'default', 'test');
      expect(await bridge.accounts.remove(accountC.id, 'test')).toMatchObject({ ok: true });
      expect((await bridge.accounts.list()).map((account) => account.id)).not.toContain(accountC.id);
      expect(await bridge.accounts.link({ platform: 'shopify', shop: shopC }, accountC.id, 'test')).toMatchObject({
        ok: false,
        status: 404,
      });
      await deliver(
        shopC,
        'orders/fulfilled',
        shopifyOrderJson({ id: '7300000000009', fulfillmentStatus: 'fulfilled' }),
      );
      await bridge.engine.drain();
      expect(c.store.snapshot().earnings).toEqual([
        expect.objectContaining({ orderId: '7300000000009', status: 'approved' }),
      ]);
      await bridge.accounts.link({ platform: 'shopify', shop: shopC }, undefined, 'test');
    });

    it('earns nowhere for a stranger’s shop until it is linked; then its waiting orders earn on its account', async () => {
      await deliver(STRANGER, 'orders/paid', shopifyOrderJson({ id: '7300000000005' }));
      await bridge.engine.drain();
      const waiting = await bridge.engine.store.getOrder(`shopify:${STRANGER}:7300000000005`);
      expect(waiting).toMatchObject({ target: { reason: 'no_account' }, upstream: { points: 'none' } });
      expect(waiting?.upstream.account).toBeUndefined();
      expect(earningsAt(defaultSandbox, '7300000000005')).toEqual([]);
      expect(earningsAt(sandboxB, '7300000000005')).toEqual([]);

      await bridge.accounts.link({ platform: 'shopify', shop: STRANGER }, accountB.id, 'test');
      await eventually(async () => {
        await bridge.engine.drain();
        expect(earningsAt(sandboxB, '7300000000005')).toEqual([
          expect.objectContaining({ status: 'pending', points: 250 }),
        ]);
      });
      expect(earningsAt(defaultSandbox, '7300000000005')).toEqual([]);
    });

    it('exports and erases a customer for one account only', async () => {
      const match = { emails: ['grace@example.com'], phones: [], orderIds: [] };
      // Manual adjustments for her on each account (one of an earlier release, which names none: the default's).
      const adjustment = (id: string, account: string | undefined) => ({
        id,
        at: new Date().toISOString(),
        kind: 'earn',
        by: 'admin',
        reason: `goodwill ${id}`,
        customer: { email: 'grace@example.com' },
        ...(account ? { account } : {}),
        outcome: 'success',
        message: 'ok',
      });
      await bridge.engine.store.putRecord(raw('adjustment'), 'adj-of-b', adjustment('adj-of-b', accountB.id));
      await bridge.engine.store.putRecord(raw('adjustment'), 'adj-earlier', adjustment('adj-earlier', undefined));
      const ofB = await bridge.engine.privacy.exportCustomer(match, accountB.id);
      expect(ofB.adjustments.map((each) => each.id)).toEqual(['adj-of-b']);
      expect((await bridge.engine.privacy.exportCustomer(match, 'default')).adjustments.map((each) => each.id)).toEqual(
        ['adj-earlier'],
      );
      const ordersOfB = ofB.orders.map((order) => order.key);
      expect(ordersOfB).toContain(`shopify:${SHOP_B}:7300000000002`);
      expect(ordersOfB).not.toContain(`shopify:${SHOP}:7300000000001`);
      // The order of SHOP_B that earned on the default account while the shop was moved is the default's.
      expect(ordersOfB).not.toContain(`shopify:${SHOP_B}:7300000000004`);
      const all = await bridge.engine.privacy.exportCustomer(match);
      expect(all.orders.length).toBeGreaterThan(ofB.orders.length);
      // The same through the admin API.
      const answered = (await (
        await fetch(
          `${bridge.http.localUrl}/admin/api/customers/export?email=grace%40example.com&account=${accountB.id}`,
          {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          },
        )
      ).json()) as { orders: Array<{ key: string }>; request: { account: string } };
      expect(answered.request.account).toBe(accountB.id);
      expect(answered.orders.map((order) => order.key).sort()).toEqual([...ordersOfB].sort());

      const erased = await bridge.engine.privacy.eraseCustomer(match, 'admin', accountB.id);
      expect(erased.orders).toBeGreaterThan(0);
      expect((await bridge.engine.privacy.exportCustomer(match, accountB.id)).orders).toEqual([]);
      const kept = (await bridge.engine.privacy.exportCustomer(match, 'default')).orders.map((order) => order.key);
      expect(kept).toContain(`shopify:${SHOP}:7300000000001`);
      // SHOP_B's order that earned on the default account while the shop was moved is the default account's: kept.
      expect(kept).toContain(`shopify:${SHOP_B}:7300000000004`);
      expect((await bridge.engine.store.getOrder(`shopify:${SHOP_B}:7300000000004`))?.snapshot.customer.email).toBe(
        'grace@example.com',
      );
    });

    it('pauses only the account whose key the service refuses', async () => {
      sandboxB.faults.configure({ forced: { status: 401, count: 1_000_000, message: 'Invalid auth' } });
      try {
        await deliver(SHOP_B, 'orders/paid', shopifyOrderJson({ id: '7300000000006' }));
        await eventually(async () => expect((await bridge.accounts.runtime(accountB.id))?.authPause.paused).toBe(true));
        // A merchant's refused key does not take the bridge out of its load balancer: it stays ready for every shop.
        const ready = await fetch(`${bridge.http.localUrl}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as { checks: { upstream: { ok: boolean } } }).checks.upstream.ok).toBe(true);
        // The operator is told which account, in the log and on the accounts panel's answer.
        expect(
          logged.filter((line) => line.includes('refuses the credentials of the account Merchant B')),
        ).toHaveLength(1);
        const shown = await fetch(`${bridge.http.localUrl}/admin/api/accounts/${accountB.id}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        expect(((await shown.json()) as { account: { health: { paused: boolean } } }).account.health).toMatchObject({
          paused: true,
        });
        // The default account goes on.
        await deliver(SHOP, 'orders/paid', shopifyOrderJson({ id: '7300000000007' }));
        await bridge.engine.drain();
        expect(earningsAt(defaultSandbox, '7300000000007')).toEqual([expect.objectContaining({ status: 'pending' })]);
        expect((await bridge.accounts.runtime('default'))?.authPause.paused).toBe(false);
        expect(await bridge.engine.store.listDeadLetters()).toEqual([]);
      } finally {
        sandboxB.faults.configure({});
      }
      // Let in again: the waiting order goes at once.
      expect(await (await bridge.accounts.runtime(accountB.id))?.authPause.probeNow()).toBe(false);
      await eventually(async () => {
        await bridge.engine.drain();
        expect(earningsAt(sandboxB, '7300000000006')).toEqual([expect.objectContaining({ status: 'pending' })]);
      });
    });
  });
}

accountsSuite('lowdb');
describe.skipIf(!postgresAvailable())('on PostgreSQL', () => accountsSuite('postgres'));
