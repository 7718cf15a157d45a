// The merchant's page against Shopify's own artifacts: every Polaris element
// it draws, and every attribute it gives one, is in Polaris's Custom Elements
// Manifest (@shopify/polaris-types); the App Bridge elements it uses are
// declared by @shopify/app-bridge-types. And as the App URL serves it inside
// the admin: App Bridge first, then Polaris, both from Shopify's CDN, which
// the CSP allows; nothing inline runs; framed by this shop's admin alone; and
// each of its views' addresses is answered, signed, as the App URL is.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeShopify } from '../helpers/fake-shopify.ts';
import { polarisElements } from '../helpers/polaris-fake.ts';
import {
  APP_KEY,
  APP_SECRET,
  CHROME_UA,
  startFakeShopifyForApp,
  startShopifyAppBridge,
  stopFakeShopifyForApp,
  type ShopifyAppBridge,
} from '../helpers/shopify-app-bridge.ts';
import { appUrlQuery, mintSessionToken } from '../helpers/shopify-app-links.ts';
import { APP_BRIDGE_URL, POLARIS_URL, SHOPIFY_APP_URL_PATH } from '../../adapters/shopify/paths.ts';

const page = readFileSync(fileURLToPath(new URL('../../src/http/merchant/index.html', import.meta.url)), 'utf8');
/** The page's modules (merchant.js and what it imports), each with its name; elements.js is the stand-ins'. */
const MERCHANT_DIR = fileURLToPath(new URL('../../src/http/merchant/', import.meta.url));
const modules = readdirSync(MERCHANT_DIR)
  .filter((file) => file.endsWith('.js') && file !== 'elements.js')
  .map((file) => ({ file, text: readFileSync(`${MERCHANT_DIR}${file}`, 'utf8') }));
const script = modules.map(({ text }) => text).join('\n');
const appBridgeTypes = readFileSync(
  fileURLToPath(new URL('../../node_modules/@shopify/app-bridge-types/dist/index.d.ts', import.meta.url)),
  'utf8',
);
/** Attributes any element takes (HTML's global ones, and the page's own data-*). */
const GLOBAL = new Set(['id', 'class', 'hidden', 'slot', 'name', 'style', 'role']);
const SHOP = 'merchant-page.myshopify.com';

/** Each s-* element of the page and of the elements its script makes, with the attributes given. */
function usedElements(): Array<{ tag: string; attributes: string[]; where: string }> {
  const inPage = [...page.matchAll(/<(s-[a-z0-9-]+)([^>]*)>/g)].map(([, tag, attributes]) => ({
    tag: tag!,
    attributes: [...(attributes ?? '').matchAll(/([A-Za-z0-9_-]+)(?:="[^"]*")?/g)].map(([, name]) => name!),
    where: 'index.html',
  }));
  const inScript = modules.flatMap(({ file, text }) =>
    [...text.matchAll(/element\('(s-[a-z-]+)'(?:,[^{)]*\{([^}]*)\})?/g)].map(([, tag, object]) => ({
      tag: tag!,
      attributes: [...(object ?? '').matchAll(/(?:'([a-z-]+)'|([a-z]+)):/g)].map(
        ([, quoted, bare]) => (quoted ?? bare)!,
      ),
      where: file,
    })),
  );
  return [...inPage, ...inScript];
}

describe('the merchant page against Shopify’s manifests', () => {
  const polaris = new Map(polarisElements().map((element) => [element.tagName, element]));

  it('uses only elements Polaris or App Bridge declare, with attributes they declare', () => {
    const used = usedElements();
    expect(used.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { tag, attributes, where } of used) {
      const declared = polaris.get(tag);
      if (!declared) {
        // App Bridge's own elements (s-app-nav) are declared by its types, not Polaris's manifest.
        if (!appBridgeTypes.includes(`"${tag}"`)) problems.push(`${where}: <${tag}> is declared by neither`);
        continue;
      }
      for (const attribute of attributes) {
        if (GLOBAL.has(attribute) || attribute.startsWith('data-')) continue;
        // App Bridge reads rel="home" on a link of <s-app-nav> (App Home's app nav documentation).
        if (tag === 's-link' && attribute === 'rel') continue;
        if (!declared.attributes.includes(attribute)) problems.push(`${where}: <${tag} ${attribute}> is not declared`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('listens only for events the elements declare', () => {
    // The script's listeners on Polaris elements are clicks on buttons.
    expect(polaris.get('s-button')?.events).toContain('click');
    expect(script).not.toMatch(/s-(?:text|number|password)-field[^\n]*addEventListener/);
  });
});

describe('the merchant page as the App URL serves it inside the admin', () => {
  let fake: FakeShopify;
  let running: ShopifyAppBridge;

  beforeAll(async () => {
    fake = await startFakeShopifyForApp();
    fake.install(SHOP);
    running = await startShopifyAppBridge(fake, { SHOPIFY_SHOPS: SHOP });
  }, 30_000);
  afterAll(async () => {
    await running?.stop();
    await stopFakeShopifyForApp(fake);
  });

  const open = (path: string) =>
    fetch(
      `${running.url}${path}?${appUrlQuery({
        shop: SHOP,
        secret: APP_SECRET,
        embedded: true,
        idToken: mintSessionToken({ shop: SHOP, apiKey: APP_KEY, secret: APP_SECRET }),
      })}`,
      { headers: { 'user-agent': CHROME_UA }, redirect: 'manual' },
    );

  it('loads App Bridge first and Polaris from Shopify’s CDN, which the CSP allows, framed by the shop’s admin alone', async () => {
    const response = await open(SHOPIFY_APP_URL_PATH);
    expect(response.status).toBe(200);
    const html = await response.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map(([, attributes]) => /src="([^"]+)"/.exec(attributes ?? '')?.[1])).toEqual([
      APP_BRIDGE_URL,
      POLARIS_URL,
      '/merchant/merchant.js',
    ]);
    // App Bridge is loaded as is: no async, defer or module; nothing inline runs.
    expect(scripts[0]![1]).not.toMatch(/async|defer|type="module"/);
    expect(scripts.every(([, , body]) => body === '')).toBe(true);
    expect(html).toContain(`<meta name="shopify-api-key" content="${APP_KEY}">`);
    const csp = response.headers.get('content-security-policy') ?? '';
    // Scripts from Shopify's own folder of its CDN alone: a merchant's upload elsewhere on it runs nowhere here.
    expect(csp).toMatch(/script-src 'self' https:\/\/cdn\.shopify\.com\/shopifycloud\/;/);
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain(`frame-ancestors https://${SHOP} https://admin.shopify.com`);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('answers each view’s address as the App URL, and only when Shopify signed it', async () => {
    // The views the page declares in its nav (merchant.js reads the same), Home aside: it is the App URL itself.
    const views = [
      ...readFileSync(new URL('../../src/http/merchant/index.html', import.meta.url), 'utf8').matchAll(
        /data-nav="([a-z-]+)"(?! rel="home")/g,
      ),
    ].map(([, view]) => view!);
    expect(views.length).toBeGreaterThan(2);
    for (const view of views) {
      expect((await open(`${SHOPIFY_APP_URL_PATH}/${view}`)).status, view).toBe(200);
      const unsigned = await fetch(`${running.url}${SHOPIFY_APP_URL_PATH}/${view}?shop=${SHOP}`, {
        headers: { 'user-agent': CHROME_UA },
        redirect: 'manual',
      });
      expect(unsigned.status, view).toBe(401);
    }
    // A name of no view's shape is no address of the app's.
    expect((await open(`${SHOPIFY_APP_URL_PATH}/Setup.js`)).status).toBe(404);
    // merchant.js and every module it imports, as scripts (a module served as anything else does not run).
    for (const { file } of modules) {
      const script = await fetch(`${running.url}/merchant/${file}`);
      expect(script.status, file).toBe(200);
      expect(script.headers.get('content-type'), file).toContain('javascript');
    }
    // The page's template is not a file anyone fetches: only the App URL answers it.
    expect((await fetch(`${running.url}/merchant/index.html`)).status).toBe(404);
  });
});
