// What a store needs starts when the store is added, without a restart. A
// bridge is started with no store at all; then a WooCommerce store is
// connected from the dashboard, and a BigCommerce store installs the app.
// After each store's first reconciliation an order is placed that no
// webhook brings (WooCommerce never retries a failed delivery), and a
// subscription is turned off on the platform's side: only a scheduled
// reconciliation can bring the order in and turn the subscription back on.
// A store connected while passes run back to back gets each webhook once (a
// store's first pass and a scheduled one never check it together); and a
// store another bridge on the same ledger (or the CLI) added is reconciled
// here too, without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationState } from '../../src/core/store/ledger-store.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { BigCommerceStores } from '../../adapters/bigcommerce/stores.ts';
import { freePort } from '../../bench/lib/bridge-process.ts';
import { bcOrder, appAt } from '../helpers/bigcommerce.ts';
import { startTestBridge } from '../helpers/bridge.ts';
import { eventually } from '../helpers/engine.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable, startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { wooOrderJson } from '../helpers/woocommerce.ts';
import { answerConsent } from '../helpers/wordpress-merchant.ts';
import { raw } from '../helpers/raw-records.ts';

const ADMIN_TOKEN = 'stores-added-admin-token-0123456789';
const CLIENT_ID = 'added-app-client-id';
const CLIENT_SECRET = 'added-app-client-secret-for-tests';
/** Short enough for a test, long enough that the first pass after a store is added is over before the order is placed. */
const RECONCILE_MS = 1_500;

let bridge: RunningBridge;

const earnings = (orderId: string) =>
  bridge.sandbox?.store.snapshot().earnings.filter((each) => each.orderId === orderId) ?? [];
const reconciled = (platform: string, shop: string) =>
  bridge.engine.store.getRecord(raw<ReconciliationState>('reconciliation'), `${platform}:${shop}`);
const minuteAgo = () => new Date(Date.now() - 60_000);

describe.skipIf(!opensslAvailable)(
  'a bridge started with no store, then a WooCommerce store connected from the dashboard',
  () => {
    let front: HttpsFront;
    let woo: FakeWooCommerce;
    beforeAll(async () => {
      front = await startHttpsFront();
      woo = await startFakeWooCommerce();
      bridge = await startTestBridge({ PUBLIC_URL: front.url, ADMIN_TOKEN }, undefined, {
        reconcileIntervalMs: RECONCILE_MS,
      });
      front.forwardTo(bridge.http.localUrl);
    }, 30_000);
    afterAll(async () => {
      await bridge?.stop();
      await front?.close();
      await woo?.close();
    });

    it('reconciles it on schedule: a missed order earns, a disabled webhook is turned back on', async () => {
      const started = await fetch(`${bridge.http.localUrl}/admin/api/stores/woocommerce/connect`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ store: woo.url }),
      });
      expect(started.status).toBe(201);
      await answerConsent(((await started.json()) as { authorizeUrl: string }).authorizeUrl, 'approve');
      await eventually(() => expect(woo.webhooks.filter((webhook) => webhook.status === 'active')).toHaveLength(4));
      // Its first reconciliation, run when it was connected.
      await eventually(async () => expect((await reconciled('woocommerce', woo.host))?.lastRun).toBeTruthy());
      const firstRun = (await reconciled('woocommerce', woo.host))!.lastRun!.startedAt;

      // Then an order WooCommerce never delivers, and a webhook it disabled.
      woo.orders.set(
        7301,
        JSON.parse(
          wooOrderJson({
            id: 7301,
            status: 'processing',
            email: 'missed.woo@example.com',
            modified: minuteAgo().toISOString().slice(0, 19),
          }),
        ) as Record<string, unknown>,
      );
      const updated = woo.webhooks.find((webhook) => webhook.topic === 'order.updated')!;
      updated.status = 'disabled';

      await eventually(async () =>
        expect((await reconciled('woocommerce', woo.host))?.lastRun?.startedAt).not.toBe(firstRun),
      );
      await eventually(async () => {
        await bridge.engine.drain();
        expect(earnings('7301')).toEqual([
          expect.objectContaining({ status: 'pending', email: 'missed.woo@example.com' }),
        ]);
      });
      expect(updated.status).toBe('active');
    }, 40_000);
  },
);

describe('a bridge started with no store, then a BigCommerce store that installs the app', () => {
  let bc: FakeBigCommerce;
  beforeAll(async () => {
    bc = await startFakeBigCommerce({ storeHash: 'unused0', accessToken: 'unused-token' });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    bc.registerApp(appAt(url, CLIENT_ID, CLIENT_SECRET, 'store_v2_orders_read_only'));
    bridge = await startTestBridge(
      {
        PORT: String(port),
        PUBLIC_URL: url,
        ADMIN_TOKEN,
        BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
        BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
        BIGCOMMERCE_LOGIN_URL: bc.url,
        BIGCOMMERCE_API_URL: bc.url,
        BIGCOMMERCE_STORES: 'added1',
      },
      undefined,
      { reconcileIntervalMs: RECONCILE_MS },
    );
  }, 30_000);
  afterAll(async () => {
    await bridge?.stop();
    await bc?.close();
  });

  it('reconciles it on schedule: a missed order earns, a deactivated hook is reactivated', async () => {
    expect((await bc.install('added1')).status).toBe(200);
    const store = bc.stores.get('added1')!;
    // The hooks are made one at a time after the install: wait for the one this test deactivates.
    await eventually(() => expect(store.hooks.some((each) => each.scope === 'store/order/statusUpdated')).toBe(true));
    await eventually(async () => expect((await reconciled('bigcommerce', 'added1'))?.lastRun).toBeTruthy());
    const firstRun = (await reconciled('bigcommerce', 'added1'))!.lastRun!.startedAt;

    const modified = minuteAgo().toUTCString().replace('GMT', '+0000');
    store.orders.set(7401, { ...bcOrder(7401, 11, { email: 'missed.bc@example.com' }), date_modified: modified });
    const hook = store.hooks.find((each) => each.scope === 'store/order/statusUpdated')!;
    hook.is_active = false;

    await eventually(async () =>
      expect((await reconciled('bigcommerce', 'added1'))?.lastRun?.startedAt).not.toBe(firstRun),
    );
    await eventually(async () => {
      await bridge.engine.drain();
      expect(earnings('7401')).toEqual([
        expect.objectContaining({ status: 'pending', email: 'missed.bc@example.com' }),
      ]);
    });
    expect(hook.is_active).toBe(true);
  }, 40_000);
});

describe.skipIf(!opensslAvailable)('a WooCommerce store whose pass comes while a scheduled one runs', () => {
  let front: HttpsFront;
  let woo: FakeWooCommerce;
  beforeAll(async () => {
    front = await startHttpsFront();
    woo = await startFakeWooCommerce();
    bridge = await startTestBridge({ PUBLIC_URL: front.url, ADMIN_TOKEN });
    front.forwardTo(bridge.http.localUrl);
  }, 30_000);
  afterAll(async () => {
    await bridge?.stop();
    await front?.close();
    await woo?.close();
  });

  it('gets each webhook once: the two never check the store together', async () => {
    const started = await fetch(`${bridge.http.localUrl}/admin/api/stores/woocommerce/connect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ store: woo.url }),
    });
    expect(started.status).toBe(201);
    await answerConsent(((await started.json()) as { authorizeUrl: string }).authorizeUrl, 'approve');
    await eventually(() => expect(woo.webhooks).toHaveLength(4));
    // The store's webhooks gone (deleted in WordPress); then the store's own pass (as when it is added) and a scheduled one, at once.
    woo.webhooks.length = 0;
    await Promise.all([bridge.reconciler.run('woocommerce', woo.host), bridge.reconciler.runAll()]);
    expect(woo.webhooks.map((webhook) => webhook.topic).sort()).toEqual([
      'order.created',
      'order.deleted',
      'order.restored',
      'order.updated',
    ]);
  }, 40_000);
});

describe('a BigCommerce store that another bridge on the same ledger installed', () => {
  let bc: FakeBigCommerce;
  beforeAll(async () => {
    bc = await startFakeBigCommerce({ storeHash: 'elsewhere1', accessToken: 'token-saved-by-another-bridge' });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    bridge = await startTestBridge(
      {
        PORT: String(port),
        PUBLIC_URL: url,
        ADMIN_TOKEN,
        BIGCOMMERCE_CLIENT_ID: CLIENT_ID,
        BIGCOMMERCE_CLIENT_SECRET: CLIENT_SECRET,
        BIGCOMMERCE_API_URL: bc.url,
        BIGCOMMERCE_STORES: 'elsewhere1',
      },
      undefined,
      {
        reconcileIntervalMs: RECONCILE_MS,
      },
    );
  }, 30_000);
  afterAll(async () => {
    await bridge?.stop();
    await bc?.close();
  });

  it('is reconciled here too, without a restart', async () => {
    // What the other bridge's install callback wrote: the store's token, in the ledger both read.
    const elsewhere = new BigCommerceStores({ store: bridge.engine.store, env: {}, apiUrl: bc.url });
    const at = new Date().toISOString();
    await elsewhere.save({
      platform: 'bigcommerce',
      shop: 'elsewhere1',
      accessToken: 'token-saved-by-another-bridge',
      scope: 'store_v2_orders_read_only',
      accountUuid: null,
      installedAt: at,
      updatedAt: at,
    });
    await eventually(async () => expect((await reconciled('bigcommerce', 'elsewhere1'))?.lastRun).toBeTruthy());
    await eventually(() => expect(bc.hooks.length).toBeGreaterThan(0));
  }, 40_000);
});
