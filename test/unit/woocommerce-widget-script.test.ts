// The script the bridge serves to WooCommerce stores, which the WordPress plugin prints
// (adapters/woocommerce/storefront-widget.ts, docs/wordpress-plugin.md §4): the shared launcher with WooCommerce's
// transport, run in node:vm with a stubbed fetch. At each call it asks the plugin's identity route (the address and
// REST nonce the plugin printed in #loyalty-bridge-config) with the customer's cookies, and sends the token to the
// bridge as a bearer, never the store's cookies; not signed in (401) or no config: a guest of the store the script's
// address names. Nothing is stored.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { wooWidgetRoute } from '../../adapters/woocommerce/storefront-widget.ts';

const BRIDGE = 'https://bridge.example';
const SCRIPT_SRC = `${BRIDGE}/woocommerce/storefront/widget.js?store=store.example%2Fshop`;
const IDENTITY = 'https://store.example/shop/wp-json/loyalty-bridge/v1/identity';

interface Call {
  url: string;
  init: { method?: string; credentials?: string; cache?: string; headers?: Record<string, string> };
}

async function served() {
  const route = wooWidgetRoute(BRIDGE);
  const answer = await route.handle({ method: 'GET', path: route.path, query: {}, headers: {}, body: Buffer.alloc(0) });
  if (!('script' in answer)) throw new Error('the widget route answers a script');
  return answer.script;
}

/** Runs the served script on a bare page and hands back its transport; `config`: the plugin's placeholder, if printed. */
function runOnPage(text: string, identity: { status: number; body?: unknown }, config = true) {
  const calls: Call[] = [];
  const stored: string[] = [];
  const node = () => ({ setAttribute() {}, append() {}, className: '', textContent: '' });
  const attributes: Record<string, string> = { 'data-identity-url': IDENTITY, 'data-rest-nonce': 'wp-nonce-1' };
  const fetch = (url: string, init: Call['init'] = {}) => {
    calls.push({ url, init });
    const mine = url === IDENTITY;
    const status = mine ? identity.status : 200;
    const body = mine ? identity.body : { customer: 'guest' };
    return Promise.resolve({
      ok: status >= 200 && status < 300,
      status,
      json: () => Promise.resolve(body),
    });
  };
  const page: Record<string, unknown> = {
    fetch,
    URL,
    URLSearchParams,
    document: {
      currentScript: { src: SCRIPT_SRC },
      documentElement: { lang: 'en', ...node() },
      head: node(),
      body: node(),
      createElement: node,
      getElementById: (id: string) =>
        config && id === 'loyalty-bridge-config' ? { getAttribute: (name: string) => attributes[name] ?? null } : null,
      querySelectorAll: () => [],
      addEventListener() {},
    },
    localStorage: new Proxy({}, { get: (_target, name) => void stored.push(String(name)) }),
    sessionStorage: new Proxy({}, { get: (_target, name) => void stored.push(String(name)) }),
  };
  page.window = page;
  vm.runInNewContext(text, page);
  const transport = page.loyaltyBridgeTransport as {
    ask(fresh: boolean): Promise<unknown>;
    redeem(id: string): Promise<unknown>;
  };
  return { calls, stored, transport };
}

describe('the WooCommerce widget’s script', () => {
  it('asks the plugin for a fresh identity token at each call and sends it to the bridge as a bearer', async () => {
    const { calls, stored, transport } = runOnPage(await served(), { status: 200, body: { token: 'payload.sig' } });
    await transport.ask(false);
    await transport.redeem('r 1');
    expect(calls.map((call) => [call.init.method ?? 'GET', call.url])).toEqual([
      ['GET', IDENTITY],
      ['GET', `${BRIDGE}/woocommerce/storefront/points`],
      ['GET', IDENTITY],
      ['POST', `${BRIDGE}/woocommerce/storefront/points/redeem?reward=r+1`],
    ]);
    expect(calls[0]!.init).toMatchObject({ credentials: 'same-origin', cache: 'no-store' });
    expect(calls[0]!.init.headers?.['X-WP-Nonce']).toBe('wp-nonce-1');
    for (const call of [calls[1]!, calls[3]!]) {
      expect(call.init.headers?.authorization).toBe('Bearer payload.sig');
      expect(call.init.credentials).toBe('omit');
    }
    expect(stored).toEqual([]);
  });

  it('asks as a guest of its store when WordPress says no one is signed in (401), or printed no config', async () => {
    for (const [identity, config] of [
      [{ status: 401, body: { code: 'rest_not_logged_in' } }, true],
      [{ status: 200, body: { token: 'unused' } }, false],
    ] as const) {
      const { calls, transport } = runOnPage(await served(), identity, config);
      expect(await transport.ask(false)).toEqual({ customer: 'guest' });
      const bridgeCall = calls.find((call) => call.url.startsWith(BRIDGE))!;
      expect(bridgeCall.url).toBe(`${BRIDGE}/woocommerce/storefront/points?store=store.example%2Fshop`);
      expect(bridgeCall.init.headers?.authorization).toBeUndefined();
    }
  });

  it('fails the ask (the launcher offers "Try again") when the store cannot say who is signed in', async () => {
    const { calls, transport } = runOnPage(await served(), { status: 500 });
    await expect(transport.ask(true)).rejects.toThrow(/500/);
    expect(calls).toHaveLength(1);
  });

  it('is valid JavaScript, with a guest’s sign-in at My Account', async () => {
    const text = await served();
    expect(() => new Function(text)).not.toThrow();
    const data = JSON.parse(/^ {2}var data = (.*);$/m.exec(text)![1]!) as { words: Record<string, string> };
    expect(data.words.signInUrl).toBe('/my-account/');
  });
});
