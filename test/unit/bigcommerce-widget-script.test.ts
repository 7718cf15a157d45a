// The script the bridge serves to BigCommerce stores (adapters/bigcommerce/storefront-widget.ts): served as
// JavaScript that browsers may keep a few minutes, valid JavaScript whatever the client id, with the client id and
// the bridge's address only as data; and its transport, run in node:vm with a stubbed fetch: a fresh
// current-customer token for each call, sent as a bearer, or the store's name for a guest (or on a storefront
// whose origin answers no token: a headless one), and nothing stored.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { bigCommerceWidgetRoute, launcherWords } from '../../adapters/bigcommerce/storefront-widget.ts';

const CLIENT_ID = 'bc-client-4x9';
const BRIDGE = 'https://bridge.example';
const SCRIPT_SRC = `${BRIDGE}/bigcommerce/storefront/widget.js?store=abc123`;
const THEME = new URL('../../extensions/loyalty-theme/', import.meta.url);

async function served(clientId = CLIENT_ID, bridgeUrl = BRIDGE) {
  const route = bigCommerceWidgetRoute({ clientId, bridgeUrl });
  const served = await route.handle(new Request(`${BRIDGE}/bigcommerce${route.path}`));
  if (!served.headers.get('content-type')?.startsWith('application/javascript'))
    throw new Error('the widget route answers a script');
  // What browsers and the CDN may keep it for, as its answer says.
  const maxAgeSeconds = Number(/max-age=(\d+)/.exec(served.headers.get('cache-control') ?? '')?.[1]);
  const answer = { status: served.status, script: await served.text(), maxAgeSeconds };
  return { route, answer };
}

interface Call {
  url: string;
  init: { method?: string; credentials?: string; headers?: Record<string, string> };
}

/** Runs the served script on a bare page (no launcher logic is exercised: no DOM to speak of) and hands back its transport. */
function runOnPage(text: string, jwt: { status: number; body?: string }) {
  const calls: Call[] = [];
  const stored: string[] = [];
  const node = () => ({ setAttribute() {}, append() {}, className: '', textContent: '' });
  const fetch = (url: string, init: Call['init'] = {}) => {
    calls.push({ url, init });
    const text = url.startsWith('/customer/current.jwt') ? (jwt.body ?? 'not found') : '{"customer":"guest"}';
    const status = url.startsWith('/customer/current.jwt') ? jwt.status : 200;
    return Promise.resolve({
      ok: status >= 200 && status < 300,
      status,
      text: () => Promise.resolve(text),
      json: () => Promise.resolve(JSON.parse(text) as unknown),
    });
  };
  // The script's own tag, as a browser hands it to a running script (document.currentScript).
  class HTMLScriptElement {
    readonly src = SCRIPT_SRC;
  }
  class Document {}
  const script = new HTMLScriptElement();
  Object.defineProperty(Document.prototype, 'currentScript', { get: () => script });
  const page: Record<string, unknown> = {
    fetch,
    URL,
    URLSearchParams,
    Document,
    HTMLScriptElement,
    document: {
      documentElement: { lang: 'en', ...node() },
      head: node(),
      body: node(),
      createElement: node,
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

describe("the BigCommerce widget's script", () => {
  it('is served as JavaScript that browsers keep a few minutes', async () => {
    const { route, answer } = await served();
    expect(route).toMatchObject({ method: 'GET', path: '/storefront/widget.js' });
    expect(answer.status).toBe(200);
    const maxAge = answer.maxAgeSeconds;
    expect(maxAge).toBeGreaterThanOrEqual(60);
    expect(maxAge).toBeLessThanOrEqual(900);
  });

  it('is valid JavaScript holding the client id and the bridge address only as data, whatever they are', async () => {
    const hostile = `x"};alert(1);//</script>\u2028`;
    for (const clientId of [CLIENT_ID, hostile]) {
      const { answer } = await served(clientId);
      expect(() => new Function(answer.script)).not.toThrow();
      const data = /^ {2}var data = (.*);$/m.exec(answer.script)?.[1];
      expect(JSON.parse(data!)).toMatchObject({ clientId, points: `${BRIDGE}/bigcommerce/storefront/points` });
      expect(answer.script.split(BRIDGE)).toHaveLength(2);
      expect(answer.script).not.toMatch(/secret/i);
    }
  });

  it("carries loyalty.js and loyalty.css as they are, and the launcher block's words", async () => {
    const { answer } = await served();
    expect(answer.script).toContain(readFileSync(new URL('assets/loyalty.js', THEME), 'utf8'));
    const data = JSON.parse(/^ {2}var data = (.*);$/m.exec(answer.script)![1]!) as Record<string, any>;
    expect(data.css).toBe(readFileSync(new URL('assets/loyalty.css', THEME), 'utf8'));
    // Every word the Liquid block hands loyalty.js, in English; a guest signs in at BigCommerce's own page.
    const liquid = readFileSync(new URL('blocks/points-launcher.liquid', THEME), 'utf8');
    const handed = [...liquid.matchAll(/^\s+"(\w+)": \{\{/gm)].map((match) => match[1]!);
    expect(handed.length).toBeGreaterThan(20);
    for (const key of handed) expect(typeof data.words[key], key).toBe('string');
    expect(data.words.signInUrl).toBe('/login.php');
    expect(data.words).toMatchObject({ open: 'Your points', available: 'points available' });
    expect(launcherWords(JSON.parse(readFileSync(new URL('locales/en.default.json', THEME), 'utf8')))).toEqual(
      data.words,
    );
  });

  it('asks the store for a fresh customer token at each call and sends it to the bridge as a bearer', async () => {
    const { answer } = await served();
    const { calls, stored, transport } = runOnPage(answer.script, { status: 200, body: 'head.claims.sig\n' });
    await transport.ask(false);
    await transport.redeem('r 1');
    expect(calls.map((call) => [call.init.method ?? 'GET', call.url])).toEqual([
      ['GET', `/customer/current.jwt?app_client_id=${CLIENT_ID}`],
      ['GET', `${BRIDGE}/bigcommerce/storefront/points`],
      ['GET', `/customer/current.jwt?app_client_id=${CLIENT_ID}`],
      ['POST', `${BRIDGE}/bigcommerce/storefront/points/redeem?reward=r+1`],
    ]);
    expect(calls[0]!.init.credentials).toBe('same-origin');
    for (const call of [calls[1]!, calls[3]!]) {
      expect(call.init.headers?.authorization).toBe('Bearer head.claims.sig');
      expect(call.init.credentials).toBe('omit');
    }
    expect(stored).toEqual([]);
  });

  it('asks as a guest of the store its address names when BigCommerce says no one is signed in (404)', async () => {
    const { answer } = await served();
    const { calls, transport } = runOnPage(answer.script, { status: 404 });
    expect(await transport.ask(false)).toEqual({ customer: 'guest' });
    expect(calls[1]!.url).toBe(`${BRIDGE}/bigcommerce/storefront/points?store=abc123`);
    expect(calls[1]!.init.headers?.authorization).toBeUndefined();
  });

  // A headless storefront is its own site: /customer/current.jwt there is never BigCommerce's (issue 66, item 5).
  it.each([
    ['its own page for an unknown path', 200, '<!doctype html><title>Not here</title>'],
    ['its sign-in page, after a redirect', 200, '<!doctype html><form action="/login">'],
    ['an empty answer', 200, ''],
    ['a refusal of the method', 405, 'Method Not Allowed'],
    ['a refusal', 403, 'Forbidden'],
  ])('asks as a guest on a storefront whose origin answers no token: %s', async (_what, status, body) => {
    const { answer } = await served();
    const { calls, transport } = runOnPage(answer.script, { status, body });
    expect(await transport.ask(false)).toEqual({ customer: 'guest' });
    expect(calls[1]!.url).toBe(`${BRIDGE}/bigcommerce/storefront/points?store=abc123`);
    expect(calls[1]!.init.headers?.authorization).toBeUndefined();
  });

  it('fails the ask (the launcher offers "Try again") when the store cannot say who is signed in', async () => {
    const { answer } = await served();
    const { calls, transport } = runOnPage(answer.script, { status: 500 });
    await expect(transport.ask(true)).rejects.toThrow(/500/);
    expect(calls).toHaveLength(1);
  });
});
