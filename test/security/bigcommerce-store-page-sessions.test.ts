// Found in a review of be82e48 (BigCommerce's load callback serves the merchant's page
// with a session of its own; the module's door, adapters/bigcommerce/door.ts, lets it
// reach the shop routes). Each test showed a defect, failing against be82e48; all are fixed.
//   1. A store the operator no longer serves (installed while allowed, then
//      dropped from BIGCOMMERCE_STORES) still gets a session at /load, and the
//      door lets it act (the shop routes): neither checks allowed-shops.ts,
//      while Shopify's door (shop-callers.ts) checks allowed.check.
//   2. remove_user is ignored although sessions now name the control-panel
//      user: the removed user's session keeps working, and the load payload in
//      their browser (24 h) keeps minting fresh sessions.
import type { BigCommerceOwn } from '../../adapters/bigcommerce/module.ts';
import { ownOf } from '../helpers/platform-own.ts';
import { afterAll, describe, expect, it } from 'vitest';
import type { BigCommerceInstall } from '../../adapters/bigcommerce/stores.ts';
import { EARLIER_INSTALLS_MIGRATION } from '../../adapters/bigcommerce/earlier-installs.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { appAt, bcPageTokens } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually, tempDataDir } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { raw } from '../helpers/raw-records.ts';

const CLIENT_ID = 'bc-review-client-id';
const CLIENT_SECRET = 'bc-review-client-secret-for-tests';
const SCOPE = 'store_v2_orders_read_only';
const ADMIN_TOKEN = 'bc-review-admin-token-0123456789';

interface Running {
  bc: FakeBigCommerce;
  bridge: RunningBridge;
  stop(): Promise<void>;
}

async function startApp(env: Record<string, string>, prepare?: () => Promise<void>): Promise<Running> {
  const bc = await startFakeBigCommerce({ storeHash: 'handmade1', accessToken: 'handmade-token' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  bc.registerApp(appAt(url, CLIENT_ID, CLIENT_SECRET, SCOPE));
  await prepare?.();
  const logger = createLogger({ level: 'silent' as never, destination: { write: () => {} } });
  const bridge = await startTestBridge(
    {
      PUBLIC_URL: url,
      ADMIN_TOKEN,
      RECONCILE_INTERVAL_MINUTES: '0',
      BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
      BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
      BIGCOMMERCE_LOGIN_URL: bc.url,
      BIGCOMMERCE_API_URL: bc.url,
      PORT: String(port),
      ...env,
    },
    logger,
  );
  return {
    bc,
    bridge,
    async stop() {
      await bridge.stop();
      await bc.close();
    },
  };
}

const sessionOf = (body: string) => /name="loyalty-bridge-session" content="([^"]+)"/.exec(body)?.[1];

async function asStore(app: Running, path: string, token: string, init: RequestInit = {}) {
  const response = await fetch(`${app.bridge.http.localUrl}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('a store the operator no longer serves', () => {
  const dataDir = tempDataDir();
  let app: Running | undefined;
  afterAll(() => app?.stop());

  // The ledger after gamma3 installed while BIGCOMMERCE_STORES listed it, and the operator then took it off the list.
  const droppedFromTheList = async () => {
    const ledger = new LowdbStore({ dataDir });
    await ledger.open();
    const now = new Date().toISOString();
    await ledger.putRecord(raw<BigCommerceInstall>('session'), 'bigcommerce:gamma3', {
      platform: 'bigcommerce',
      shop: 'gamma3',
      accessToken: 'gamma-token',
      scope: SCOPE,
      accountUuid: null,
      installedAt: now,
      updatedAt: now,
    });
    await ledger.putRecord(raw('migration'), EARLIER_INSTALLS_MIGRATION, { doneAt: now, allowed: [] });
    await ledger.close();
  };

  it('gets no session at /load, and its session reaches no shop route', async () => {
    app = await startApp({ DATA_DIR: dataDir, BIGCOMMERCE_STORES: 'alpha1' }, droppedFromTheList);
    // The bridge itself does not serve gamma3 (its orders are not read, its deliveries refused) ...
    const source = app.bridge.platforms.sources.find((each) => each.platform === 'bigcommerce')!;
    expect(await source.shops()).not.toContain('gamma3');
    expect((await ownOf<BigCommerceOwn>(app.bridge.platforms, 'bigcommerce').allowed.check('gamma3')).allowed).toBe(
      false,
    );

    // ... but its load callback hands the page a session, and the door lets the session act for gamma3.
    const loaded = await app.bc.load('gamma3');
    const session = sessionOf(loaded.body);
    expect({ status: loaded.status, session: Boolean(session) }).toEqual({ status: 403, session: false });
  }, 30_000);

  it('its session (minted before it was dropped, within the hour) reaches no shop route either', async () => {
    const token = (await bcPageTokens(app!.bridge)).mint('gamma3');
    // be82e48: 200, the door lets a store the bridge does not serve reach the shop routes.
    expect((await asStore(app!, '/session', token)).status).toBe(403);
  });
});

describe('a control-panel user the store owner removed', () => {
  let app: Running | undefined;
  afterAll(() => app?.stop());

  it('loses the session the load handed them, and their load payload mints no new one', async () => {
    app = await startApp({ BIGCOMMERCE_STORES: 'alpha1' });
    expect((await app.bc.install('alpha1')).status).toBe(200);
    await eventually(() => expect(app!.bc.stores.get('alpha1')).toBeDefined(), 5_000);
    const staff = { user: { id: 4242, email: 'temp-staff@alpha.example' } };
    const loadPayload = app.bc.signedPayload('alpha1', staff);
    const loaded = await app.bc.load('alpha1', loadPayload);
    const session = sessionOf(loaded.body)!;
    expect((await asStore(app, '/session', session)).status).toBe(200);

    // The owner removes the user: BigCommerce calls remove_user, naming them.
    const removed = await app.bc.removeUser('alpha1', app.bc.signedPayload('alpha1', staff));
    expect(removed.status).toBe(200);

    const after = {
      session: (await asStore(app, '/session', session)).status,
      reload: sessionOf((await app.bc.load('alpha1', loadPayload)).body) !== undefined,
    };
    expect(after).toEqual({ session: 401, reload: false });
  }, 30_000);
});
