// The widget's script on a BigCommerce store (adapters/bigcommerce/storefront-script.ts) against the fake Scripts
// API (test/helpers/fake-bigcommerce-scripts.ts, from BigCommerce's docs): one script of ours whatever happens to
// it, with the fields a store needs to show it, and a refusal that names the scope it lacks; on a store with several
// storefronts, one on each Stencil storefront (the Channels API, test/helpers/fake-bigcommerce-channels.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigCommerceApi, BigCommerceApiError } from '../../adapters/bigcommerce/admin-api.ts';
import { bigCommerceWidget } from '../../adapters/bigcommerce/storefront-script.ts';
import { startFakeBigCommerce, type FakeBigCommerce } from '../helpers/fake-bigcommerce.ts';
import { addChannel } from '../helpers/fake-bigcommerce-channels.ts';
import {
  addFakeScripts,
  deleteScriptAsMerchant,
  scriptsOf,
  scriptsRunFor,
} from '../helpers/fake-bigcommerce-scripts.ts';

const APP = {
  clientId: 'widget-client',
  clientSecret: 'widget-client-secret',
  authCallback: 'https://bridge.invalid/bigcommerce/auth',
  loadCallback: 'https://bridge.invalid/bigcommerce/load',
  uninstallCallback: 'https://bridge.invalid/bigcommerce/uninstall',
  scope: 'store_v2_orders_read_only store_v2_content',
};
/** A store whose app token has the Content scope, one whose token lacks it, and one that may read its channels. */
const STORE = 'wdgt1';
const NO_CONTENT = 'wdgt2';
const MULTI = 'wdgt3';
/** A store with as many Stencil storefronts as an app may hold scripts (10, BigCommerce's limit). */
const TEN = 'wdgt4';
const CHANNELS_SCOPE = `${APP.scope} store_channel_settings_read_only`;
const src = (hash: string, host = 'bridge.example') => `https://${host}/bigcommerce/storefront/widget.js?store=${hash}`;

let fake: FakeBigCommerce;
const apis = new Map<string, BigCommerceApi>();
const widget = () => bigCommerceWidget(async (shop) => apis.get(shop));

beforeAll(async () => {
  fake = await startFakeBigCommerce({ storeHash: 'other', accessToken: 'other-token' });
  fake.registerApp(APP);
  addFakeScripts(fake);
  for (const [hash, scope] of [
    [STORE, APP.scope],
    [NO_CONTENT, 'store_v2_orders_read_only'],
    [MULTI, CHANNELS_SCOPE],
    [TEN, CHANNELS_SCOPE],
  ] as const) {
    const token = `${hash}-token`;
    fake.addStore(hash, token, APP.clientSecret).tokenScopes.set(token, scope);
    apis.set(hash, new BigCommerceApi({ storeHash: hash, accessToken: token, baseUrl: fake.url }));
  }
});
afterAll(() => fake.close());

describe('the widget on a BigCommerce store', () => {
  it('puts one script that a store with a consent banner still shows, on every page but checkout', async () => {
    await widget().put(STORE, src(STORE));
    expect(scriptsOf(fake, STORE)).toMatchObject([
      {
        name: 'Loyalty points',
        src: src(STORE),
        kind: 'src',
        auto_uninstall: true,
        load_method: 'defer',
        location: 'footer',
        visibility: 'storefront',
        consent_category: 'essential',
      },
    ]);
    expect(await widget().present(STORE)).toBe(true);
  });

  it('runs for every shopper: one who declined every optional cookie on a store with a consent banner too', async () => {
    const [ours] = scriptsOf(fake, STORE);
    // The fake's default is the documented worst case: the banner on, and a shopper who allowed nothing.
    expect(scriptsRunFor(fake, STORE).map((each) => each.uuid)).toEqual([ours!.uuid]);
    expect(scriptsRunFor(fake, STORE, { banner: true, allowed: [] })).toHaveLength(1);
    // The best case, a store without a banner or a shopper who allowed everything, runs it as well.
    expect(scriptsRunFor(fake, STORE, { banner: false })).toHaveLength(1);
    expect(scriptsRunFor(fake, STORE, { allowed: ['functional', 'analytics', 'targeting'] })).toHaveLength(1);
  });

  it('is a fake that hides what BigCommerce hides: a functional or unknown script from a shopper who declined', async () => {
    const api = apis.get(STORE)!;
    const made: Record<string, string> = {};
    for (const category of ['functional', undefined] as const) {
      const { status, body } = await api.send('POST', 'v3/content/scripts', {
        json: {
          name: `Other ${category ?? 'unknown'}`,
          src: 'https://cdn.example/other.js',
          kind: 'src',
          ...(category ? { consent_category: category } : {}),
        },
      });
      expect(status).toBe(200);
      made[category ?? 'unknown'] = String((body as { data: { uuid: string } }).data.uuid);
    }
    const ran = (consent?: Parameters<typeof scriptsRunFor>[2]) =>
      scriptsRunFor(fake, STORE, consent).map((each) => each.uuid);
    expect(ran()).not.toContain(made.functional);
    expect(ran()).not.toContain(made.unknown);
    expect(ran({ allowed: ['functional'] })).toContain(made.functional);
    expect(ran({ allowed: ['functional', 'analytics', 'targeting'] })).not.toContain(made.unknown);
    expect(ran({ banner: false })).toEqual(expect.arrayContaining([made.functional, made.unknown]));
    for (const uuid of Object.values(made)) expect(deleteScriptAsMerchant(fake, STORE, uuid)).toBe(true);
  });

  it('puts no second one when put again, and moves the one there to a new address', async () => {
    const [before] = scriptsOf(fake, STORE);
    await widget().put(STORE, src(STORE));
    expect(scriptsOf(fake, STORE)).toHaveLength(1);
    await widget().put(STORE, src(STORE, 'new-bridge.example'));
    expect(scriptsOf(fake, STORE)).toMatchObject([{ uuid: before!.uuid, src: src(STORE, 'new-bridge.example') }]);
    // One at the old address is not the wanted one.
    const wanting = bigCommerceWidget(
      async (shop) => apis.get(shop),
      (shop) => src(shop),
    );
    expect(await wanting.present(STORE)).toBe(false);
    await wanting.put(STORE, src(STORE));
    expect(await wanting.present(STORE)).toBe(true);
  });

  it('makes essential the functional one an earlier bridge put, which a shopper who declined never ran', async () => {
    const [ours] = scriptsOf(fake, STORE);
    const api = apis.get(STORE)!;
    const { status } = await api.send('PUT', `v3/content/scripts/${ours!.uuid}`, {
      json: { consent_category: 'functional' },
    });
    expect(status).toBe(200);
    expect(scriptsRunFor(fake, STORE)).toHaveLength(0);
    expect(await widget().present(STORE)).toBe(false);
    await widget().put(STORE, src(STORE));
    expect(scriptsOf(fake, STORE)).toMatchObject([{ uuid: ours!.uuid, consent_category: 'essential' }]);
    expect(scriptsRunFor(fake, STORE).map((each) => each.uuid)).toEqual([ours!.uuid]);
    expect(await widget().present(STORE)).toBe(true);
  });

  it('is not present after the merchant deletes it in Script Manager, and put brings it back', async () => {
    const [ours] = scriptsOf(fake, STORE);
    expect(deleteScriptAsMerchant(fake, STORE, ours!.uuid)).toBe(true);
    expect(await widget().present(STORE)).toBe(false);
    await widget().put(STORE, src(STORE));
    expect(await widget().present(STORE)).toBe(true);
    expect(scriptsOf(fake, STORE)).toHaveLength(1);
  });

  it('leaves one where two were made (two puts that raced)', async () => {
    const [ours] = scriptsOf(fake, STORE);
    const { status } = await apis.get(STORE)!.send('POST', 'v3/content/scripts', {
      json: { name: 'Loyalty points', kind: 'src', src: src(STORE), auto_uninstall: true },
    });
    expect(status).toBe(200);
    expect(scriptsOf(fake, STORE)).toHaveLength(2);
    await widget().put(STORE, src(STORE));
    expect(scriptsOf(fake, STORE)).toMatchObject([{ uuid: ours!.uuid }]);
  });

  it('removes it, and a second remove finds nothing to do', async () => {
    await widget().remove(STORE);
    expect(scriptsOf(fake, STORE)).toEqual([]);
    expect(await widget().present(STORE)).toBe(false);
    await widget().remove(STORE);
  });

  it('goes with the app: BigCommerce removes an auto_uninstall script when the app is uninstalled', async () => {
    await widget().put(STORE, src(STORE));
    fake.revokeApp(STORE);
    expect(scriptsOf(fake, STORE)).toEqual([]);
  });

  it('says the install lacks the Content scope when BigCommerce refuses it', async () => {
    const refused = await widget()
      .put(NO_CONTENT, src(NO_CONTENT))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BigCommerceApiError);
    expect((refused as BigCommerceApiError).status).toBe(403);
    expect((refused as Error).message).toMatch(/store_v2_content/);
    await expect(widget().present(NO_CONTENT)).rejects.toThrow(/store_v2_content/);
    expect(scriptsOf(fake, NO_CONTENT)).toEqual([]);
  });
});

describe('the widget on a BigCommerce store with several storefronts', () => {
  const channelsOf = () =>
    scriptsOf(fake, MULTI)
      .map((each) => each.channel_id)
      .sort((a, b) => a - b);
  let uk = 0;

  it('puts one script on each Stencil storefront, and none on a headless, archived or marketplace channel', async () => {
    const stores = fake.stores;
    uk = addChannel(stores, MULTI, { name: 'UK', type: 'storefront', platform: 'bigcommerce', status: 'active' }).id;
    const soon = addChannel(stores, MULTI, {
      name: 'Soon',
      type: 'storefront',
      platform: 'bigcommerce',
      status: 'prelaunch',
    }).id;
    const headless = addChannel(stores, MULTI, {
      name: 'Catalyst',
      type: 'storefront',
      platform: 'catalyst',
      status: 'active',
    }).id;
    addChannel(stores, MULTI, { name: 'Old', type: 'storefront', platform: 'bigcommerce', status: 'archived' });
    addChannel(stores, MULTI, { name: 'Amazon', type: 'marketplace', platform: 'amazon', status: 'connected' });
    await widget().put(MULTI, src(MULTI));
    expect(channelsOf()).toEqual([1, uk, soon]);
    // A shopper on the UK storefront runs its script; one on the headless storefront runs none of ours.
    expect(scriptsRunFor(fake, MULTI, { channel: uk })).toMatchObject([{ channel_id: uk, src: src(MULTI) }]);
    expect(scriptsRunFor(fake, MULTI, { channel: headless })).toEqual([]);
    expect(await widget().present(MULTI)).toBe(true);
  });

  it('leaves one script a storefront when the merchant’s switch and the keeper’s check put it at once', async () => {
    const one = widget();
    await one.remove(MULTI);
    expect(channelsOf()).toEqual([]);
    // Each put finds no script on any storefront: run side by side, both would make one on each.
    await Promise.all([one.put(MULTI, src(MULTI)), one.put(MULTI, src(MULTI)), one.present(MULTI)]);
    expect(channelsOf()).toHaveLength(new Set(channelsOf()).size);
    expect(await one.present(MULTI)).toBe(true);
  });

  it('is not present while a storefront added since has none, and put adds it there alone', async () => {
    const added = addChannel(fake.stores, MULTI, {
      name: 'EU',
      type: 'storefront',
      platform: 'bigcommerce',
      status: 'active',
    }).id;
    const before = scriptsOf(fake, MULTI).map((each) => each.uuid);
    expect(await widget().present(MULTI)).toBe(false);
    await widget().put(MULTI, src(MULTI));
    expect(await widget().present(MULTI)).toBe(true);
    expect(scriptsOf(fake, MULTI).map((each) => each.uuid)).toEqual(expect.arrayContaining(before));
    expect(scriptsOf(fake, MULTI).filter((each) => each.channel_id === added)).toHaveLength(1);
  });

  it('takes its script off a storefront the merchant archived, and all of them off at remove', async () => {
    fake.stores.get(MULTI)!.channels.find((each) => each.id === uk)!.status = 'archived';
    await widget().put(MULTI, src(MULTI));
    expect(channelsOf()).not.toContain(uk);
    await widget().remove(MULTI);
    expect(scriptsOf(fake, MULTI)).toEqual([]);
  });

  it('without Channel Settings, puts it on the default storefront alone and leaves the others’ scripts', async () => {
    await widget().put(MULTI, src(MULTI));
    const token = `${MULTI}-token`;
    fake.stores.get(MULTI)!.tokenScopes.set(token, APP.scope);
    try {
      const [first] = scriptsOf(fake, MULTI).filter((each) => each.channel_id === 1);
      expect(deleteScriptAsMerchant(fake, MULTI, first!.uuid)).toBe(true);
      const others = scriptsOf(fake, MULTI).length;
      await widget().put(MULTI, src(MULTI));
      expect(scriptsOf(fake, MULTI).filter((each) => each.channel_id === 1)).toHaveLength(1);
      expect(scriptsOf(fake, MULTI)).toHaveLength(others + 1);
      expect(await widget().present(MULTI)).toBe(true);
    } finally {
      fake.stores.get(MULTI)!.tokenScopes.set(token, CHANNELS_SCOPE);
    }
  });

  it('is a fake that refuses a script for a channel the store does not have', async () => {
    const { status, body } = await apis.get(MULTI)!.send('POST', 'v3/content/scripts', {
      json: { name: 'Elsewhere', kind: 'src', src: 'https://cdn.example/x.js', channel_id: 999_999 },
    });
    expect(status).toBe(422);
    expect(JSON.stringify(body)).toMatch(/channel_id/);
  });

  it('is a fake that refuses a channel filter BigCommerce does not take, and takes the one the bridge sends', async () => {
    // "Invalid value is provided to the query parameter(s)": 422 (reference/channels.v3.yml, Get All Channels).
    const list = (searchParams: Record<string, string>) =>
      apis.get(MULTI)!.send('GET', 'v3/channels', { searchParams });
    const wrongs: Record<string, string>[] = [
      { 'type:in': 'storefronts' },
      { 'status:in': 'live' },
      { available: 'yes' },
      { limit: 'a' },
    ];
    for (const wrong of wrongs) expect((await list(wrong)).status).toBe(422);
    const sent = { 'type:in': 'storefront', 'platform:in': 'bigcommerce', available: 'true', page: '1', limit: '50' };
    expect((await list(sent)).status).toBe(200);
  });
});

describe('the widget on a BigCommerce store with as many storefronts as an app may hold scripts', () => {
  const storefront = (name: string) =>
    addChannel(fake.stores, TEN, { name, type: 'storefront', platform: 'bigcommerce', status: 'active' }).id;

  it('takes its script off an archived storefront before it puts one on a new storefront, within the ten', async () => {
    // "Each app can have 10 API-created scripts" (docs/integrations/scripts.mdx, Limits): the store's ten
    // storefronts hold ten of ours. One archived and one added: the archived one's script must go first, or
    // BigCommerce refuses the new one, and every later put, for the limit.
    const ids = [1, ...Array.from({ length: 9 }, (_, index) => storefront(`Store ${index + 2}`))];
    await widget().put(TEN, src(TEN));
    expect(scriptsOf(fake, TEN)).toHaveLength(10);
    fake.stores.get(TEN)!.channels.find((each) => each.id === ids[9])!.status = 'archived';
    const added = storefront('New');
    await widget().put(TEN, src(TEN));
    const channels = scriptsOf(fake, TEN).map((each) => each.channel_id);
    expect(channels).toContain(added);
    expect(channels).not.toContain(ids[9]);
    expect(channels).toHaveLength(10);
    expect(await widget().present(TEN)).toBe(true);
  });
});
