// Loyalty accounts through the operator's admin API, against a running
// bridge on lowdb and on PostgreSQL: accounts made, read, changed and
// deleted, with one error line per bad field; their settings by the
// configuration's names; which account each shop earns on, and links moved;
// deletes refused while shops are linked or orders have calls to make; an
// audit of every change (who, when, what). No answer of any route, and no
// log line, ever holds an account's API key.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { freshDatabase, postgresAvailable, type TestDatabase } from '../helpers/postgres.ts';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-server.ts';
import { SHOP, SHOPIFY_SECRET, shopifyHeaders, shopifyOrderJson } from '../helpers/shopify.ts';
import { WOO_ENV } from '../helpers/woocommerce.ts';

const TOKEN = 'accounts-admin-token-0123456789abcdef';
const KEY_A = 'acct-a-secret-key-5f1e2d3c4b5a-WXYZ';
const KEY_B = 'acct-b-secret-key-9a8b7c6d5e4f-QRST';
const KEY_NEW = 'acct-a-rotated-key-0f9e8d7c6b5a-MNOP';
const KEYS = [KEY_A, KEY_B, KEY_NEW];
const STRANGER = 'stranger-store.myshopify.com';

/** The field each error line is about, in order: one line per bad field. */
const fieldsOf = (errors: string[]) => errors.map((line) => line.slice(0, line.indexOf(':'))).sort();

const backends: Array<[string, boolean]> = [
  ['lowdb', true],
  ['PostgreSQL', postgresAvailable()],
];

describe.each(backends)('accounts through the admin API on %s', (backend, available) => {
  let bridge: RunningBridge;
  let sandboxA: TestSandbox;
  let sandboxB: TestSandbox;
  let database: TestDatabase | undefined;
  /** Every answer and log line of the run, for the last test's look for keys. */
  const seen: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    // Activity 7 is the one account A's settings name.
    sandboxA = await startTestSandbox({ apiKey: KEY_A, brandId: 'brand-a', activities: { '1': 100, '7': 250 } });
    sandboxB = await startTestSandbox({ apiKey: KEY_B, brandId: 'brand-b' });
    database = backend === 'PostgreSQL' ? await freshDatabase() : undefined;
    bridge = await startTestBridge(
      {
        ADMIN_TOKEN: TOKEN,
        ADMIN_TOKEN_LABEL: 'ops-laptop',
        SHOPIFY_API_SECRET: SHOPIFY_SECRET,
        ...WOO_ENV,
        RECONCILE_INTERVAL_MINUTES: '0',
        LOYALTY_MAX_RETRIES: '0',
        LOG_LEVEL: 'debug',
        ...(database ? { DATABASE_URL: database.url } : {}),
      },
      createLogger({ level: 'debug', destination: { write: (line: string) => void seen.push(line) } }),
    );
  }, 60_000);
  afterAll(async () => {
    await bridge?.stop();
    await sandboxA?.close();
    await sandboxB?.close();
    await database?.drop();
    nock.cleanAll();
    nock.enableNetConnect();
  });

  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${bridge.http.localUrl}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    seen.push(text);
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as any };
  }
  const accountA = () => ({ name: 'Alpha Rewards', baseUrl: sandboxA.url, apiKey: KEY_A, brandId: 'brand-a' });
  const shopsBy = async () =>
    Object.fromEntries(
      ((await call('GET', '/shops')).body.shops as any[]).map((shop) => [`${shop.platform}:${shop.shop}`, shop]),
    );
  async function deliver(orderId: string) {
    const body = shopifyOrderJson({ id: orderId });
    await fetch(`${bridge.http.localUrl}/webhooks/shopify`, {
      method: 'POST',
      headers: shopifyHeaders({ topic: 'orders/paid', body }),
      body,
    });
  }
  const orderOf = (orderId: string) => bridge.engine.store.getOrder(`shopify:${SHOP}:${orderId}`);

  let idA = '';
  let idB = '';

  describe.skipIf(!available)('making accounts', () => {
    it('refuses a bad account with one line per bad field, and keeps nothing', async () => {
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['nothing given', {}, ['name', 'apiKey', 'brandId', 'baseUrl']],
        [
          'every field wrong',
          { name: 5, baseUrl: 'ftp://loyalty.example', apiKey: '', brandId: [], rateLimitPerMinute: 0 },
          ['name', 'apiKey', 'brandId', 'baseUrl', 'rateLimitPerMinute'],
        ],
        ['a field accounts do not have', { ...accountA(), colour: 'red' }, ['colour']],
        ['a key in the address', { ...accountA(), baseUrl: `${sandboxA.url}?key=x` }, ['baseUrl']],
        [
          'bad settings, by their configuration names',
          { ...accountA(), settings: { EARN_TRIGGER: 'sometimes', MIN_ORDER_TOTAL: 'lots', LOYALTY_API_KEY: 'x' } },
          ['EARN_TRIGGER', 'MIN_ORDER_TOTAL', 'LOYALTY_API_KEY'],
        ],
      ];
      for (const [what, body, fields] of cases) {
        const answer = await call('POST', '/accounts', body);
        expect([what, answer.status]).toEqual([what, 400]);
        expect(fieldsOf(answer.body.errors), what).toEqual(fields.sort());
      }
      expect((await call('POST', '/accounts', '[1,2]')).body.errors).toEqual(['body: must be a JSON object']);
      // Keys are outside input: "__proto__" is refused as a key, not taken for the settings' prototype.
      const proto = await call('POST', '/accounts', `{"name":"p","settings":{"__proto__":{"EARN_TRIGGER":"placed"}}}`);
      expect(proto.body.errors).toContainEqual(expect.stringMatching(/^__proto__: is not a program setting/));
      expect((await call('GET', '/accounts')).body.accounts).toHaveLength(1);
    });

    it('makes one: 201 with its id, its fields, its key as the last four characters and its credentials checked', async () => {
      const answer = await call('POST', '/accounts', {
        ...accountA(),
        rateLimitPerMinute: 300,
        settings: { LOYALTY_EARN_ACTIVITY_ID: '7' },
      });
      expect(answer.status).toBe(201);
      expect(answer.body.account).toMatchObject({
        name: 'Alpha Rewards',
        baseUrl: sandboxA.url,
        brandId: 'brand-a',
        rateLimitPerMinute: 300,
        apiKeyHint: '…WXYZ',
        settings: { LOYALTY_EARN_ACTIVITY_ID: '7' },
        check: { status: 'connected' },
        madeFor: null,
        readOnly: false,
      });
      expect(answer.body.account.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers.get('location')).toBe(`/admin/api/accounts/${answer.body.account.id}`);
      idA = answer.body.account.id;
    });

    it('says when the service refuses the credentials, or cannot be reached', async () => {
      const refused = await call('POST', '/accounts', { ...accountA(), name: 'Wrong key', apiKey: KEY_B });
      expect(refused.body.account.check).toMatchObject({ status: 'refused' });
      const closed = await startTestSandbox({ apiKey: KEY_B, brandId: 'x' });
      await closed.close();
      const unreachable = await call('POST', '/accounts', {
        ...accountA(),
        name: 'Nobody there',
        baseUrl: closed.url,
      });
      expect(unreachable.body.account.check).toMatchObject({ status: 'unreachable' });
      // Some other server's JSON 404, or a bare 400, is not the service saying yes: the credentials were never
      // looked at. Only the service's own words for a refusal ("Invalid Source", say) are.
      const wrongAddresses = [];
      for (const [status, body] of [
        [404, '{"error":"not found"}'],
        [400, '{}'],
      ] as const) {
        const elsewhere = createServer((_request, response) =>
          response.writeHead(status, { 'content-type': 'application/json' }).end(body),
        );
        await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
        const wrongAddress = await call('POST', '/accounts', {
          ...accountA(),
          name: `Wrong address ${status}`,
          baseUrl: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`,
        });
        elsewhere.close();
        expect(wrongAddress.body.account.check, String(status)).toMatchObject({
          status: 'unreachable',
          detail: expect.stringMatching(new RegExp(String(status))),
        });
        wrongAddresses.push(wrongAddress.body.account.id as string);
      }
      for (const id of [refused.body.account.id, unreachable.body.account.id, ...wrongAddresses])
        expect((await call('DELETE', `/accounts/${id}`)).status).toBe(200);
    });

    it('lists the default account first, read-only and the environment’s, then each stored one', async () => {
      const made = await call('POST', '/accounts', {
        name: 'Beta Points',
        baseUrl: sandboxB.url,
        apiKey: KEY_B,
        brandId: 'brand-b',
      });
      idB = made.body.account.id;
      const { body } = await call('GET', '/accounts');
      expect(body.accounts[0].id).toBe('default');
      expect(body.accounts[0]).toMatchObject({ id: 'default', readOnly: true, baseUrl: `${bridge.loyaltyBaseUrl}` });
      expect(
        body.accounts
          .slice(1)
          .map((account: any) => account.id)
          .sort(),
      ).toEqual([idA, idB].sort());
      expect(body.accounts.find((account: any) => account.id === idB)).toMatchObject({
        rateLimitPerMinute: 500,
        health: { paused: false, deadLetters: 0, limitPerMinute: expect.any(Number) },
      });
    });

    it('reads one, and answers 404 for an account that does not exist', async () => {
      expect((await call('GET', `/accounts/${idA}`)).body.account).toMatchObject({ id: idA, name: 'Alpha Rewards' });
      expect((await call('GET', '/accounts/default')).body.account).toMatchObject({ id: 'default', readOnly: true });
      const missing = await call('GET', '/accounts/no-such-account');
      expect(missing.status).toBe(404);
      expect(missing.body.errors).toEqual(['no account no-such-account']);
    });
  });

  describe.skipIf(!available)('changing accounts', () => {
    it('changes fields, checking new credentials again, with one line per bad field', async () => {
      const renamed = await call('PATCH', `/accounts/${idA}`, { name: 'Alpha Loyalty', rateLimitPerMinute: 400 });
      expect(renamed.status).toBe(200);
      expect(renamed.body.account).toMatchObject({ name: 'Alpha Loyalty', rateLimitPerMinute: 400 });
      const bad = await call('PATCH', `/accounts/${idA}`, { name: '', rateLimitPerMinute: 1.5, brand: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toHaveLength(3);
      expect(bad.body.errors.join('\n')).toMatch(/^name: .*\nrateLimitPerMinute: .*\nbrand: /);
      const settings = await call('PATCH', `/accounts/${idA}`, { settings: { MIN_ORDER_TOTAL: '5' } });
      expect(settings.status).toBe(400);
      expect(settings.body.errors[0]).toMatch(/^settings: /);
      // A rotated key, checked at once: the service does not know it yet.
      const rotated = await call('PATCH', `/accounts/${idA}`, { apiKey: KEY_NEW });
      expect(rotated.body.account).toMatchObject({ apiKeyHint: '…MNOP', check: { status: 'refused' } });
      const back = await call('PATCH', `/accounts/${idA}`, { apiKey: KEY_A });
      expect(back.body.account).toMatchObject({ apiKeyHint: '…WXYZ', check: { status: 'connected' } });
      expect((await call('POST', `/accounts/${idA}/check`)).body.check).toMatchObject({ status: 'connected' });
    });

    it('keeps settings by the configuration’s names: validated per key, null back to the default, the ones in force answered', async () => {
      const before = await call('GET', `/accounts/${idA}/settings`);
      expect(before.body.settings).toMatchObject({ LOYALTY_EARN_ACTIVITY_ID: '7', EARN_TRIGGER: 'paid' });
      const changed = await call('PATCH', `/accounts/${idA}/settings`, {
        EARN_TRIGGER: 'placed',
        COUNT_TEST_ORDERS: 'true',
      });
      expect(changed.status).toBe(200);
      expect(changed.body.settings).toMatchObject({ EARN_TRIGGER: 'placed', COUNT_TEST_ORDERS: true });
      expect(changed.body.saved).toEqual({
        LOYALTY_EARN_ACTIVITY_ID: '7',
        EARN_TRIGGER: 'placed',
        COUNT_TEST_ORDERS: 'true',
      });
      const reset = await call('PATCH', `/accounts/${idA}/settings`, { EARN_TRIGGER: null });
      expect(reset.body.settings.EARN_TRIGGER).toBe('paid');
      expect(reset.body.saved).not.toHaveProperty('EARN_TRIGGER');
      const bad = await call('PATCH', `/accounts/${idA}/settings`, { EARN_TRIGGER: 'never', SHOPIFY_SHOPS: 'x' });
      expect(bad.status).toBe(400);
      expect(fieldsOf(bad.body.errors)).toEqual(['EARN_TRIGGER', 'SHOPIFY_SHOPS']);
      expect(bad.body.errors).toContainEqual(expect.stringMatching(/^SHOPIFY_SHOPS: is not a program setting/));
    });

    it('leaves the default account to the environment: read, never changed here', async () => {
      expect((await call('GET', '/accounts/default/settings')).body.settings).toMatchObject({
        LOYALTY_EARN_ACTIVITY_ID: '1',
      });
      for (const [method, path, body] of [
        ['PATCH', '/accounts/default', { name: 'mine' }],
        ['PATCH', '/accounts/default/settings', { EARN_TRIGGER: 'placed' }],
        ['DELETE', '/accounts/default', undefined],
        ['POST', '/accounts/default/check', undefined],
      ] as const) {
        const answer = await call(method, path, body);
        expect([method, path, answer.status]).toEqual([method, path, 409]);
        expect(answer.body.errors[0]).toContain('environment');
      }
    });
  });

  describe.skipIf(!available)('shops and the account each earns on', () => {
    it('lists every shop the bridge knows, the operator’s on the default account', async () => {
      const shops = await shopsBy();
      expect(shops[`shopify:${SHOP}`]).toMatchObject({ account: 'default', link: null });
      const woo = Object.values(shops).find((shop: any) => shop.platform === 'woocommerce');
      expect(woo).toMatchObject({ account: 'default' });
    });

    it('moves a shop to an account and back, and links a shop the bridge does not serve yet', async () => {
      const moved = await call('PATCH', `/shops/shopify/${SHOP}`, { account: idA });
      expect(moved.status).toBe(200);
      expect(moved.body.shop).toMatchObject({
        platform: 'shopify',
        shop: SHOP,
        account: idA,
        accountName: 'Alpha Loyalty',
        link: { by: 'ops-laptop' },
      });
      expect((await call('GET', `/accounts/${idA}`)).body.account.shops).toEqual([{ platform: 'shopify', shop: SHOP }]);
      expect((await call('PATCH', `/shops/shopify/${STRANGER}`, { account: idB })).body.shop.account).toBe(idB);
      expect((await shopsBy())[`shopify:${STRANGER}`]).toMatchObject({ account: idB });
      const unlinked = await call('PATCH', `/shops/shopify/${STRANGER}`, { account: null });
      expect(unlinked.body.shop).toMatchObject({ account: null, link: null });
      expect(await shopsBy()).not.toHaveProperty(`shopify:${STRANGER}`);
    });

    it('refuses a bad link with one line per bad field, and a link to an account that does not exist', async () => {
      const bad = await call('PATCH', '/shops/magento/x', { account: 5, extra: true });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toHaveLength(3);
      expect(bad.body.errors.join('\n')).toMatch(/^platform: .*\naccount: .*\nextra: /);
      const missing = await call('PATCH', `/shops/shopify/${SHOP}`, { account: 'no-such-account' });
      expect(missing.status).toBe(404);
    });

    it('sends the shop’s orders to its account', async () => {
      await deliver('8810000000001');
      await bridge.engine.drain();
      expect(sandboxA.store.snapshot().earnings.map((earning) => earning.orderId)).toContain('8810000000001');
      expect((await orderOf('8810000000001'))?.upstream.account).toBe(idA);
    });
  });

  describe.skipIf(!available)('deleting', () => {
    it('is refused while a shop is linked, naming it', async () => {
      const refused = await call('DELETE', `/accounts/${idA}`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0]).toContain(`shopify ${SHOP}`);
    });

    it('is refused while its orders have calls to make, and counts its dead letters', async () => {
      await call('PATCH', `/shops/shopify/${SHOP}`, { account: idB });
      // One call refused for good (a dead letter of B's), then the service unavailable: the next order waits to retry.
      sandboxB.faults.configure({ forced: { status: 400, count: 1, message: 'Invalid Source' } });
      await deliver('8820000000001');
      await eventually(async () => expect((await bridge.engine.store.listDeadLetters()).length).toBe(1), 10_000);
      sandboxB.faults.configure({ forced: { status: 503, count: 1_000_000 } });
      await deliver('8820000000002');
      await eventually(async () => expect((await orderOf('8820000000002'))?.upstream.account).toBe(idB), 10_000);
      await call('PATCH', `/shops/shopify/${SHOP}`, { account: null });
      const refused = await call('DELETE', `/accounts/${idB}`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0]).toContain('orders of this account still have calls to make');
      const { body } = await call('GET', '/accounts');
      expect(body.accounts.find((account: any) => account.id === idB).health.deadLetters).toBe(1);
      expect(body.accounts.find((account: any) => account.id === idA).health.deadLetters).toBe(0);
      sandboxB.faults.configure({});
    });

    it('deletes an account no shop or order needs, which then is gone', async () => {
      const deleted = await call('DELETE', `/accounts/${idA}`);
      expect(deleted).toMatchObject({ status: 200, body: { deleted: idA } });
      expect((await call('GET', `/accounts/${idA}`)).status).toBe(404);
      expect((await call('DELETE', `/accounts/${idA}`)).status).toBe(404);
    });
  });

  describe.skipIf(!available)('the audit', () => {
    it('keeps who, when and what of every change, newest first, keys as their last four characters', async () => {
      const { body } = await call('GET', '/audit');
      const entries = body.audit as any[];
      expect(entries.every((entry) => entry.by === 'ops-laptop' && !Number.isNaN(Date.parse(entry.at)))).toBe(true);
      const actions = entries.map((entry) => entry.action);
      for (const action of [
        'account.create',
        'account.update',
        'account.settings',
        'account.delete',
        'shop.link',
        'shop.unlink',
      ])
        expect(actions).toContain(action);
      expect(entries[0]).toMatchObject({ action: 'account.delete', account: idA });
      const created = entries.find((entry) => entry.action === 'account.create' && entry.account === idA);
      expect(created.changes).toMatchObject({ name: 'Alpha Rewards', apiKey: '…WXYZ', brandId: 'brand-a' });
      const rotated = entries.find((entry) => entry.action === 'account.update' && entry.changes?.apiKey === '…MNOP');
      expect(rotated).toBeDefined();
      expect(entries.find((entry) => entry.action === 'shop.link' && entry.account === idA)).toMatchObject({
        shop: { platform: 'shopify', shop: SHOP },
      });
      expect((await call('GET', '/audit?limit=2')).body.audit).toHaveLength(2);
      expect((await call('GET', '/audit?limit=0')).status).toBe(400);
    });

    it('never shows a key: no answer of any route and no log line holds one', async () => {
      // Every route once more, so that each answer is looked at.
      for (const path of ['/accounts', `/accounts/${idB}`, `/accounts/${idB}/settings`, '/shops', '/audit', '/status'])
        expect((await call('GET', path)).status).toBe(200);
      const everything = seen.join('\n');
      expect(everything).toContain('…WXYZ');
      for (const key of KEYS) expect(everything).not.toContain(key);
    });
  });
});
