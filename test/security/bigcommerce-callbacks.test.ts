// BigCommerce's single-click app callbacks as an attacker sees them, against
// the running bridge and a fake BigCommerce over HTTP
// (test/helpers/fake-bigcommerce.ts, from BigCommerce's documentation):
//   - one signed payload, one purpose: the load payload a merchant's browser
//     holds for a day cannot uninstall, an uninstall payload cannot load, and
//     of two uses racing at different callbacks exactly one succeeds
//   - an uninstall is confirmed with BigCommerce (which revokes the token)
//     before the token is forgotten
//   - an installed store's deliveries are BigCommerce's by its signature
//     alone: a header secret from a captured delivery forges nothing
//   - only the merchant's stores install and earn (BIGCOMMERCE_STORES,
//     BIGCOMMERCE_OPEN_INSTALLS), and stores installed before the upgrade
//     keep earning
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BigCommerceInstall } from '../../adapters/bigcommerce/stores.ts';
import type { BigCommerceShopState } from '../../adapters/bigcommerce/uninstall-checks.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { appAt, bcHeaders, bcOrder, bcPayload, BC_STORE } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const CLIENT_ID = 'bc-security-client-id';
const CLIENT_SECRET = 'bc-security-client-secret-for-tests';
const SCOPE = 'store_v2_orders_read_only';
const ADMIN_TOKEN = 'bc-security-admin-token-0123456789';
const HOOK_SCOPES = 5;

interface Running {
  bc: FakeBigCommerce;
  bridge: RunningBridge;
  logText: string[];
  stop(): Promise<void>;
}

/** What a bridge that is the app on this fake BigCommerce is configured with. */
const appEnv = (bc: FakeBigCommerce, url: string) => ({
  PUBLIC_URL: url,
  ADMIN_TOKEN,
  RECONCILE_INTERVAL_MINUTES: '0',
  BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
  BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
  BIGCOMMERCE_LOGIN_URL: bc.url,
  BIGCOMMERCE_API_URL: bc.url,
});

/** A fake BigCommerce with the app registered, and a bridge that is the app; pending uninstalls checked every 50 ms. */
async function startApp(
  env: Record<string, string>,
  prepare?: (bc: FakeBigCommerce, url: string) => Promise<void>,
): Promise<Running> {
  const bc = await startFakeBigCommerce({ storeHash: 'handmade1', accessToken: 'handmade-token' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  bc.registerApp(appAt(url, CLIENT_ID, CLIENT_SECRET, SCOPE));
  await prepare?.(bc, url);
  const logText: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logText.push(line) } });
  const bridge = await startTestBridge({ ...appEnv(bc, url), PORT: String(port), ...env }, logger, {
    platformOptions: {
      bigcommerce: { uninstallChecks: { passMs: 50, recheckDelaysMs: Array.from({ length: 200 }, () => 50) } },
    },
  });
  return {
    bc,
    bridge,
    logText,
    async stop() {
      await bridge.stop();
      await bc.close();
    },
  };
}

const installOf = (bridge: RunningBridge, hash: string) =>
  bridge.engine.store.getRecord(raw<BigCommerceInstall>('session'), `bigcommerce:${hash}`);
const shopState = (bridge: RunningBridge, hash: string) =>
  bridge.engine.store.getRecord(raw<BigCommerceShopState>('shop'), `bigcommerce:${hash}`);
const earnings = (bridge: RunningBridge, orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];
const reached = async (bridge: RunningBridge) =>
  (await bridge.platforms.sources.find((source) => source.platform === 'bigcommerce')?.shops()) ?? [];

/** Installed from the control panel, with the hooks the bridge makes after the answer. */
async function installed(app: Running, hash: string): Promise<void> {
  expect((await app.bc.install(hash)).status).toBe(200);
  await eventually(() => expect(app.bc.stores.get(hash)!.hooks).toHaveLength(HOOK_SCOPES), 10_000);
}

/** An order placed and paid in the store, delivered to the bridge, and the bridge done with it. */
async function orderEarns(app: Running, hash: string, orderId: number): Promise<void> {
  app.bc.stores.get(hash)!.orders.set(orderId, bcOrder(orderId, 11, { email: `${hash}@example.com` }));
  expect(await app.bc.deliver('store/order/created', orderId, { store: hash })).toEqual([200]);
  await app.bridge.engine.drain();
}

describe('one signed payload, one purpose', () => {
  let app: Running;
  beforeAll(async () => {
    app = await startApp({ BIGCOMMERCE_STORES: 'alpha1,alpha2,alpha3,beta2,gamma3,delta4,epsilon5,zeta6' });
  }, 30_000);
  afterAll(() => app?.stop());

  it('refuses the load payload at /uninstall (and /remove_user): the store keeps its token and earns afterwards', async () => {
    await installed(app, 'alpha1');
    const loaded = app.bc.signedPayload('alpha1');
    expect((await app.bc.load('alpha1', loaded)).status).toBe(200);

    const replayed = await app.bc.uninstall('alpha1', loaded);
    expect(replayed.status).toBe(401);
    expect(replayed.body).toContain('already used at load');
    expect((await app.bc.removeUser('alpha1', loaded)).status).toBe(401);

    expect(await installOf(app.bridge, 'alpha1')).toBeDefined();
    expect((await shopState(app.bridge, 'alpha1'))?.uninstalledAt).toBeNull();
    expect(await reached(app.bridge)).toContain('alpha1');
    await orderEarns(app, 'alpha1', 8101);
    expect(earnings(app.bridge, '8101')).toEqual([
      expect.objectContaining({ status: 'pending', email: 'alpha1@example.com' }),
    ]);
    // Neither the payload nor the store's token is in any log line.
    const logs = app.logText.join('');
    expect(logs).not.toContain(loaded);
    expect(logs).not.toContain(loaded.split('.')[2]);
    expect(logs).not.toContain((await installOf(app.bridge, 'alpha1'))!.accessToken);
  }, 30_000);

  it('loads again with the same payload from the frame that first used it (a reload), which still cannot uninstall', async () => {
    await installed(app, 'alpha2');
    const loaded = app.bc.signedPayload('alpha2');
    const frame = (cookie?: string) =>
      fetch(`${app.bridge.http.localUrl}/bigcommerce/load?signed_payload_jwt=${loaded}`, {
        headers: { 'sec-fetch-dest': 'iframe', ...(cookie ? { cookie } : {}) },
      });
    const sessionOf = async (answer: Response) => {
      expect(answer.status).toBe(200);
      const payload = /name="loyalty-bridge-session" content="lbp1\.bigcommerce\.([^."]+)\./.exec(
        await answer.text(),
      )?.[1];
      return payload && (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { shop: string });
    };
    const first = await frame();
    // The frame's own secret, in a cookie partitioned to the control panel's site.
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toMatch(/^__Host-loyalty-bridge-frame=[\w-]{43}$/);
    for (const answer of [first, await frame(cookie), await frame(cookie)])
      expect(await sessionOf(answer)).toMatchObject({ shop: 'alpha2' });
    // The same Load URL in another browser's frame: the store's page, with no session.
    expect(await sessionOf(await frame())).toBeUndefined();
    expect(await sessionOf(await frame('__Host-loyalty-bridge-frame=' + 'x'.repeat(43)))).toBeUndefined();
    expect((await app.bc.uninstall('alpha2', loaded)).status).toBe(401);
    expect(await installOf(app.bridge, 'alpha2')).toBeDefined();
  });

  it('refuses a load payload used again more than 15 minutes after its first use: a leaked load URL does not open the store page for a day', async () => {
    await installed(app, 'alpha3');
    const loaded = app.bc.signedPayload('alpha3');
    expect((await app.bc.load('alpha3', loaded)).status).toBe(200);
    // As if 16 minutes had gone by since.
    const id = `bigcommerce:${(JSON.parse(Buffer.from(loaded.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti}`;
    const use = (await app.bridge.engine.store.getRecord(raw<{ firstUsedAt: string }>('callback-payload'), id))!;
    await app.bridge.engine.store.putRecord(raw('callback-payload'), id, {
      ...use,
      firstUsedAt: new Date(Date.now() - 16 * 60_000).toISOString(),
    });
    const late = await app.bc.load('alpha3', loaded);
    expect(late.status).toBe(401);
    expect(late.body).toContain('more than 15 minutes ago');
    // No session for the store's pages with it.
    expect(late.body).not.toContain('loyalty-bridge-session');
    // A fresh payload, as BigCommerce sends each time the app is opened, loads.
    expect((await app.bc.load('alpha3')).status).toBe(200);
  });

  it('refuses the uninstall payload at /load after a real uninstall', async () => {
    await installed(app, 'beta2');
    const uninstallPayload = app.bc.signedPayload('beta2');
    app.bc.revokeApp('beta2');
    expect((await app.bc.uninstall('beta2', uninstallPayload)).status).toBe(200);
    expect(await installOf(app.bridge, 'beta2')).toBeUndefined();

    const replayed = await app.bc.load('beta2', uninstallPayload);
    // 401 for the payload, not 404 for the store the app is no longer installed on.
    expect(replayed.status).toBe(401);
    expect(replayed.body).toContain('already used at uninstall');
  });

  it('lets exactly one of two uses of one payload at different callbacks through', async () => {
    await installed(app, 'gamma3');
    for (let round = 0; round < 5; round++) {
      const payload = app.bc.signedPayload('gamma3');
      const [load, uninstall] = await Promise.all([
        app.bc.load('gamma3', payload),
        app.bc.uninstall('gamma3', payload),
      ]);
      expect([load.status, uninstall.status].filter((status) => status === 401)).toHaveLength(1);
      expect([load.status, uninstall.status].filter((status) => status === 200)).toHaveLength(1);
    }
    // Whichever won, BigCommerce still accepts the token: it is kept.
    expect(await installOf(app.bridge, 'gamma3')).toBeDefined();
  });

  it('keeps the token while BigCommerce still accepts it after an uninstall callback, and forgets it once BigCommerce revokes it', async () => {
    await installed(app, 'delta4');
    const answer = await app.bc.uninstall('delta4', app.bc.signedPayload('delta4'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ result: 'pending' });
    // Rechecks run every 50 ms here, so by the time it is read the count may have moved on from the callback's own check.
    expect(await shopState(app.bridge, 'delta4')).toMatchObject({
      uninstalledAt: null,
      uninstallPending: { checks: expect.any(Number), last: 'works' },
    });

    // Checked again and again (every 50 ms here): the token still works, so it stays, and the store still earns.
    await eventually(async () =>
      expect((await shopState(app.bridge, 'delta4'))?.uninstallPending?.checks).toBeGreaterThanOrEqual(3),
    );
    expect(await installOf(app.bridge, 'delta4')).toBeDefined();
    await orderEarns(app, 'delta4', 8401);
    expect(earnings(app.bridge, '8401')).toHaveLength(1);

    app.bc.revokeApp('delta4');
    // The token is forgotten, then the store marked uninstalled: two writes, so both are waited for.
    await eventually(async () => {
      expect(await installOf(app.bridge, 'delta4')).toBeUndefined();
      const state = await shopState(app.bridge, 'delta4');
      expect(state?.uninstalledAt).toEqual(expect.any(String));
      expect(state?.uninstallPending).toBeUndefined();
    });
    expect(await reached(app.bridge)).not.toContain('delta4');
  });

  it('answers an uninstall payload used before without acting again: no token check, no pending uninstall, the reinstall untouched', async () => {
    await installed(app, 'zeta6');
    const uninstallPayload = app.bc.signedPayload('zeta6');
    app.bc.revokeApp('zeta6');
    expect(JSON.parse((await app.bc.uninstall('zeta6', uninstallPayload)).body)).toMatchObject({
      result: 'uninstalled',
    });
    const uninstalledAt = (await shopState(app.bridge, 'zeta6'))?.uninstalledAt;
    expect(uninstalledAt).toEqual(expect.any(String));
    const tokenChecks = () =>
      app.bc.requests.filter(
        (request) => request.store === 'zeta6' && request.method === 'GET' && request.path === '/v3/hooks',
      ).length;

    // Replayed before the merchant installs again: the store stays uninstalled from the genuine callback on.
    expect((await app.bc.uninstall('zeta6', uninstallPayload)).status).toBe(200);
    expect((await shopState(app.bridge, 'zeta6'))?.uninstalledAt).toBe(uninstalledAt);

    // And after: each replay is answered, and asks BigCommerce nothing with the new token.
    await installed(app, 'zeta6');
    const checked = tokenChecks();
    for (let replay = 0; replay < 5; replay++) {
      const answer = await app.bc.uninstall('zeta6', uninstallPayload);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ result: 'already_handled' });
    }
    expect(tokenChecks()).toBe(checked);
    expect(await shopState(app.bridge, 'zeta6')).toMatchObject({ uninstalledAt: null });
    expect((await shopState(app.bridge, 'zeta6'))?.uninstallPending).toBeUndefined();
    expect(await installOf(app.bridge, 'zeta6')).toBeDefined();
  });

  it('keeps a reinstall that lands while the uninstall callback asks BigCommerce about the old token: installed, with its new token', async () => {
    await installed(app, 'epsilon5');
    const release = app.bc.hold();
    let uninstalling;
    try {
      // BigCommerce revokes the old token and calls back; the callback's check of that token waits at BigCommerce.
      uninstalling = app.bc.uninstall('epsilon5');
      await eventually(() => expect(app.bc.waiting).toBeGreaterThanOrEqual(1));
      expect((await app.bc.install('epsilon5')).status).toBe(200);
    } finally {
      release();
    }
    const reinstalled = (await installOf(app.bridge, 'epsilon5'))!.accessToken;
    expect((await uninstalling).status).toBe(200);
    expect((await installOf(app.bridge, 'epsilon5'))?.accessToken).toBe(reinstalled);
    expect((await shopState(app.bridge, 'epsilon5'))?.uninstalledAt).toBeNull();
    await eventually(() => expect(app.bc.stores.get('epsilon5')!.hooks).toHaveLength(HOOK_SCOPES), 10_000);
    await orderEarns(app, 'epsilon5', 8501);
    expect(earnings(app.bridge, '8501')).toHaveLength(1);
  });
});

describe('deliveries of a store installed as an app', () => {
  let app: Running;
  const HEADER = 'header-secret-an-earlier-release-gave-0123';
  /** As an earlier release left it: a header secret of the store's own, on a hook BigCommerce signs with the app's client secret. */
  const earlierRelease = async (bc: FakeBigCommerce, url: string) => {
    bc.addStore('eta5', 'eta-token', CLIENT_SECRET).hooks.push({
      id: 601,
      scope: 'store/order/created',
      destination: `${url}/webhooks/bigcommerce`,
      is_active: true,
      headers: { 'x-loyalty-bridge-token': HEADER },
      created_at: 0,
      updated_at: 0,
      signingSecret: CLIENT_SECRET,
    });
  };
  const forged = (hash: string, orderId: number, header: string) => {
    const body = bcPayload('store/order/created', orderId).replace(`stores/${BC_STORE}`, `stores/${hash}`);
    return fetch(`${app.bridge.http.localUrl}/webhooks/bigcommerce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-loyalty-bridge-token': header },
      body,
    });
  };
  beforeAll(async () => {
    app = await startApp(
      {
        BIGCOMMERCE_STORES: 'eta5,theta6',
        BIGCOMMERCE_STORE_HASH: 'handmade1',
        BIGCOMMERCE_ACCESS_TOKEN: 'handmade-token',
        BIGCOMMERCE_WEBHOOK_SECRET: 'handmade-header-secret-0123456789',
      },
      earlierRelease,
    );
    const now = new Date().toISOString();
    await app.bridge.engine.store.putRecord(raw<BigCommerceInstall>('session'), 'bigcommerce:eta5', {
      platform: 'bigcommerce',
      shop: 'eta5',
      accessToken: 'eta-token',
      scope: SCOPE,
      headerSecret: HEADER,
      accountUuid: null,
      installedAt: now,
      updatedAt: now,
    });
  }, 30_000);
  afterAll(() => app?.stop());

  it('are checked by BigCommerce’s signature alone: the header secret from a captured delivery forges nothing', async () => {
    // BigCommerce's own delivery through the old hook, header and signature: accepted.
    await orderEarns(app, 'eta5', 8501);
    expect(earnings(app.bridge, '8501')).toHaveLength(1);
    // The header alone, on a body naming any order: refused, and nothing read or earned.
    app.bc.stores.get('eta5')!.orders.set(8502, bcOrder(8502, 11));
    const answer = await forged('eta5', 8502, HEADER);
    expect(answer.status).toBe(401);
    await app.bridge.engine.drain();
    expect(earnings(app.bridge, '8502')).toEqual([]);
    expect(app.bc.requests.filter((request) => request.path === '/v2/orders/8502')).toEqual([]);
  });

  it('are not opened by the header secret of the store configured by hand either', async () => {
    app.bc.stores.get('eta5')!.orders.set(8503, bcOrder(8503, 11));
    expect((await forged('eta5', 8503, 'handmade-header-secret-0123456789')).status).toBe(401);
    await app.bridge.engine.drain();
    expect(earnings(app.bridge, '8503')).toEqual([]);
  });

  it('forget the app’s token when the app is uninstalled from the store configured by hand, which is still served through its API account', async () => {
    await installed(app, 'handmade1');
    app.bc.revokeApp('handmade1');
    expect(JSON.parse((await app.bc.uninstall('handmade1', app.bc.signedPayload('handmade1'))).body)).toMatchObject({
      result: 'uninstalled',
    });
    expect(await installOf(app.bridge, 'handmade1')).toBeUndefined();
    expect((await shopState(app.bridge, 'handmade1'))?.uninstalledAt ?? null).toBeNull();
    expect(await reached(app.bridge)).toContain('handmade1');
    // A delivery of the hooks `register` made, sent a minute ago (before the uninstall), still earns.
    app.bc.stores.get('handmade1')!.orders.set(8701, bcOrder(8701, 11));
    const body = bcPayload('store/order/created', 8701, {}, undefined, Math.floor(Date.now() / 1000) - 60).replace(
      `stores/${BC_STORE}`,
      'stores/handmade1',
    );
    const answer = await fetch(`${app.bridge.http.localUrl}/webhooks/bigcommerce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-loyalty-bridge-token': 'handmade-header-secret-0123456789' },
      body,
    });
    expect(answer.status).toBe(200);
    await app.bridge.engine.drain();
    expect(earnings(app.bridge, '8701')).toHaveLength(1);
  });

  it('come through hooks the bridge makes with no header secret, which BigCommerce signs', async () => {
    await installed(app, 'theta6');
    expect(app.bc.stores.get('theta6')!.hooks.map((hook) => hook.headers ?? {})).toEqual(
      Array.from({ length: HOOK_SCOPES }, () => ({})),
    );
    expect((await installOf(app.bridge, 'theta6'))?.headerSecret).toBeUndefined();
    await orderEarns(app, 'theta6', 8601);
    expect(earnings(app.bridge, '8601')).toHaveLength(1);
  });
});

describe('stores the bridge does not serve', () => {
  let app: Running;
  beforeAll(async () => {
    app = await startApp({ BIGCOMMERCE_STORES: 'alpha1' });
  }, 30_000);
  afterAll(() => app?.stop());

  it('refuses the install with a page that says why, before the code is exchanged', async () => {
    const answer = await app.bc.install('stranger7');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('stranger7 is not one of this bridge');
    expect(answer.body).toContain('BIGCOMMERCE_STORES');
    expect(await installOf(app.bridge, 'stranger7')).toBeUndefined();
    // No token was ever issued for it: the code was not used.
    expect(app.bc.stores.get('stranger7')?.tokens.size ?? 0).toBe(0);
  });

  it('acknowledges its deliveries as ignored, with the reason, and keeps nothing of them', async () => {
    app.bc.addStore('stranger7', 'stranger-token', CLIENT_SECRET).orders.set(8701, bcOrder(8701, 11));
    const body = bcPayload('store/order/created', 8701).replace(`stores/${BC_STORE}`, 'stores/stranger7');
    const response = await fetch(`${app.bridge.http.localUrl}/webhooks/bigcommerce`, {
      method: 'POST',
      headers: bcHeaders(body, { secret: CLIENT_SECRET }),
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      result: 'ignored',
      reason: expect.stringContaining('BIGCOMMERCE_STORES'),
    });
    await app.bridge.engine.drain();
    expect((await app.bridge.engine.store.stats()).inboxBacklog).toBe(0);
    expect(await app.bridge.engine.store.getOrder('bigcommerce:stranger7:8701')).toBeUndefined();
    expect(earnings(app.bridge, '8701')).toEqual([]);
  });

  it('is not read by reconciliation, even with a token in the ledger', async () => {
    // As if installed while the bridge took any store, then closed to them.
    const now = new Date().toISOString();
    await app.bridge.engine.store.putRecord(raw<BigCommerceInstall>('session'), 'bigcommerce:stranger7', {
      platform: 'bigcommerce',
      shop: 'stranger7',
      accessToken: 'stranger-token',
      scope: SCOPE,
      headerSecret: 'stranger-header-secret',
      accountUuid: null,
      installedAt: now,
      updatedAt: now,
    });
    app.bc.stores.get('stranger7')!.orders.set(8702, { ...bcOrder(8702, 11), date_modified: new Date().toUTCString() });
    app.bridge.platforms.storeAdded('bigcommerce');
    expect(await reached(app.bridge)).not.toContain('stranger7');
    await app.bridge.reconciler.runAll();
    await app.bridge.reconciler.run('bigcommerce', 'stranger7');
    await app.bridge.engine.drain();
    expect(app.bc.requests.filter((request) => request.store === 'stranger7')).toEqual([]);
    expect(earnings(app.bridge, '8702')).toEqual([]);
  });
});

describe('BIGCOMMERCE_OPEN_INSTALLS=true', () => {
  let closed: Running;
  let open: Running;
  beforeAll(async () => {
    closed = await startApp({});
    open = await startApp({ BIGCOMMERCE_OPEN_INSTALLS: 'true' });
  }, 30_000);
  afterAll(async () => {
    await closed?.stop();
    await open?.stop();
  });

  it('lets in any store, which without it is refused; its orders earn once the operator links it to an account', async () => {
    expect((await closed.bc.install('anyone9')).status).toBe(403);
    await installed(open, 'anyone9');
    await orderEarns(open, 'anyone9', 8901);
    // A stranger's store earns on nobody's account until it is linked to one.
    expect(earnings(open.bridge, '8901')).toEqual([]);
    expect(await open.bridge.engine.store.getOrder('bigcommerce:anyone9:8901')).toMatchObject({
      target: { reason: 'no_account' },
    });
    await open.bridge.accounts.link({ platform: 'bigcommerce', shop: 'anyone9' }, 'default', 'test');
    await eventually(async () => {
      await open.bridge.engine.drain();
      expect(earnings(open.bridge, '8901')).toEqual([
        expect.objectContaining({ status: 'pending', email: 'anyone9@example.com' }),
      ]);
    });
    expect(await reached(open.bridge)).toContain('anyone9');
  });
});

describe('a store installed before the upgrade', () => {
  const dataDir = tempDataDir();
  let app: Running | undefined;
  afterAll(() => app?.stop());

  /** The ledger an earlier release left: the app installed on legacy1, whose hooks point at the bridge. */
  const earlierRelease = async (bc: FakeBigCommerce, url: string) => {
    const ledger = new LowdbStore({ dataDir });
    await ledger.open();
    const now = new Date().toISOString();
    await ledger.putRecord(raw<BigCommerceInstall>('session'), 'bigcommerce:legacy1', {
      platform: 'bigcommerce',
      shop: 'legacy1',
      accessToken: 'legacy-token',
      scope: SCOPE,
      headerSecret: 'legacy-header-secret-0123456789',
      accountUuid: null,
      installedAt: now,
      updatedAt: now,
    });
    await ledger.close();
    const store = bc.addStore('legacy1', 'legacy-token', CLIENT_SECRET);
    store.hooks.push({
      id: 501,
      scope: 'store/order/created',
      destination: `${url}/webhooks/bigcommerce`,
      is_active: true,
      headers: null,
      created_at: 0,
      updated_at: 0,
      signingSecret: CLIENT_SECRET,
    });
  };

  it('keeps earning, is named in the log for BIGCOMMERCE_STORES, while a new store is refused; and after a restart too', async () => {
    app = await startApp({ DATA_DIR: dataDir, BIGCOMMERCE_STORES: 'alpha1' }, earlierRelease);
    await orderEarns(app, 'legacy1', 9001);
    expect(earnings(app.bridge, '9001')).toEqual([
      expect.objectContaining({ status: 'pending', email: 'legacy1@example.com' }),
    ]);
    expect(await reached(app.bridge)).toContain('legacy1');
    const told = app.logText.filter((line) => line.includes('legacy1') && line.includes('BIGCOMMERCE_STORES'));
    expect(told).toHaveLength(1);
    expect((await app.bc.install('newcomer3')).status).toBe(403);

    // The allowance was made once, and lasts.
    const { bc } = app;
    const { origin, port } = new URL(bc.stores.get('legacy1')!.hooks[0]!.destination);
    await app.bridge.stop();
    const logText: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logText.push(line) } });
    const bridge = await startTestBridge(
      { ...appEnv(bc, origin), DATA_DIR: dataDir, PORT: port, BIGCOMMERCE_STORES: 'alpha1' },
      logger,
    );
    app = {
      bc,
      bridge,
      logText,
      async stop() {
        await bridge.stop();
        await bc.close();
      },
    };
    await orderEarns(app, 'legacy1', 9002);
    expect(earnings(bridge, '9002')).toHaveLength(1);
    expect(logText.filter((line) => line.includes('legacy1') && line.includes('BIGCOMMERCE_STORES'))).toEqual([]);
  }, 30_000);
});
