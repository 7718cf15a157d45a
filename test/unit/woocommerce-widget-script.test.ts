// The script the bridge serves to WooCommerce stores, which the WordPress plugin prints
// (adapters/woocommerce/storefront-widget.ts, docs/wordpress-plugin.md §4): the shared launcher with WooCommerce's
// transport, run in node:vm with a stubbed fetch. At each call it asks the plugin's identity route (on the site the
// plugin put on the script's own tag, with the REST nonce it put there) with the customer's cookies, and sends the
// token to the bridge as a bearer, never the store's cookies; not signed in (401) or no settings: a guest of the store
// the script's address names. Nothing is stored. It calls no address of the store's but the three it builds itself,
// whatever its tag or the page says (issue 65).
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { wooWidgetRoute } from '../../adapters/woocommerce/storefront-widget.ts';

const BRIDGE = 'https://bridge.example';
const SCRIPT_SRC = `${BRIDGE}/woocommerce/storefront/widget.js?store=store.example%2Fshop`;
const SITE = 'https://store.example/shop/';
const IDENTITY = `${SITE}?rest_route=/loyalty-bridge/v1/identity`;
const PROOF = `${SITE}?rest_route=/loyalty-bridge/v1/email-proof`;
const FRESH_NONCE = `${SITE}wp-admin/admin-ajax.php?action=rest-nonce`;
/** What the plugin puts on the script's tag (storefront.php). */
const TAG = { 'data-site': SITE, 'data-admin': `${SITE}wp-admin/`, 'data-rest-nonce': '0a1b2c3d4e' };

interface Call {
  url: string;
  init: { method?: string; credentials?: string; cache?: string; headers?: Record<string, string> };
}

async function served() {
  const route = wooWidgetRoute(BRIDGE);
  const answer = await route.handle(new Request(`${BRIDGE}/woocommerce${route.path}`));
  if (!answer.headers.get('content-type')?.startsWith('application/javascript'))
    throw new Error('the widget route answers a script');
  return answer.text();
}

/** The script's own tag, as a browser hands it to a running script (document.currentScript). */
class HTMLScriptElement {
  readonly src: string;
  private readonly attributes: Record<string, string>;
  constructor(src: string, attributes: Record<string, string>) {
    this.src = src;
    this.attributes = attributes;
  }
  getAttribute(name: string) {
    return this.attributes[name] ?? null;
  }
}

/**
 * Runs the served script on a bare page of the store and hands back its transport. `tag`: what its script tag
 * carries; the store answers the identity route with `identity` (each answer in turn, the last again), and the page
 * holds a #loyalty-bridge-config of a post's making, which must never be read.
 */
function runOnPage(
  text: string,
  identity: { status: number; body?: unknown } | Array<{ status: number; body?: unknown }>,
  tag: Record<string, string> = TAG,
) {
  const calls: Call[] = [];
  const stored: string[] = [];
  const answers = Array.isArray(identity) ? [...identity] : [identity];
  // Every element the script makes: the launchers' words are one's text.
  const made: Array<{ textContent: string }> = [];
  const node = () => {
    const element = { setAttribute() {}, append() {}, className: '', textContent: '' };
    made.push(element);
    return element;
  };
  const fetch = (url: string, init: Call['init'] = {}) => {
    calls.push({ url, init });
    const answer =
      url === IDENTITY || url === PROOF
        ? answers.length > 1
          ? answers.shift()!
          : answers[0]!
        : url === FRESH_NONCE
          ? { status: 200, body: 'f00dfeed42' }
          : { status: 200, body: { customer: 'guest' } };
    return Promise.resolve({
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      json: () => Promise.resolve(answer.body),
      text: () => Promise.resolve(String(answer.body)),
    });
  };
  const script = new HTMLScriptElement(SCRIPT_SRC, tag);
  class Document {}
  Object.defineProperty(Document.prototype, 'currentScript', { get: () => script });
  const forged = { getAttribute: () => 'https://store.example/shop/?rest_route=/wp/v2/users&_method=POST' };
  const page: Record<string, unknown> = {
    fetch,
    URL,
    URLSearchParams,
    Document,
    HTMLScriptElement,
    location: { href: `${SITE}my-account/points/`, origin: 'https://store.example' },
    document: {
      // A post's element named currentScript, and its own settings element: neither is the script's.
      currentScript: forged,
      documentElement: { lang: 'en', ...node() },
      head: node(),
      body: node(),
      createElement: node,
      getElementById: () => forged,
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
    proveContact(): Promise<string>;
  };
  /** The words the launcher was given (its <script type="application/json" data-loyalty-words>). */
  const words = () =>
    JSON.parse(made.find((element) => element.textContent.includes('"signInUrl"'))!.textContent) as Record<
      string,
      string
    >;
  return { calls, stored, transport, words };
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
    expect(calls[0]!.init.headers?.['X-WP-Nonce']).toBe('0a1b2c3d4e');
    for (const call of [calls[1]!, calls[3]!]) {
      expect(call.init.headers?.authorization).toBe('Bearer payload.sig');
      expect(call.init.credentials).toBe('omit');
    }
    expect(stored).toEqual([]);
  });

  it('asks as a guest of its store when WordPress says no one is signed in (401), or its tag has no settings', async () => {
    for (const [identity, tag] of [
      [{ status: 401, body: { code: 'rest_not_logged_in' } }, TAG],
      [{ status: 200, body: { token: 'unused' } }, {}],
    ] as const) {
      const { calls, transport } = runOnPage(await served(), identity, tag);
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

  it('asks WordPress once for a fresh nonce when the page’s is refused (a cached page), and again with it', async () => {
    const { calls, transport } = runOnPage(await served(), [
      { status: 403, body: { code: 'rest_cookie_invalid_nonce' } },
      { status: 200, body: { token: 'payload.sig' } },
    ]);
    await transport.ask(false);
    expect(calls.map((call) => [call.url, call.init.headers?.['X-WP-Nonce']])).toEqual([
      [IDENTITY, '0a1b2c3d4e'],
      [FRESH_NONCE, undefined],
      [IDENTITY, 'f00dfeed42'],
      [`${BRIDGE}/woocommerce/storefront/points`, undefined],
    ]);
  });

  it('calls no address of the store’s but its own three, whatever its tag says', async () => {
    const forged = [
      { 'data-site': 'https://evil.example/' },
      { 'data-site': 'https://store.example/shop/?rest_route=/wp/v2/users&_method=POST&roles=administrator' },
      { 'data-site': 'https://store.example/wp-admin/users.php/' },
      { 'data-site': 'https://store.example/shop/../wp-admin/x.php/' },
      { 'data-site': 'https://user:pw@store.example/shop/' },
      { 'data-site': '//evil.example/' },
    ];
    for (const tag of forged) {
      const { calls, transport } = runOnPage(
        await served(),
        { status: 200, body: { token: 'unused' } },
        { ...TAG, ...tag },
      );
      await transport.ask(false);
      expect(
        calls.map((call) => call.url),
        JSON.stringify(tag),
      ).toEqual([`${BRIDGE}/woocommerce/storefront/points?store=store.example%2Fshop`]);
    }
    // An admin address of another shape: the refused nonce is not replaced from it.
    const { calls, transport } = runOnPage(
      await served(),
      { status: 403 },
      {
        ...TAG,
        'data-admin': 'https://store.example/shop/wp-admin/users.php?action=x&',
      },
    );
    await transport.ask(false);
    expect(calls.map((call) => call.url)).toEqual([
      IDENTITY,
      `${BRIDGE}/woocommerce/storefront/points?store=store.example%2Fshop`,
    ]);
    const proving = runOnPage(await served(), { status: 200, body: { message: 'We sent a link.' } });
    expect(await proving.transport.proveContact()).toBe('We sent a link.');
    expect(proving.calls.map((call) => [call.init.method, call.url])).toEqual([['POST', PROOF]]);
  });

  it('sends a guest to sign in at My Account where the plugin says it is, if it is a page of the store’s own', async () => {
    // A site in a directory, or a store whose My Account page has another name (WooCommerce names it in the site's
    // language): /my-account/ is another page of the origin, or none.
    const account = 'https://store.example/shop/mon-compte/';
    expect(runOnPage(await served(), { status: 401 }, { ...TAG, 'data-account': account }).words().signInUrl).toBe(
      account,
    );
    for (const other of ['https://evil.example/my-account/', 'javascript:alert(1)', '//evil.example/', '']) {
      const { words } = runOnPage(await served(), { status: 401 }, { ...TAG, 'data-account': other });
      expect(words().signInUrl, other).toBe('/my-account/');
    }
  });

  it('is valid JavaScript, with a guest’s sign-in at My Account', async () => {
    const text = await served();
    expect(() => new Function(text)).not.toThrow();
    const data = JSON.parse(/^ {2}var data = (.*);$/m.exec(text)![1]!) as { words: Record<string, string> };
    expect(data.words.signInUrl).toBe('/my-account/');
  });
});
