// A merchant's page says which store it is signed in to by the store's name, as its platform tells it (issue 50):
// WooCommerce's from its WordPress site's public REST index, BigCommerce's from its store information where the app
// may read it. A store whose name cannot be read is still connected, and its page says its address (never a key);
// one store's page never says another's name. Against the running bridge, with the fake platforms over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appAt } from '../helpers/bigcommerce.ts';
import { startOpenBigCommerceApp } from '../helpers/bigcommerce-control-panel.ts';
import type { FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import type { FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { opensslAvailable } from '../helpers/https-front.ts';
import { onBridge, sessionIn, startWooPageWorld, type WooPageWorld } from '../helpers/woocommerce-store-page.ts';
import { answerConsent } from '../helpers/wordpress-merchant.ts';
import type { RunningBridge } from '../../src/composition/main.ts';
import { raw } from '../helpers/raw-records.ts';

/** As the merchant typed it in WordPress, which keeps it HTML-escaped: the page says it as typed. */
const TYPED = 'Tom & Jerry’s <Corner> "Shop"';

describe.skipIf(!opensslAvailable)('a WooCommerce store’s page says the store’s name', () => {
  let world: WooPageWorld;
  let named: FakeWooCommerce;
  let other: FakeWooCommerce;
  let silent: FakeWooCommerce;

  /** The store's page's session, from an approval in its WordPress, and who /session says is signed in. */
  async function signedIn(fake: FakeWooCommerce): Promise<{ shop: string; storeName: string }> {
    const { cookie, authorizeUrl } = await world.open(fake.url);
    const page = await world.browse(onBridge(await answerConsent(authorizeUrl, 'approve')), cookie);
    const session = (await sessionIn(page))!;
    const answer = await world.asPage(session, '/session');
    expect(answer.status).toBe(200);
    return (await answer.json()) as { shop: string; storeName: string };
  }

  beforeAll(async () => {
    world = await startWooPageWorld(3, [TYPED, undefined, null]);
    [named, other, silent] = world.stores as [FakeWooCommerce, FakeWooCommerce, FakeWooCommerce];
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('says each store’s own name, as its merchant typed it, and never another’s', async () => {
    const mine = await signedIn(named);
    expect(mine).toMatchObject({ shop: named.host, storeName: TYPED });
    const theirs = await signedIn(other);
    expect(theirs).toMatchObject({ shop: other.host, storeName: other.siteName });
    expect(theirs.storeName).not.toBe(TYPED);
  }, 30_000);

  it('connects a store whose REST index answers nothing, and says its address without the port', async () => {
    expect((await world.connection(silent))?.consumerKey).toBeDefined();
    const page = await signedIn(silent);
    expect(page.storeName).toBe(new URL(silent.url).hostname);
    expect(page.storeName).not.toContain(':');
  }, 30_000);

  it('reads the name of a store connected before names were kept, at its page’s sign-in', async () => {
    const store = world.bridge.engine.store;
    await store.deleteRecord(raw('woocommerce-store-name'), `woocommerce:${other.host}`);
    other.siteName = 'Renamed Since';
    expect((await signedIn(other)).storeName).toBe('Renamed Since');
    expect(
      await store.getRecord(raw<{ name: string }>('woocommerce-store-name'), `woocommerce:${other.host}`),
    ).toMatchObject({ name: 'Renamed Since' });
  }, 30_000);
});

describe('a BigCommerce store’s page says the store’s name', () => {
  const CLIENT_ID = 'bc-names-client-id';
  const CLIENT_SECRET = 'bc-names-client-secret-for-tests';
  let bc: FakeBigCommerce;
  let bridge: RunningBridge;

  /** The store installs the app and opens it: who /session says is signed in. */
  async function installAndOpen(hash: string): Promise<{ shop: string; storeName: string }> {
    expect((await bc.install(hash)).status).toBe(200);
    const loaded = await bc.load(hash);
    const session = /name="loyalty-bridge-session" content="([^"]+)"/.exec(loaded.body)?.[1];
    const answer = await fetch(`${bridge.http.localUrl}/admin/api/session`, {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { shop: string; storeName: string };
  }

  beforeAll(async () => {
    ({ bc, bridge } = await startOpenBigCommerceApp(CLIENT_ID, CLIENT_SECRET));
  }, 60_000);
  afterAll(async () => {
    await bridge?.stop();
    await bc?.close();
  });

  it('says its name where the app may read the store’s information', async () => {
    bc.addStore('named1', 'named1-api-token').name = 'Named & Co.';
    expect(await installAndOpen('named1')).toMatchObject({ shop: 'named1', storeName: 'Named & Co.' });
  }, 30_000);

  it('says its address on BigCommerce where the app asked for Orders alone, and never asks for more', async () => {
    bc.registerApp(appAt(bridge.http.localUrl, CLIENT_ID, CLIENT_SECRET, 'store_v2_orders_read_only'));
    bc.addStore('plain2', 'plain2-api-token').name = 'Never Read';
    expect(await installAndOpen('plain2')).toMatchObject({
      shop: 'plain2',
      storeName: 'store-plain2.mybigcommerce.com',
    });
    expect(bc.requests.filter((each) => each.store === 'plain2' && each.path === '/v2/store')).toEqual([]);
  }, 30_000);
});
